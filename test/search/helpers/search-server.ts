// The real server over HTTP with search attached (api/search/attach.ts) until api/server.ts mounts the
// search routes itself; then this becomes startTestServer.
import path from 'node:path';
import { inject } from 'vitest';
import { loadConfig } from '../../../src/lib/config.ts';
import { attachSearch } from '../../../api/search/attach.ts';
import type { SearchService } from '../../../src/lib/search/index.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

export interface SearchTestServer extends TestServer {
  search(): SearchService;
}

export async function startSearchServer(opts: { contentDir?: string; env?: Record<string, string> } = {}): Promise<SearchTestServer> {
  const env = { EMBEDDING_PROVIDER: 'builtin', WRITE_RATE_LIMIT_PER_MINUTE: '1000', ...opts.env };
  const srv = await startTestServer({ ...opts, env });
  const config = loadConfig({
    CONTENT_DIR: opts.contentDir ?? path.resolve('content'),
    DIST_DIR: inject('sampleDist'),
    DATA_DIR: srv.dataDir,
    BASE_URL: 'http://kb.test',
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
  });
  const attached = await attachSearch(srv, config);
  return { ...srv, search: attached.search };
}
