// RFC 9700 §4.11.2 (issue 15, item 6): registration is open, so anyone can register
// redirect_uri=https://evil.example/cb and hand out a failing authorization request. Before the person has
// seen the consent page, such a request must show an error page (a plain link to the client is fine), not
// 302 the visitor to that site, whether or not they are signed in; the consent form's answer, which only
// a session shown the page can give, is the one thing that goes back to the client.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { Browser } from '../../helpers/browser.ts';
import { discover, insecure, pkce, signedInBrowser } from './helpers.ts';

const EVIL = 'https://evil.example/cb';

let srv: TestServer;
let as: oauth.AuthorizationServer;
let clientId: string;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true });
  as = await discover(srv);
  const res = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [EVIL], token_endpoint_auth_method: 'none', client_name: 'Totally Legit' }, insecure);
  clientId = ((await res.json()) as { client_id: string }).client_id;
});
afterAll(() => srv.stop());

async function url(extra: Record<string, string>): Promise<string> {
  const p = await pkce();
  const u = new URL(as.authorization_endpoint!);
  u.search = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: EVIL, code_challenge: p.challenge, code_challenge_method: 'S256', state: 's', ...extra }).toString();
  return u.href;
}

const visitors = async () => [
  ['anonymous', new Browser(srv.url)],
  ['signed in', (await signedInBrowser(srv, 'visitor@example.org')).browser],
] as const;

describe('a failing authorization request of a client registered by anyone', () => {
  it('shows an error page instead of redirecting to the registered site (the issue\'s scope=bogus link)', async () => {
    for (const [who, browser] of await visitors()) {
      const res = await browser.request(await url({ scope: 'bogus' }));
      expect(res.status, who).toBe(400);
      expect(res.headers.get('location'), who).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      // Private as well for the person signed in: the page answers their session.
      expect(res.headers.get('cache-control'), who).toBe(who === 'anonymous' ? 'no-store' : 'private, no-store');
      const html = await res.text();
      expect(html).toContain('<code>invalid_scope</code>');
      // A plain link the person may follow, without the error parameters a redirect would have carried.
      expect(html).toContain('<a href="https://evil.example/" rel="noreferrer nofollow">https://evil.example</a>');
      expect(html).not.toContain('evil.example/cb');
    }
  });

  it('does the same for every other error of the request', async () => {
    const cases: Record<string, string>[] = [{ response_type: 'token' }, { code_challenge: '' }, { code_challenge_method: 'plain' }, { resource: 'https://evil.example/mcp' }];
    for (const extra of cases) {
      for (const [who, browser] of await visitors()) {
        const res = await browser.request(await url(extra));
        expect(res.status, `${who} ${JSON.stringify(extra)}`).toBe(400);
        expect(res.headers.get('location')).toBeNull();
      }
    }
  });

  it('is not redirected by a forged consent answer either (no form token, or no session)', async () => {
    const fields = Object.fromEntries(new URL(await url({ scope: 'bogus' })).searchParams);
    const post = (browser: Browser) =>
      browser.request('/api/oauth/v2/authorize', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...fields, decision: 'approve' }).toString(),
      });
    const signedIn = await post((await signedInBrowser(srv, 'visitor2@example.org')).browser);
    expect(signedIn.status).toBe(403);
    expect(signedIn.headers.get('location')).toBeNull();
    const anonymous = await post(new Browser(srv.url));
    expect(anonymous.status).toBe(302);
    expect(new URL(anonymous.headers.get('location')!, srv.url).origin).toBe(srv.url);
  });

  it('still redirects once the person has seen the client: a valid request shows the consent page, and Deny goes back', async () => {
    const { browser } = await signedInBrowser(srv, 'decider@example.org');
    const consentUrl = await url({ scope: 'read' });
    const page = await browser.request(consentUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Totally Legit');
    expect(html).toContain('<code>https://evil.example</code>');
    const back = await browser.submit(html, consentUrl, /\/api\/oauth\/v2\/authorize$/, { decision: 'deny' }, /^https:\/\/evil\.example\//);
    expect(back.status).toBe(303);
    const location = new URL(back.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(EVIL);
    expect(location.searchParams.get('error')).toBe('access_denied');
  });
});
