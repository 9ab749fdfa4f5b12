// The real server for website tests: its own origin (so the embedded identity provider's redirects and
// the OAuth checks line up with what the browser sees) over the sample build made by global-setup.
import { inject } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

export function startWebServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ ownOrigin: true, env: { DIST_DIR: inject('sampleDist'), ...env } });
}
