// The server's pages act through the API, in process: the same routes, validation, permission checks,
// rate limits and audit events as any other client, with the page request's session cookie. No socket
// is involved; app.fetch runs the Hono pipeline directly.
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { sentenceOf } from '../../public/assets/sentences.js';

export interface ApiAnswer {
  status: number;
  ok: boolean;
  // The API's JSON, unknown to the page until it looks at status; typed where used.
  body: any;
  headers: Headers;
}

export type CallApi = (c: Context, method: string, path: string, opts?: { json?: unknown; headers?: Record<string, string> }) => Promise<ApiAnswer>;

export function apiCaller(app: OpenAPIHono): CallApi {
  return async (c, method, path, opts = {}) => {
    const own = new URL(c.req.url);
    const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
    const cookie = c.req.header('cookie');
    if (cookie) headers.Cookie = cookie;
    // The page request passed the CSRF check already (a form post from this site); the inner write
    // carries this site's origin so the API's own check passes the same way.
    if (method !== 'GET' && method !== 'HEAD') headers.Origin = own.origin;
    // Only the incoming request travels along (rate limits key on its client address); the outgoing
    // response belongs to the page.
    return fetchInProcess(app, new URL(path, own.origin), method, headers, opts.json, (c.env as { incoming?: unknown } | undefined)?.incoming);
  };
}

/**
 * One request through the app in process (app.fetch, no socket): its status, headers and body, parsed
 * when it is JSON. The website's pages (apiCaller) and the MCP tools (api/mcp/api.ts) act through it.
 * @param incoming the Node request the outer call arrived on: rate limits by address key on it
 */
export async function fetchInProcess(app: OpenAPIHono, url: URL, method: string, headers: Record<string, string>, json: unknown, incoming: unknown): Promise<ApiAnswer> {
  if (json !== undefined) headers['Content-Type'] = 'application/json';
  const req = new Request(url, { method, headers, body: json !== undefined ? JSON.stringify(json) : undefined });
  const res = await app.fetch(req, { incoming });
  const text = res.status === 204 ? '' : await res.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: res.status, ok: res.ok, body, headers: res.headers };
}

/**
 * The API's refusal as sentences for a person (public/assets/sentences.js): `{"detail": "…"}` as it is, a
 * 422's list in words, never JSON or a pattern. Forms with fields use api/web/form-errors.ts instead.
 */
export function problem(a: ApiAnswer): string {
  return sentenceOf(a.status, a.body);
}
