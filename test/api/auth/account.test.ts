// Sessions, API keys, profiles and the permission checks every write relies on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor, sessionFor } from '../../helpers/auth.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ env: { ADMIN_EMAILS: 'boss@example.org', KEY_PREFIX: 'kb_' } });
});
afterAll(() => srv.stop());

const send = (p: string, init: RequestInit & { json?: unknown } = {}) =>
  srv.get(p, {
    ...init,
    headers: { ...(init.json !== undefined ? { 'Content-Type': 'application/json' } : {}), ...(init.headers as Record<string, string>) },
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  });

describe('/api/auth/me', () => {
  it('is {authenticated:false} without credentials and never shows e-mail', async () => {
    expect(await (await send('/api/auth/me')).json()).toEqual({ authenticated: false });
    const s = await sessionFor(srv, 'ana@example.org', 'Ana Novak');
    const me = await (await send('/api/auth/me', { headers: s.headers })).json();
    expect(me).toMatchObject({ authenticated: true, via: 'session', user: { id: s.userId, display_name: 'Ana Novak', role: 'user' } });
    expect(JSON.stringify(me)).not.toContain('ana@example.org');
    const key = await bearerFor(srv, s.userId);
    const viaKey = await (await send('/api/auth/me', { headers: key.headers })).json();
    expect(viaKey).toMatchObject({ authenticated: true, via: 'api_key', user: { id: s.userId } });
  });

  it('answers 401 for an unknown bearer token', async () => {
    const res = await send('/api/auth/me', { headers: { Authorization: 'Bearer kb_not-a-real-key' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('invalid_token');
    // …while anonymous reads still work with it.
    expect((await send('/api/videos?limit=1', { headers: { Authorization: 'Bearer kb_not-a-real-key' } })).status).toBe(200);
  });
});

describe('/api/account/me', () => {
  it('needs a session cookie and shows the full profile', async () => {
    const s = await sessionFor(srv, 'boss@example.org', 'The Boss');
    expect((await send('/api/account/me')).status).toBe(401);
    const key = await bearerFor(srv, s.userId);
    expect((await send('/api/account/me', { headers: key.headers })).status).toBe(401);
    const me = await (await send('/api/account/me', { headers: s.headers })).json();
    expect(me).toMatchObject({ id: s.userId, email: 'boss@example.org', role: 'admin' }); // ADMIN_EMAILS bootstrap
  });

  it('updates the profile, validates it, and refuses a taken handle', async () => {
    const a = await sessionFor(srv, 'mia@example.org', 'Mia');
    const b = await sessionFor(srv, 'tom@example.org', 'Tom');
    const ok = await send('/api/account/me', { method: 'PATCH', headers: a.headers, json: { display_name: 'Mia K.', bio: 'Ops', handle: 'mia_k' } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ display_name: 'Mia K.', bio: 'Ops', handle: 'mia_k' });
    const taken = await send('/api/account/me', { method: 'PATCH', headers: b.headers, json: { handle: 'mia_k' } });
    expect(taken.status).toBe(409);
    const bad = await send('/api/account/me', { method: 'PATCH', headers: b.headers, json: { handle: 'A!', role: 'admin' } });
    expect(bad.status).toBe(422);
    const detail = (await bad.json()).detail;
    expect(detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.handle', 'body.role']);
    expect((await send('/api/account/me', { method: 'PATCH', headers: b.headers, body: '{not json', })).status).toBe(422);
    const tom = await (await send('/api/account/me', { headers: b.headers })).json();
    expect(tom.role).toBe('user');
  });

  it('refuses a cookie-authenticated write from another origin (CSRF)', async () => {
    const s = await sessionFor(srv, 'csrf@example.org');
    const res = await send('/api/account/me', { method: 'PATCH', headers: { Cookie: s.cookie, Origin: 'https://evil.example' }, json: { bio: 'pwned' } });
    expect(res.status).toBe(403);
    const noOrigin = await send('/api/account/me', { method: 'PATCH', headers: { Cookie: s.cookie }, json: { bio: 'pwned' } });
    expect(noOrigin.status).toBe(403);
    expect((await (await send('/api/account/me', { headers: s.headers })).json()).bio).toBe('');
  });
});

describe('API keys', () => {
  it('shows the secret once, stores only its hash, authenticates with it, and revokes it', async () => {
    const s = await sessionFor(srv, 'keys@example.org');
    const created = await send('/api/account/api-keys', { method: 'POST', headers: s.headers, json: { name: 'laptop', expires_in_days: 30 } });
    expect(created.status).toBe(201);
    const body = await created.json();
    expect(body.key).toMatch(/^kb_[A-Za-z0-9_-]{40,}$/);
    expect(body).toMatchObject({ name: 'laptop', hint: `kb_…${body.key.slice(-4)}` });
    const list = await (await send('/api/account/api-keys', { headers: s.headers })).json();
    expect(list.map((k: { id: string }) => k.id)).toEqual([body.id]);
    expect(JSON.stringify(list)).not.toContain(body.key);
    // The database holds no clear secret.
    const dump = JSON.stringify(await srv.db.prepare('SELECT * FROM api_keys').all(), (_k, v) => (Buffer.isBuffer(v) || v?.type === 'Buffer' ? 'bytes' : v));
    expect(dump).not.toContain(body.key);
    const me = await (await send('/api/auth/me', { headers: { Authorization: `Bearer ${body.key}` } })).json();
    expect(me.user.id).toBe(s.userId);
    const del = await send(`/api/account/api-keys/${body.id}`, { method: 'DELETE', headers: s.headers });
    expect(del.status).toBe(204);
    expect((await send('/api/auth/me', { headers: { Authorization: `Bearer ${body.key}` } })).status).toBe(401);
    expect((await send(`/api/account/api-keys/${body.id}`, { method: 'DELETE', headers: s.headers })).status).toBe(404);
  });

  it('validates the request and keeps other people out of your keys', async () => {
    const a = await sessionFor(srv, 'owner@example.org');
    const b = await sessionFor(srv, 'other@example.org');
    expect((await send('/api/account/api-keys', { method: 'POST', headers: a.headers, json: { name: '' } })).status).toBe(422);
    expect((await send('/api/account/api-keys', { method: 'POST', headers: a.headers, json: { name: 'x', expires_in_days: 0 } })).status).toBe(422);
    expect((await send('/api/account/api-keys', { method: 'POST', json: { name: 'x' } })).status).toBe(401);
    const key = await (await send('/api/account/api-keys', { method: 'POST', headers: a.headers, json: { name: 'mine' } })).json();
    expect((await send(`/api/account/api-keys/${key.id}`, { method: 'DELETE', headers: b.headers })).status).toBe(404);
    expect((await (await send('/api/account/api-keys', { headers: b.headers })).json())).toEqual([]);
  });

  it('are managed from a browser session only: a one-hour sandbox key cannot mint, list or revoke keys, nor manage apps', async () => {
    const s = await sessionFor(srv, 'sandbox@example.org');
    const other = await (await send('/api/account/api-keys', { method: 'POST', headers: s.headers, json: { name: 'laptop' } })).json();
    // The GET-only sandbox path of the device flow: a key that lives one hour.
    const started = await (await send('/api/oauth/device?client_name=sandbox&client_host=box')).json();
    expect((await send('/api/device/approve', { method: 'POST', headers: s.headers, json: { user_code: started.user_code, action: 'approve' } })).status).toBe(200);
    const token = await (await send(`/api/oauth/token?grant_type=device_code&device_code=${started.device_code}`)).json();
    expect(token).toMatchObject({ access_token: expect.stringMatching(/^kb_/), expires_in: 3600 });
    const sandbox = { Authorization: `Bearer ${token.access_token}` };
    expect((await send('/api/auth/me', { headers: sandbox })).status).toBe(200); // the key works…

    // …but cannot turn itself into a key that never expires, see the person's keys, or revoke them.
    const mint = await send('/api/account/api-keys', { method: 'POST', headers: sandbox, json: { name: 'forever' } });
    expect(mint.status).toBe(403);
    expect((await mint.json()).detail).toMatch(/browser session/);
    expect((await send('/api/account/api-keys', { headers: sandbox })).status).toBe(403);
    expect((await send(`/api/account/api-keys/${other.id}`, { method: 'DELETE', headers: sandbox })).status).toBe(403);
    expect((await send('/api/account/oauth-clients', { headers: sandbox })).status).toBe(403);
    expect((await send('/api/account/oauth-clients/client_x', { method: 'DELETE', headers: sandbox })).status).toBe(403);
    const live = (await (await send('/api/account/api-keys', { headers: s.headers })).json()).map((k: { name: string }) => k.name).sort();
    expect(live).toEqual(['Device: sandbox on box', 'laptop']);
    // Anonymous callers still get 401, before any validation.
    expect((await send('/api/account/api-keys')).status).toBe(401);
    expect((await send('/api/account/api-keys', { method: 'POST', json: { name: 'x' } })).status).toBe(401);
    expect((await send('/api/account/oauth-clients')).status).toBe(401);
  });
});

describe('sessions and profiles', () => {
  it('signs out: the cookie stops working', async () => {
    const s = await sessionFor(srv, 'bye@example.org');
    const out = await send('/api/auth/logout', { method: 'POST', headers: s.headers });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/kb_session=;/);
    expect(await (await send('/api/auth/me', { headers: s.headers })).json()).toEqual({ authenticated: false });
  });

  it('shows public profiles without e-mail, 404 for unknown ids', async () => {
    const s = await sessionFor(srv, 'public@example.org', 'Pub Lic');
    const res = await send(`/api/users/${s.userId}`);
    const u = await res.json();
    expect(u).toMatchObject({ id: s.userId, display_name: 'Pub Lic' });
    expect(JSON.stringify(u)).not.toContain('@example.org');
    expect((await send('/api/users/usr_nobody')).status).toBe(404);
  });

  it('records sign-ins, key changes and profile updates in the audit log', async () => {
    const kinds = (await (await send('/api/audit?limit=200')).json()).items.map((e: { kind: string }) => e.kind);
    for (const k of ['user.create', 'auth.sign_in', 'auth.sign_out', 'api_key.create', 'api_key.revoke', 'account.update']) expect(kinds).toContain(k);
  });
});
