// Browser sign-in end to end: openid-client against the embedded oidc-provider, following every redirect
// and submitting the provider's form, as a browser would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { Browser, signInThroughIdp } from '../../helpers/browser.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true });
});
afterAll(() => srv.stop());

describe('browser sign-in through the embedded OpenID provider', () => {
  it('shows an e-mail form without a password, then signs in with an HttpOnly SameSite=Lax session', async () => {
    const browser = new Browser(srv.url);
    const start = await browser.request('/api/auth/idp/login?next=/api/auth/me');
    expect(start.status).toBe(302);
    const auth = new URL(start.headers.get('location')!);
    expect(auth.href.startsWith(`${srv.url}/idp/auth?`)).toBe(true);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('state')).toBeTruthy();
    const page = await browser.follow(auth.href);
    const html = await page.text();
    expect(html).toMatch(/<input[^>]+name="email"[^>]+type="email"|type="email"[^>]+name="email"/);
    expect(html).not.toMatch(/type="password"/);

    const done = await browser.submit(html, browser.visited.at(-1)!, /\/login$/, { email: 'Eva@Example.org', name: 'Eva Horvat' }, /\/api\/auth\/me$/);
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe('/api/auth/me');
    const cookie = done.headers.getSetCookie().find((c) => c.startsWith('kb_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    const me = await (await browser.request('/api/auth/me')).json();
    expect(me).toMatchObject({ authenticated: true, via: 'session', user: { display_name: 'Eva Horvat' } });
    const account = await (await browser.request('/api/account/me')).json();
    expect(account.email).toBe('eva@example.org');
  });

  it('finds the same person on the next sign-in', async () => {
    const a = await signInThroughIdp(srv.url, 'same@example.org', 'Same');
    const b = await signInThroughIdp(srv.url, 'same@example.org');
    const idA = (await (await a.browser.request('/api/auth/me')).json()).user.id;
    const idB = (await (await b.browser.request('/api/auth/me')).json()).user.id;
    expect(idA).toBe(idB);
  });

  it('keeps next and next_user_code through the round trip, and only to this site', async () => {
    const back = await signInThroughIdp(srv.url, 'next@example.org', '', '?next=%2Fapi%2Fvideos%3Flimit%3D2');
    expect(back.final.headers.get('location')).toBe('/api/videos?limit=2');
    const device = await signInThroughIdp(srv.url, 'next@example.org', '', '?next_user_code=BCDF-GHJK');
    expect(device.final.headers.get('location')).toBe('/device?user_code=BCDF-GHJK');
    for (const evil of ['https://evil.example/steal', '//evil.example/x', 'javascript:alert(1)']) {
      const r = await signInThroughIdp(srv.url, 'next@example.org', '', `?next=${encodeURIComponent(evil)}`);
      expect(r.final.headers.get('location')).toBe('/');
    }
  });

  it('never sends the browser to another site after sign-in, whatever `next` hides behind dot segments, slashes or whitespace', async () => {
    // Issue 39, item 2: `/.//evil.example/phish` normalised to `//evil.example/phish`, a Location browsers
    // follow to evil.example.
    const bypasses = [
      '/.//evil.example/phish', '/a/..//evil.example/phish', '/%2e%2e//evil.example/phish', '/%2E%2E//evil.example/phish',
      '/.%2e//evil.example/phish', '/x/../../..//evil.example/phish', '/./\\evil.example/phish', '/.\t//evil.example/phish',
      '//evil.example/phish', '/\\evil.example/phish', '\\\\evil.example/phish', '\\/evil.example/phish', '/\t/evil.example/phish',
      '/\n/evil.example/phish', '/\r\n/evil.example/phish', '\t//evil.example/phish', ' //evil.example/phish', '$ORIGIN//evil.example/phish',
      '$ORIGIN/.//evil.example/phish', '/%2f%2fevil.example/phish', '/%2F/evil.example/phish', '/%5c%5cevil.example/phish', '/%5C/evil.example/phish',
      '/%09/evil.example/phish', 'https:evil.example/phish', 'http:\\\\evil.example/phish',
    ];
    // Its own server: these sign-ins would use up the address's sign-in allowance of the file's.
    const own = await startTestServer({ ownOrigin: true, env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    try {
      for (const raw of bypasses) {
        const next = raw.replace('$ORIGIN', own.url);
        const { final } = await signInThroughIdp(own.url, 'bypass@example.org', '', `?next=${encodeURIComponent(next)}`);
        const location = final.headers.get('location')!;
        expect(final.status, next).toBe(302);
        expect(location, next).toMatch(/^\/(?![/\\])/);
        expect(new URL(location, `${own.url}/api/auth/idp/callback`).origin, next).toBe(own.url);
        // What normalises to `//host` falls back to the home page; encoded slashes stay an encoded path here.
        if (!/%2f|%5c|%09/i.test(next)) expect(location, next).toBe('/');
      }
    } finally {
      await own.stop();
    }
  });

  it('takes a `next` of at most 1024 characters as stored (a same-origin path), and purges expired sign-ins', async () => {
    const flows = async () => await srv.db.prepare('SELECT COUNT(*) FROM login_flows').pluck().get() as number;
    const before = await flows();
    expect((await srv.get(`/api/auth/idp/login?next=/${'a'.repeat(1024)}`, { redirect: 'manual' })).status).toBe(422);
    // Percent-encoding happens before the length counts: 300 characters are 1,800 once normalised.
    expect((await srv.get(`/api/auth/idp/login?next=/${encodeURIComponent('é'.repeat(300))}`, { redirect: 'manual' })).status).toBe(422);
    expect(await flows()).toBe(before);
    await srv.db
      .prepare('INSERT INTO login_flows (state_hash, code_verifier, nonce, next, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(Buffer.alloc(32, 7), 'v', 'n', '/stale', '2020-01-01T00:00:00.000Z', '2020-01-01T00:10:00.000Z');
    const ok = await srv.get(`/api/auth/idp/login?next=/${'a'.repeat(1000)}`, { redirect: 'manual' });
    expect(ok.status).toBe(302);
    expect(await srv.db.prepare('SELECT COUNT(*) FROM login_flows WHERE next = ?').pluck().get(`/${'a'.repeat(1000)}`)).toBe(1);
    expect(await srv.db.prepare("SELECT COUNT(*) FROM login_flows WHERE next = '/stale'").pluck().get()).toBe(0);
  });

  it('limits sign-in starts per client address: 429 with Retry-After, and nothing stored', async () => {
    const limited = await startTestServer({ ownOrigin: true, env: { LOGIN_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      for (let i = 0; i < 3; i++) expect((await limited.get('/api/auth/idp/login', { redirect: 'manual' })).status).toBe(302);
      const over = await limited.get(`/api/auth/idp/login?next=/${'a'.repeat(500)}`, { redirect: 'manual' });
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await limited.db.prepare('SELECT COUNT(*) FROM login_flows').pluck().get()).toBe(3);
    } finally {
      await limited.stop();
    }
  });

  it('refuses a replayed callback and a callback from another browser', async () => {
    const browser = new Browser(srv.url);
    const page = await browser.follow('/api/auth/idp/login');
    const callback = await browser.submit(await page.text(), browser.visited.at(-1)!, /\/login$/, { email: 'replay@example.org' }, /\/api\/auth\/idp\/callback/);
    const callbackUrl = new URL(callback.headers.get('location')!, srv.url).href;
    const stranger = new Browser(srv.url);
    const other = await stranger.request(callbackUrl);
    expect(other.status).toBe(400); // the flow is consumed by this attempt, and the cookie is missing
    expect((await other.json()).detail).toMatch(/another browser|expired or was already used/);
    const replay = await browser.request(callbackUrl);
    expect(replay.status).toBe(400);
    expect((await replay.json()).detail).toMatch(/expired or was already used/);
    expect(browser.cookies.has('kb_session')).toBe(false);
  });

  it('reports a cancelled sign-in, and re-asks for a malformed e-mail', async () => {
    const browser = new Browser(srv.url);
    const page = await browser.follow('/api/auth/idp/login');
    const html = await page.text();
    const bad = await browser.submit(html, browser.visited.at(-1)!, /\/login$/, { email: 'not-an-email' });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toMatch(/valid e-mail/);
    const cancelled = await browser.submit(html, browser.visited.at(-1)!, /\/abort$/, {});
    expect(cancelled.status).toBe(400);
    expect((await cancelled.json()).detail).toMatch(/Sign-in failed: .*cancelled/);
    expect(browser.cookies.has('kb_session')).toBe(false);
  });

  it('reports dev mode in /api/config and serves the provider discovery document', async () => {
    expect((await (await srv.get('/api/config')).json()).dev_mode).toBe(true);
    const disco = await (await srv.get('/idp/.well-known/openid-configuration')).json();
    expect(disco.issuer).toBe(`${srv.url}/idp`);
    expect(disco.code_challenge_methods_supported).toContain('S256');
  });
});
