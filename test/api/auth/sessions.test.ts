// Browser sessions a person can see and end (issue 39, item 15): the list with device and last use, ending
// one or all of them, SESSION_IDLE_HOURS, and a sign-out that ends the identity provider's session too, so
// the next sign-in asks again instead of signing the person straight back in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor } from '../../helpers/auth.ts';
import { signInThroughIdp } from '../../helpers/browser.ts';

const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { SESSION_IDLE_HOURS: '1' } });
});
afterAll(() => srv.stop());

/** A session of the person with this e-mail, opened from a browser with this User-Agent. */
async function open(email: string, userAgent?: string): Promise<{ userId: string; headers: Record<string, string> }> {
  const { user, sessionSecret } = await srv.identity.signIn({ issuer: 'https://idp.test', subject: `sub-${email}`, email, emailVerified: true }, { userAgent });
  return { userId: user.id, headers: { Cookie: `kb_session=${sessionSecret}`, Origin: srv.url } };
}

const signedIn = async (headers: Record<string, string>) => (await (await srv.get('/api/auth/me', { headers })).json()).authenticated as boolean;

interface SessionOut {
  id: string;
  device: string;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  current: boolean;
}
const list = async (headers: Record<string, string>): Promise<SessionOut[]> => {
  const res = await srv.get('/api/account/sessions', { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toMatch(/\bno-store\b/);
  return res.json();
};

describe('the account\'s sessions', () => {
  it('lists where the person is signed in (device, last seen, this one marked) and ends one at a time', async () => {
    const laptop = await open('many@example.org', CHROME_LINUX);
    const phone = await open('many@example.org', SAFARI_IPHONE);
    const unknown = await open('many@example.org');
    const someoneElse = await open('other@example.org', FIREFOX_WINDOWS);

    const sessions = await list(laptop.headers);
    expect(sessions).toHaveLength(3);
    expect(sessions.filter((s) => s.current).map((s) => s.device)).toEqual(['Chrome on Linux']);
    expect(sessions.map((s) => s.device).sort()).toEqual(['Chrome on Linux', 'Safari on iPhone', 'Unknown browser']);
    for (const s of sessions) {
      expect(s.id).toMatch(/^[0-9a-f]{16}$/);
      expect(Date.parse(s.last_seen_at)).toBeGreaterThanOrEqual(Date.parse(s.created_at));
      expect(Date.parse(s.expires_at)).toBeGreaterThan(Date.parse(s.last_seen_at));
    }
    expect(sessions.find((s) => s.device === 'Safari on iPhone')!.user_agent).toBe(SAFARI_IPHONE);
    const phoneId = sessions.find((s) => s.device === 'Safari on iPhone')!.id;
    const otherId = (await list(someoneElse.headers))[0].id;

    expect((await srv.get(`/api/account/sessions/${phoneId}`, { method: 'DELETE', headers: laptop.headers })).status).toBe(204);
    expect(await signedIn(phone.headers)).toBe(false);
    expect(await signedIn(laptop.headers)).toBe(true);
    expect((await list(laptop.headers)).map((s) => s.device).sort()).toEqual(['Chrome on Linux', 'Unknown browser']);
    // Gone, or someone else's: 404, and the other person stays signed in.
    expect((await srv.get(`/api/account/sessions/${phoneId}`, { method: 'DELETE', headers: laptop.headers })).status).toBe(404);
    expect((await srv.get(`/api/account/sessions/${otherId}`, { method: 'DELETE', headers: laptop.headers })).status).toBe(404);
    expect(await signedIn(someoneElse.headers)).toBe(true);

    // Ending this very session signs this browser out.
    const self = (await list(unknown.headers)).find((s) => s.current)!;
    const bye = await srv.get(`/api/account/sessions/${self.id}`, { method: 'DELETE', headers: unknown.headers });
    expect(bye.status).toBe(204);
    expect(bye.headers.getSetCookie().join()).toMatch(/kb_session=;/);
    expect(await signedIn(unknown.headers)).toBe(false);
  });

  it('is for a browser session: 401 anonymous, 403 for an API key', async () => {
    const s = await open('keyed-sessions@example.org', CHROME_LINUX);
    const key = await bearerFor(srv, s.userId);
    const id = (await list(s.headers))[0].id;
    expect((await srv.get('/api/account/sessions')).status).toBe(401);
    expect((await srv.get(`/api/account/sessions/${id}`, { method: 'DELETE' })).status).toBe(401);
    expect((await srv.get('/api/account/sessions', { headers: key.headers })).status).toBe(403);
    expect((await srv.get(`/api/account/sessions/${id}`, { method: 'DELETE', headers: key.headers })).status).toBe(403);
    expect(await signedIn(s.headers)).toBe(true);
  });

  it('signs out everywhere: every session of the person ends, each with an audit event, and no one else\'s', async () => {
    const a = await open('everywhere@example.org', CHROME_LINUX);
    const b = await open('everywhere@example.org', SAFARI_IPHONE);
    const c = await open('everywhere@example.org', FIREFOX_WINDOWS);
    const bystander = await open('bystander@example.org', CHROME_LINUX);
    const signOuts = async () => (await (await srv.get('/api/audit?kind=auth.sign_out&limit=200')).json()).items.length as number;
    const before = await signOuts();
    const out = await srv.get('/api/auth/logout?everywhere=true', { method: 'POST', headers: a.headers });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().join()).toMatch(/kb_session=;/);
    for (const s of [a, b, c]) expect(await signedIn(s.headers)).toBe(false);
    expect(await signedIn(bystander.headers)).toBe(true);
    expect(await signOuts()).toBe(before + 3);
    expect((await srv.get('/api/auth/logout?everywhere=maybe', { method: 'POST' })).status).toBe(422);
  });

  it('ends a session unused for SESSION_IDLE_HOURS, however long its lifetime; using one keeps it open', async () => {
    const idle = await open('idle@example.org', CHROME_LINUX);
    const busy = await open('busy@example.org', CHROME_LINUX);
    const backdate = async (userId: string, minutes: number) => {
      const t = new Date(Date.now() - minutes * 60_000).toISOString();
      await srv.db.prepare('UPDATE sessions SET last_seen_at = ? WHERE user_id = ?').run(t, userId);
      return t;
    };
    await backdate(idle.userId, 61); // SESSION_IDLE_HOURS=1
    const seenBefore = await backdate(busy.userId, 50);
    expect(await signedIn(idle.headers)).toBe(false);
    expect((await srv.get('/api/account/sessions', { headers: idle.headers })).status).toBe(401);
    expect(await signedIn(busy.headers)).toBe(true);
    // The use moved last_seen_at on: 50 more minutes of quiet do not end it.
    const seen = await srv.db.prepare('SELECT last_seen_at FROM sessions WHERE user_id = ?').pluck().get(busy.userId) as string;
    expect(seen > seenBefore).toBe(true);
    expect((await list(busy.headers))[0].last_seen_at).toBe(seen);
  });
});

describe('signing out', () => {
  it('ends the identity provider\'s session too: the next sign-in asks for an e-mail again', async () => {
    const { browser } = await signInThroughIdp(srv.url, 'again@example.org', 'Again');
    const toSite = /^(?!.*\/(idp|api\/auth\/idp)\/)/;
    // While the provider's session lasts, a sign-in passes without a question (single sign-on).
    const silent = await browser.follow('/api/auth/idp/login?next=/api/auth/me', {}, toSite);
    expect(silent.status).toBe(302);
    expect(silent.headers.get('location')).toBe('/api/auth/me');

    const heldTokens = async () =>
      await srv.db.prepare("SELECT COUNT(*) FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'again@example.org' AND s.id_token IS NOT NULL").pluck().get() as number;
    expect(await heldTokens()).toBe(2);
    const out = await browser.request('/signout', { method: 'POST' });
    expect(out.status).toBe(303);
    // The ID token (e-mail and name) is kept only while the session is open.
    expect(await heldTokens()).toBe(1);
    expect(out.headers.getSetCookie().join()).toMatch(/kb_session=;/);
    const end = new URL(out.headers.get('location')!, srv.url);
    expect(`${end.origin}${end.pathname}`).toBe(`${srv.url}/idp/session/end`);
    expect(end.searchParams.get('id_token_hint')).toMatch(/^ey/);
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${srv.url}/`);
    const confirm = await browser.follow(end.href);
    expect(confirm.status).toBe(200);
    const back = await browser.submit(await confirm.text(), end.href, /\/idp\/session\/end\/confirm$/, {}, /^http:\/\/[^/]+\/$/);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`${srv.url}/`);
    expect(await (await browser.request('/api/auth/me')).json()).toEqual({ authenticated: false });

    const again = await browser.follow('/api/auth/idp/login?next=/api/auth/me', {}, toSite);
    expect(again.status).toBe(200);
    expect(await again.text()).toMatch(/name="email"/);
  });

  it('tells API callers where the provider\'s sign-out is (end_session_url), or null without a session', async () => {
    expect(await (await srv.get('/api/auth/logout', { method: 'POST' })).json()).toEqual({ ok: true, end_session_url: null });
    const s = await open('api-logout@example.org', CHROME_LINUX);
    const body = await (await srv.get('/api/auth/logout', { method: 'POST', headers: s.headers })).json();
    const url = new URL(body.end_session_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${srv.url}/idp/session/end`);
    // This session was not opened by the embedded provider: no ID token to hint with, so its client_id.
    expect(url.searchParams.get('client_id')).toBe('kb-web');
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe(`${srv.url}/`);
  });
});
