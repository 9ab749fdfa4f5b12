// The real server over HTTP, on the builtin embedder unless a test asks for another, with a write limit
// that a test publishing several posts does not hit.
import { startTestServer, type TestServer } from '../../helpers/server.ts';

export type SearchTestServer = TestServer;

export function startSearchServer(opts: { contentDir?: string; env?: Record<string, string> } = {}): Promise<SearchTestServer> {
  return startTestServer({ ...opts, env: { EMBEDDING_PROVIDER: 'builtin', WRITE_RATE_LIMIT_PER_MINUTE: '1000', ...opts.env } });
}
