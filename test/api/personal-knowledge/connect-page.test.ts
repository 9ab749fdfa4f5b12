// The account page's "Connect a note store" is a form post: a GET from another site (a link, an image,
// a top-level navigation that carries the SameSite=Lax session) connects nothing, and the post keeps the
// Origin rule of every cookie write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor } from '../../helpers/auth.ts';
import { startGitHost } from './git-host.ts';
import { getJson, person, serverFor } from './helpers.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true });
});
afterAll(() => srv?.stop());

const FORM = /<form method="post" action="\/account\/personal-knowledge\/connect">/;

describe('/account/personal-knowledge/connect', () => {
  it('connects nothing on a GET (a cross-site navigation): it shows the account page with the button', async () => {
    const p = await person(srv, 'lured@example.org');
    const res = await p.browser.follow('/account/personal-knowledge/connect', { headers: { 'Sec-Fetch-Site': 'cross-site' } });
    expect(res.status).toBe(200);
    expect(p.browser.visited).toEqual([`${srv.url}/account/personal-knowledge/connect`]);
    expect(await res.text()).toMatch(FORM);
    expect((await getJson(p, '/api/me/personal-knowledge')).body.connected).toBe(false);
    expect(await srv.db.prepare('SELECT COUNT(*) FROM pk_connect_flows').pluck().get()).toBe(0);
  });

  it('refuses a post from another site, or without Origin, and connects on the account page\'s own post', async () => {
    const p = await person(srv, 'clicks@example.org');
    const page = await p.browser.request('/account');
    expect(await page.text()).toMatch(FORM);
    expect((await p.browser.request('/account/personal-knowledge/connect', { method: 'POST', headers: { Origin: 'https://evil.example' } })).status).toBe(403);
    const noOrigin = await fetch(`${srv.url}/account/personal-knowledge/connect`, { method: 'POST', headers: { Cookie: p.cookie }, redirect: 'manual' });
    expect(noOrigin.status).toBe(403);
    expect((await getJson(p, '/api/me/personal-knowledge')).body.connected).toBe(false);

    const posted = await p.browser.request('/account/personal-knowledge/connect', { method: 'POST' });
    expect(posted.status).toBe(303);
    expect(new URL(posted.headers.get('location')!).pathname).toBe('/api/auth/vcs/embedded/authorize');
    const last = await p.browser.follow(posted.headers.get('location')!, {}, /\/account\?/);
    expect(last.headers.get('location')).toBe('/account?pk=connected');
    expect((await getJson(p, '/api/me/personal-knowledge')).body.connected).toBe(true);
    // Disconnecting is account management too: a browser session only, not an API key.
    const key = await bearerFor(srv, p.userId);
    expect((await srv.get('/api/me/personal-knowledge?discard_unpushed=true', { method: 'DELETE', headers: key.headers })).status).toBe(403);
    expect((await getJson(p, '/api/me/personal-knowledge')).body.connected).toBe(true);
  });

  it('sends an anonymous visitor to sign in first', async () => {
    const res = await srv.get('/account/personal-knowledge/connect', { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^\/api\/auth\/idp\/login\?next=/);
  });

  it('lets the account page post to a configured git host: its origin is in the page\'s form-action', async () => {
    const host = await startGitHost();
    const remote = await serverFor(host);
    try {
      const p = await person(remote, 'remote@example.org');
      const csp = (await p.browser.request('/account')).headers.get('content-security-policy')!;
      expect(csp).toMatch(new RegExp(`form-action 'self' ${new URL(host.origin).origin.replace(/[.]/g, '\\.')}(;|$)`));
      const posted = await p.browser.request('/account/personal-knowledge/connect', { method: 'POST' });
      expect(posted.status).toBe(303);
      expect(posted.headers.get('location')!.startsWith(`${host.origin}/auth?`)).toBe(true);
    } finally {
      await remote.stop();
      await host.stop();
    }
  });
});
