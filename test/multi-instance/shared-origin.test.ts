// The README's "Several instances" recipe on one host (issue 40): two instances on one PostgreSQL, each with
// its own PORT and DATA_DIR, the same BASE_URL, KEYS_DIR and DATABASE_URL, behind a round-robin proxy that
// is the public origin. In dev mode the browser sign-in through the embedded identity provider works
// through that shared origin — every step may land on either instance — and so do writes and the probes.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres, startPostgres, type PgCluster } from '../helpers/postgres.ts';
import { signInThroughIdp } from '../helpers/browser.ts';
import { freePort } from '../helpers/server.ts';
import { call, startInstances, type InstanceGroup } from './instances.ts';
import { roundRobinProxy, type Proxy } from './proxy.ts';

describePostgres('two instances behind one origin on one host', () => {
  let pg: PgCluster;
  let group: InstanceGroup;
  let proxy: Proxy;

  beforeAll(async () => {
    pg = await startPostgres();
    const port = await freePort();
    group = await startInstances(pg, { count: 2, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    proxy = await roundRobinProxy(port, group.instances.map((i) => i.url));
  });
  afterAll(async () => {
    await proxy?.close();
    await group?.stop();
    await pg?.stop();
  });

  it('signs a person in through the shared origin in dev mode, each step on either instance, and keeps them signed in on both', async () => {
    const { browser, final } = await signInThroughIdp(proxy.url, 'shared@example.org', 'Shared');
    expect(final.status, await final.clone().text()).toBeLessThan(400);
    expect(browser.cookies.get('kb_session')).toBeTruthy();
    // The sign-in's requests went to both instances.
    expect(new Set(proxy.served).size).toBe(2);
    // Signed in whichever instance answers, and a write through the origin works.
    for (let i = 0; i < 4; i++) {
      const me = await call(`${proxy.url}/api/auth/me`, { headers: { Cookie: browser.cookieHeader() } });
      expect(me.body.authenticated).toBe(true);
    }
    const video = (await call(`${proxy.url}/api/videos?limit=1`)).body.items[0].video_id;
    const made = await call(`${proxy.url}/api/comments`, { method: 'POST', headers: { Cookie: browser.cookieHeader(), Origin: proxy.url }, json: { entity_type: 'video', entity_id: video, body: 'through the shared origin' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    for (let i = 0; i < 2; i++) {
      expect((await call(`${proxy.url}/api/ready`)).body).toEqual({ status: 'ready' });
      expect((await call(`${proxy.url}/api/health`)).body).toEqual({ status: 'ok' });
    }
  }, 120_000);
});
