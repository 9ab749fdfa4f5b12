// A server never serves a build made for another origin: its files name that origin in every link and
// discovery document. It answers through the dynamic routes, for its own BASE_URL, until a build for it lands.
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.ts';

describe('a dist/ built for another BASE_URL', () => {
  it('is not served; the dynamic routes answer for this origin', async () => {
    // The sample dist/ was built for http://kb.test.
    const srv = await startTestServer({ env: { BASE_URL: 'http://other.test', ALLOW_DEV_IDP: 'true' } });
    try {
      expect(srv.staticSite.fileCount).toBe(0);
      const meta = await (await srv.get('/.well-known/oauth-protected-resource')).json();
      expect(meta.resource).toBe('http://other.test/mcp');
      const latest = await (await srv.get('/api/latest')).json();
      expect(latest.agent.auth_metadata).toBe('http://other.test/.well-known/oauth-authorization-server');
    } finally {
      await srv.stop();
    }
    const same = await startTestServer();
    try {
      expect(same.staticSite.fileCount).toBeGreaterThan(200);
    } finally {
      await same.stop();
    }
  });
});
