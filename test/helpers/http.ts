// JSON requests against a test server, with a session's or a key's headers.
import type { TestServer } from './server.ts';

export type Send = (path: string, init?: RequestInit & { json?: unknown; as?: { headers: Record<string, string> } }) => Promise<Response>;

export function sender(srv: TestServer): Send {
  return (p, init = {}) => {
    const { json, as, ...rest } = init;
    return srv.get(p, {
      ...rest,
      headers: { ...(json !== undefined ? { 'Content-Type': 'application/json' } : {}), ...as?.headers, ...(rest.headers as Record<string, string>) },
      body: json !== undefined ? JSON.stringify(json) : rest.body,
    });
  };
}

/** The ETag without the encoding variant the compression middleware adds to a compressed answer's (…-gz"). */
export const identity = (etag: string | null) => etag?.replace(/-(?:br|gz)"$/, '"');
