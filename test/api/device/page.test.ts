// The approval page for people at /device, driven like a browser: a person opens the link the device
// shows, signs in through the real identity-provider flow (embedded OpenID provider), lands back on the
// page, and approves or denies with its form; the device then gets its key, or access_denied.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';
import { Browser, signInThroughIdp } from '../../helpers/browser.ts';
import { deviceClient } from './helpers.ts';

let srv: TestServer;
let dev: ReturnType<typeof deviceClient>;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { DEVICE_POLL_INTERVAL_SECONDS: '1' } });
  dev = deviceClient(srv);
});
afterAll(() => srv.stop());

const pageOf = async (res: Response) => {
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  return res.text();
};

describe('/device', () => {
  it('without a code: a labelled form to type it, in a page that cannot be framed', async () => {
    const res = await srv.get('/device');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await pageOf(res);
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain('<main>');
    expect(html).toMatch(/<label for="user_code">[^<]+<\/label>/);
    expect(html).toMatch(/<form method="get" action="\/device">/);
    expect(html).not.toMatch(/<script/i);
  });

  it('says so for an unknown code (404), a decided one (410) and one that is too long (422)', async () => {
    const unknown = await srv.get('/device?user_code=QQQQ-QQQQ');
    expect(unknown.status).toBe(404);
    expect(await pageOf(unknown)).toMatch(/role="alert">No sign-in request has this code/);
    const started = await dev.start('post');
    await dev.decide(started.user_code, 'deny', (await sessionFor(srv, 'early@example.org')).headers);
    const gone = await srv.get(`/device?user_code=${started.user_code}`);
    expect(gone.status).toBe(410);
    expect(await pageOf(gone)).toMatch(/expired or was already approved or denied/);
    expect((await srv.get(`/device?user_code=${'B'.repeat(25)}`)).status).toBe(422);
  });

  it('signed out: shows what asks for access (escaped) and a sign-in link that comes back to the code', async () => {
    const started = await dev.start('post', { client_name: '<script>alert(1)</script>', client_host: 'host "quoted" & <b>' });
    const html = await pageOf(await srv.get(`/device?user_code=${started.user_code.toLowerCase()}`));
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('host &quot;quoted&quot; &amp; &lt;b&gt;');
    expect(html).not.toContain('<script>');
    expect(html).toContain(started.user_code);
    const href = /<a href="([^"]+)">Sign in to continue<\/a>/.exec(html)![1].replace(/&amp;/g, '&');
    const link = new URL(href, srv.url);
    expect(link.pathname).toBe('/api/auth/idp/login');
    expect(link.searchParams.get('next')).toBe(`/device?user_code=${started.user_code}`);
    expect(link.searchParams.get('next_user_code')).toBe(started.user_code);
    expect(html).not.toMatch(/value="approve"/);
  });

  it('end to end: sign in through the identity provider, approve on the page, the device gets the key', async () => {
    const started = await dev.start('post', { client_name: 'agent-login.sh', client_host: 'eva-laptop' });
    const html = await pageOf(await srv.get(new URL(started.verification_uri_complete).pathname + new URL(started.verification_uri_complete).search));
    const href = /<a href="([^"]+)">Sign in to continue<\/a>/.exec(html)![1].replace(/&amp;/g, '&');
    const { browser, final } = await signInThroughIdp(srv.url, 'eva@example.org', 'Eva Horvat', href.slice('/api/auth/idp/login'.length));
    expect(final.headers.get('location')).toBe(`/device?user_code=${started.user_code}`);

    const pageUrl = new URL(final.headers.get('location')!, srv.url).href;
    const approval = await browser.request(pageUrl);
    expect(approval.status).toBe(200);
    const form = await pageOf(approval);
    expect(form).toContain('Eva Horvat');
    expect(form).toContain('eva-laptop');
    expect(form).toMatch(/90 days/);
    expect(form).toMatch(/<button type="submit" name="action" value="approve">Approve<\/button>/);
    expect(form).toMatch(/<button type="submit" name="action" value="deny">Deny<\/button>/);

    const pending = await dev.poll('post', started.device_code);
    expect((await pending.json()).error).toBe('authorization_pending');
    const outcome = await browser.submit(form, pageUrl, /^\/device$/, { action: 'approve' });
    expect(outcome.status).toBe(200);
    expect(await pageOf(outcome)).toMatch(/role="status">You approved <strong>agent-login\.sh<\/strong>/);

    const token = await (await dev.poll('post', started.device_code)).json();
    expect(token.user_email).toBe('eva@example.org');
    const me = await (await srv.get('/api/auth/me', { headers: { Authorization: `Bearer ${token.access_token}` } })).json();
    const mine = await (await browser.request('/api/auth/me')).json();
    expect(me.user.id).toBe(mine.user.id);

    // Deciding again on the page: the request is no longer open.
    const again = await browser.submit(form, pageUrl, /^\/device$/, { action: 'deny' });
    expect(again.status).toBe(410);
  });

  it('deny on the page → the device hears access_denied; a sandbox request says its key lives one hour', async () => {
    const started = await dev.start('get', { client_name: 'sandbox-agent', client_host: 'cloud' });
    const browser = new Browser(srv.url);
    const person = await sessionFor(srv, 'denier@example.org', 'Dee');
    browser.cookies.set('kb_session', person.cookie.split('=')[1]);
    const pageUrl = `${srv.url}/device?user_code=${started.user_code}`;
    const form = await pageOf(await browser.request(pageUrl));
    expect(form).toMatch(/1 hour/);
    expect(form).not.toMatch(/e-mail/);
    const outcome = await browser.submit(form, pageUrl, /^\/device$/, { action: 'deny' });
    expect(outcome.status).toBe(200);
    expect(await pageOf(outcome)).toMatch(/You denied/);
    expect(await (await dev.poll('get', started.device_code)).json()).toMatchObject({ error: 'access_denied' });
  });

  it('the form post needs a session (401 page) and our own origin (403)', async () => {
    const started = await dev.start('post');
    const body = new URLSearchParams({ user_code: started.user_code, action: 'approve' }).toString();
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const anon = await srv.get('/device', { method: 'POST', headers: { ...form, Origin: srv.url }, body });
    expect(anon.status).toBe(401);
    expect(await pageOf(anon)).toContain('Sign in to continue');
    const person = await sessionFor(srv, 'victim@example.org');
    const forged = await srv.get('/device', { method: 'POST', headers: { ...form, Cookie: person.cookie, Origin: 'https://evil.example' }, body });
    expect(forged.status).toBe(403);
    const bad = await srv.get('/device', { method: 'POST', headers: { ...form, ...person.headers }, body: 'user_code=x&action=yes' });
    expect(bad.status).toBe(422);
    expect((await dev.lookup(started.user_code)).status).toBe(200); // still pending
  });
});
