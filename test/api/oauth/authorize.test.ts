// The authorization endpoint: sign-in redirect, consent page, approval and denial, and every error the
// request can carry (pages: only the consent form's answer goes back to the client).
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { Browser, signInThroughIdp } from '../../helpers/browser.ts';
import { REDIRECT_URI, authorizeUrl, consent, discover, insecure, pkce, register, signedInBrowser, type RegisteredClient } from './helpers.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
let reg: RegisteredClient;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { ADMIN_EMAILS: 'root@example.org', MODERATOR_EMAILS: 'mod@example.org' } });
  as = await discover(srv);
  reg = await register(as, { client_name: 'Notes <Agent>' });
});
afterAll(() => srv.stop());

describe('without a session', () => {
  it('redirects to the identity-provider login with next = the original authorize URL, and comes back to consent', async () => {
    const p = await pkce();
    const url = authorizeUrl(as, reg.client, p, { scope: 'read write' });
    const anon = new Browser(srv.url);
    const res = await anon.request(url);
    expect(res.status).toBe(302);
    const login = new URL(res.headers.get('location')!, srv.url);
    expect(login.pathname).toBe('/api/auth/idp/login');
    const next = login.searchParams.get('next')!;
    expect(next).toBe(url.slice(srv.url.length));

    // The real sign-in through the embedded OpenID provider, then back here.
    const { browser, final } = await signInThroughIdp(srv.url, 'newcomer@example.org', 'New Comer', `?next=${encodeURIComponent(next)}`);
    expect(final.headers.get('location')).toBe(next);
    const back = await consent(browser, new URL(next, srv.url).href);
    const params = oauth.validateAuthResponse(as, reg.client, back, p.state);
    expect(params.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('the consent page', () => {
  it('names the client (escaped) and the scopes, is not frameable or cacheable, and carries a CSRF token', async () => {
    const { browser } = await signedInBrowser(srv, 'reader@example.org', 'Rea Der');
    const res = await browser.request(authorizeUrl(as, reg.client, await pkce(), { scope: 'read write' }));
    const html = await res.text();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    // Not no-referrer: browsers would then send Origin: null on the form's POST, which CSRF rules refuse.
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    // form-action governs the redirect after the POST too, so the client's origin is allowed.
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9");
    expect(html).toContain('Notes &#60;Agent&#62;');
    expect(html).not.toContain('<Agent>');
    expect(html).toContain('Rea Der');
    expect(html).toMatch(/<strong>read<\/strong>/);
    expect(html).toMatch(/<strong>write<\/strong>/);
    expect(html).toMatch(/name="csrf" value="\d+\.[A-Za-z0-9_-]{43}"/);
    expect(html).not.toMatch(/powers/);
  });

  it('warns about moderator and admin powers, and that a person without the role will not give them', async () => {
    const { browser } = await signedInBrowser(srv, 'plain@example.org');
    const html = await (await browser.request(authorizeUrl(as, reg.client, await pkce(), { scope: 'read moderate admin' }))).text();
    expect(html).toMatch(/asks for moderate and admin powers/);
    expect(html).toMatch(/You are not a moderator or an administrator, so the app will <strong>not<\/strong> get moderate or admin powers/);
    expect(html).not.toMatch(/<strong>admin<\/strong>:/); // not in the list of what it may do

    const { browser: mod } = await signedInBrowser(srv, 'mod@example.org');
    const modHtml = await (await mod.request(authorizeUrl(as, reg.client, await pkce(), { scope: 'read moderate admin' }))).text();
    expect(modHtml).toMatch(/asks for moderate and admin powers/);
    expect(modHtml).toMatch(/You are not an administrator, so the app will <strong>not<\/strong> get admin powers/);
    expect(modHtml).toMatch(/<strong>moderate<\/strong>:/);

    const { browser: root } = await signedInBrowser(srv, 'root@example.org');
    const rootHtml = await (await root.request(authorizeUrl(as, reg.client, await pkce(), { scope: 'admin' }))).text();
    expect(rootHtml).toMatch(/asks for admin powers/);
    expect(rootHtml).not.toMatch(/You are not/);
  });

  it('grants only what the person holds: powers are dropped for people without the role, read is always there', async () => {
    for (const [email, asked, granted] of [
      ['plain2@example.org', 'write admin', 'read write'],
      ['mod@example.org', 'moderate admin', 'read moderate'],
      ['root@example.org', 'admin', 'read admin'],
    ]) {
      const { browser } = await signedInBrowser(srv, email);
      const p = await pkce();
      const back = await consent(browser, authorizeUrl(as, reg.client, p, { scope: asked }));
      const params = oauth.validateAuthResponse(as, reg.client, back, p.state);
      const tokens = await oauth.processAuthorizationCodeResponse(as, reg.client, await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, p.verifier, insecure));
      expect(tokens.scope, email).toBe(granted);
    }
  });

  it('sends a denial back as access_denied with state and iss', async () => {
    const { browser } = await signedInBrowser(srv, 'denier@example.org');
    const p = await pkce();
    const back = await consent(browser, authorizeUrl(as, reg.client, p), 'deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe(p.state);
    expect(back.searchParams.get('iss')).toBe(srv.url);
    expect(back.searchParams.has('code')).toBe(false);
    expect(() => oauth.validateAuthResponse(as, reg.client, back, p.state)).toThrow(oauth.AuthorizationResponseError);
  });

  it('approves: a code with state and iss (RFC 9207), to the registered redirect_uri', async () => {
    const { browser } = await signedInBrowser(srv, 'approver@example.org');
    const p = await pkce();
    const back = await consent(browser, authorizeUrl(as, reg.client, p));
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe(p.state);
    expect(back.searchParams.get('iss')).toBe(srv.url);
    expect(oauth.validateAuthResponse(as, reg.client, back, p.state).get('code')).toBeTruthy();
  });
});

describe('the consent form is bound to its session and request (CSRF)', () => {
  async function form(email: string) {
    const { browser } = await signedInBrowser(srv, email);
    const p = await pkce();
    const url = authorizeUrl(as, reg.client, p);
    const html = await (await browser.request(url)).text();
    const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
    return { browser, fields, url };
  }
  const postForm = (browser: Browser, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    browser.request('/api/oauth/v2/authorize', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });

  it('refuses a cross-site post (Origin) and a form made for another session', async () => {
    const a = await form('csrf-a@example.org');
    const crossSite = await postForm(a.browser, { ...a.fields, decision: 'approve' }, { Origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const b = await form('csrf-b@example.org');
    const foreign = await postForm(b.browser, { ...a.fields, decision: 'approve' });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toMatch(/was not shown to this session/);
  });

  it('refuses a form whose request was altered (wider scope), or without a token', async () => {
    const a = await form('csrf-c@example.org');
    const widened = await postForm(a.browser, { ...a.fields, scope: 'read write', decision: 'approve' });
    expect(widened.status).toBe(403);
    const { csrf: _, ...noToken } = a.fields;
    expect((await postForm(a.browser, { ...noToken, decision: 'approve' })).status).toBe(403);
    // The untouched form still works.
    const ok = await postForm(a.browser, { ...a.fields, decision: 'approve' });
    expect(ok.status).toBe(303);
  });

  it('sends a person whose session ended to sign in again, and back to the same request', async () => {
    const a = await form('csrf-d@example.org');
    const anon = new Browser(srv.url);
    const res = await postForm(anon, { ...a.fields, decision: 'approve' });
    expect(res.status).toBe(302);
    const next = new URL(res.headers.get('location')!, srv.url).searchParams.get('next')!;
    expect(Object.fromEntries(new URL(next, srv.url).searchParams)).toEqual(Object.fromEntries(new URL(a.url).searchParams));
  });
});

describe('authorization request errors', () => {
  const signedIn = async () => (await signedInBrowser(srv, 'errors@example.org')).browser;

  it('shows a 400 page, never a redirect, for an unknown client or an unregistered redirect_uri', async () => {
    const p = await pkce();
    const cases = [
      authorizeUrl(as, { client_id: 'client_nope' }, p),
      authorizeUrl(as, reg.client, p, { client_id: '' }),
      authorizeUrl(as, reg.client, p, { redirect_uri: 'http://127.0.0.1:9/callback/other' }),
      authorizeUrl(as, reg.client, p, { redirect_uri: 'http://127.0.0.1:10/callback/other' }), // loopback: any port, not any path
      authorizeUrl(as, reg.client, p, { redirect_uri: 'http://localhost:9/callback' }),
      authorizeUrl(as, reg.client, p, { redirect_uri: 'https://evil.example/callback' }),
      `${authorizeUrl(as, reg.client, p)}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
    ];
    for (const url of cases) {
      for (const browser of [new Browser(srv.url), await signedIn()]) {
        const res = await browser.request(url);
        expect(res.status, url).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      }
    }
  });

  // RFC 9700 §4.11.2: before the person has seen the consent page nothing goes back to the client, or anyone
  // who registers a redirect URI could bounce visitors there with a failing request.
  it('shows the other errors as a 400 page too, with a plain link to the client, never a redirect', async () => {
    const p = await pkce();
    const cases: [Record<string, string>, string][] = [
      [{ code_challenge: '' }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: 'too-short' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ response_type: '' }, 'invalid_request'],
      [{ scope: 'read everything' }, 'invalid_scope'],
      [{ resource: 'https://other.example/mcp' }, 'invalid_target'],
      [{ resource: `${srv.url}/api` }, 'invalid_target'],
    ];
    for (const [extra, error] of cases) {
      for (const browser of [new Browser(srv.url), await signedIn()]) {
        const res = await browser.request(authorizeUrl(as, reg.client, p, extra));
        expect(res.status, JSON.stringify(extra)).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        const html = await res.text();
        expect(html, JSON.stringify(extra)).toContain(`<code>${error}</code>`);
        expect(html).toContain('<a href="http://127.0.0.1:9/" rel="noreferrer nofollow">');
      }
    }
    const repeated = await (await signedIn()).request(`${authorizeUrl(as, reg.client, p)}&scope=read&scope=write`);
    expect(repeated.status).toBe(400);
    expect(await repeated.text()).toContain('<code>invalid_request</code>');
  });

  it('defaults code_challenge_method to S256, resource to /mcp, and redirect_uri to the only registered one', async () => {
    const p = await pkce();
    const u = new URL(authorizeUrl(as, reg.client, p));
    u.searchParams.delete('code_challenge_method');
    u.searchParams.delete('redirect_uri');
    const res = await (await signedIn()).request(u.href);
    expect(res.status).toBe(200);
    const twoUris = await register(as, { redirect_uris: [REDIRECT_URI, 'http://127.0.0.1:9/other'] });
    const v = new URL(authorizeUrl(as, twoUris.client, p));
    v.searchParams.delete('redirect_uri');
    expect((await (await signedIn()).request(v.href)).status).toBe(400);
  });

  it('respects a scope the client registered, and uses it when none is asked', async () => {
    const readOnly = await register(as, { scope: 'read' });
    const p = await pkce();
    const res = await (await signedIn()).request(authorizeUrl(as, readOnly.client, p, { scope: 'read write' }));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('<code>invalid_scope</code>');
    const writer = await register(as, { scope: 'read write' });
    const html = await (await (await signedIn()).request(authorizeUrl(as, writer.client, p))).text();
    expect(html).toMatch(/<strong>write<\/strong>/);
  });
});
