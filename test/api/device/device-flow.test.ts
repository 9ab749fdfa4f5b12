// The device flow over HTTP against the real server, in its standard POST form and in the GET aliases
// of sandboxes, to each terminal state: approved (the key works), denied, expired, consumed; and the
// polling rules (authorization_pending, slow_down), validation, and secrets at rest.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor, sessionFor } from '../../helpers/auth.ts';
import { FORMS, deviceClient, dumpTable } from './helpers.ts';

const BASE = 'http://kb.test';
const CODE = /^[BCDFGHJKMNPQRSTVWXZ]{4}-[BCDFGHJKMNPQRSTVWXZ]{4}$/;

let srv: TestServer;
let dev: ReturnType<typeof deviceClient>;
beforeAll(async () => {
  srv = await startTestServer({ env: { DEVICE_POLL_INTERVAL_SECONDS: '1' } });
  dev = deviceClient(srv);
});
afterAll(() => srv.stop());

const auditKinds = async (subjectType: string) =>
  await srv.db.prepare('SELECT kind FROM audit_events WHERE subject_type = ? ORDER BY seq').pluck().all(subjectType) as string[];

describe('starting a device sign-in', () => {
  it.each(FORMS)('%s: answers the RFC 8628 fields with a readable code and the approval page', async (form) => {
    const res =
      form === 'post'
        ? await dev.send('/api/oauth/device', { method: 'POST', json: { client_name: 'agent', client_host: 'box' } })
        : await dev.send('/api/oauth/device?client_name=agent&client_host=box');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['device_code', 'expires_in', 'interval', 'user_code', 'verification_uri', 'verification_uri_complete']);
    expect(body.user_code).toMatch(CODE);
    expect(body.device_code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body).toMatchObject({
      verification_uri: `${BASE}/device`,
      verification_uri_complete: `${BASE}/device?user_code=${body.user_code}`,
      expires_in: 600,
      interval: 1,
    });
  });

  it('gives every request its own codes', async () => {
    const a = await dev.start('post');
    const b = await dev.start('post');
    expect(a.user_code).not.toBe(b.user_code);
    expect(a.device_code).not.toBe(b.device_code);
  });

  it('validates DeviceAuthRequest: required, lengths, printable text (422)', async () => {
    const bad = async (json: unknown) => {
      const res = await dev.send('/api/oauth/device', { method: 'POST', json });
      expect(res.status, JSON.stringify(json)).toBe(422);
      return [...new Set((await res.json()).detail.map((d: { loc: string[] }) => d.loc.join('.')))];
    };
    expect(await bad({})).toEqual(['body.client_name', 'body.client_host']);
    expect(await bad({ client_name: 'x'.repeat(101), client_host: 'box' })).toEqual(['body.client_name']);
    expect(await bad({ client_name: 'agent', client_host: 'h'.repeat(256) })).toEqual(['body.client_host']);
    expect(await bad({ client_name: 'evil\u202Eexe.txt', client_host: 'box' })).toEqual(['body.client_name']); // bidi override
    expect(await bad({ client_name: 'two\nlines', client_host: 'box' })).toEqual(['body.client_name']);
    expect(await bad({ client_name: '   ', client_host: 'box' })).toEqual(['body.client_name']);
    expect(await bad({ client_name: 42, client_host: 'box' })).toEqual(['body.client_name']);
    const notJson = await dev.send('/api/oauth/device', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{oops' });
    expect(notJson.status).toBe(422);
    const get = await dev.send(`/api/oauth/device?client_name=${'x'.repeat(101)}`);
    expect(get.status).toBe(422);
    expect((await get.json()).detail[0].loc).toEqual(['query', 'client_name']);
  });

  it('GET: client_name and client_host are optional', async () => {
    const started = await dev.start('get', { client_name: '', client_host: '' });
    const seen = await (await dev.lookup(started.user_code)).json();
    expect(seen).toMatchObject({ client_name: 'Unnamed client', client_host: 'unknown host', sandbox: true, key_expires_in: 3600 });
  });
});

describe('approved: the device receives one API key owned by the approver', () => {
  it('POST: a 90-day key with the prefix and the approver\'s e-mail; it works; a second poll mints nothing', async () => {
    const owner = await sessionFor(srv, 'approver@example.org', 'Approver');
    const started = await dev.start('post', { client_name: 'laptop-agent', client_host: 'ana-laptop' });
    expect((await (await dev.poll('post', started.device_code)).json()).error).toBe('authorization_pending');
    const decided = await dev.decide(started.user_code, 'approve', owner.headers);
    expect(decided.status).toBe(200);
    expect(await decided.json()).toMatchObject({ user_code: started.user_code, status: 'approved', client_name: 'laptop-agent', client_host: 'ana-laptop' });

    const res = await dev.poll('post', started.device_code);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const token = await res.json();
    expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 90 * 86_400, user_email: 'approver@example.org' });
    expect(token.access_token).toMatch(/^kb_[A-Za-z0-9_-]{40,}$/);

    const me = await (await dev.send('/api/auth/me', { headers: { Authorization: `Bearer ${token.access_token}` } })).json();
    expect(me).toMatchObject({ authenticated: true, via: 'api_key', user: { id: owner.userId } });
    expect(JSON.stringify(me)).not.toContain('approver@example.org');
    const keys = await (await dev.send('/api/account/api-keys', { headers: owner.headers })).json();
    expect(keys).toEqual([expect.objectContaining({ id: token.key_id, source: 'device', name: 'Device: laptop-agent on ana-laptop' })]);
    const expiresAt = Date.parse(keys[0].expires_at);
    expect(Math.abs(expiresAt - (Date.now() + 90 * 86_400_000))).toBeLessThan(60_000);

    // Consumed: the same device_code again is refused, and no second key exists.
    for (const form of FORMS) {
      const again = await dev.poll(form, started.device_code);
      expect(again.status).toBe(400);
      expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
    }
    expect((await (await dev.send('/api/account/api-keys', { headers: owner.headers })).json())).toHaveLength(1);
    // …and the first key still works (a repeated GET from a proxy must not lock the agent out).
    expect((await dev.send('/api/auth/me', { headers: { Authorization: `Bearer ${token.access_token}` } })).status).toBe(200);
    expect((await dev.lookup(started.user_code)).status).toBe(410);
  });

  it('GET: the sandbox path gives a one-hour key and no e-mail; the short grant_type works too', async () => {
    const owner = await sessionFor(srv, 'sandbox-owner@example.org');
    const started = await dev.start('get');
    const pending = await dev.poll('get', started.device_code, 'device_code');
    expect(pending.status).toBe(400);
    expect(await pending.json()).toMatchObject({ error: 'authorization_pending' });
    expect((await dev.decide(started.user_code, 'approve', owner.headers)).status).toBe(200);
    const res = await dev.poll('get', started.device_code, 'device_code');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const token = await res.json();
    expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(token).not.toHaveProperty('user_email');
    const me = await (await dev.send('/api/auth/me', { headers: { Authorization: `Bearer ${token.access_token}` } })).json();
    expect(me.user.id).toBe(owner.userId);
    const row = await srv.db.prepare('SELECT expires_at, source FROM api_keys WHERE id = ?').get(token.key_id) as { expires_at: string; source: string };
    expect(row.source).toBe('device');
    expect(Math.abs(Date.parse(row.expires_at) - (Date.now() + 3_600_000))).toBeLessThan(60_000);
    const again = await dev.poll('get', started.device_code, 'device_code');
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a request started by POST but redeemed through the GET alias also gets the one-hour key', async () => {
    const owner = await sessionFor(srv, 'mixed@example.org');
    const started = await dev.start('post');
    await dev.decide(started.user_code, 'approve', owner.headers);
    const token = await (await dev.poll('get', started.device_code, 'urn:ietf:params:oauth:grant-type:device_code')).json();
    expect(token.expires_in).toBe(3600);
    expect(token).not.toHaveProperty('user_email');
  });

  it('records request, approval, key and token in the audit log, without client names or codes', async () => {
    const kinds = await auditKinds('device_request');
    expect(kinds).toEqual(expect.arrayContaining(['device.request', 'device.approve', 'device.token']));
    expect(await auditKinds('api_key')).toContain('api_key.create');
    const events = JSON.stringify(await srv.db.prepare("SELECT * FROM audit_events WHERE subject_type = 'device_request'").all());
    expect(events).not.toContain('laptop-agent');
    expect(events).not.toContain('ana-laptop');
  });
});

describe.each(FORMS)('%s form: the other terminal and waiting states', (form) => {
  it('denied → access_denied, and no key', async () => {
    const person = await sessionFor(srv, `denier-${form}@example.org`);
    const started = await dev.start(form);
    const denied = await dev.decide(started.user_code, 'deny', person.headers);
    expect(denied.status).toBe(200);
    expect((await denied.json()).status).toBe('denied');
    for (let i = 0; i < 2; i++) {
      const res = await dev.poll(form, started.device_code);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'access_denied', error_description: expect.any(String) });
    }
    expect(await srv.db.prepare('SELECT COUNT(*) FROM api_keys WHERE user_id = ?').pluck().get(person.userId)).toBe(0);
    expect(await auditKinds('device_request')).toContain('device.deny');
  });

  it('pending → authorization_pending; polling faster than interval → slow_down, raising it by 5 s each time', async () => {
    const started = await dev.start(form);
    const first = await dev.poll(form, started.device_code);
    expect(first.status).toBe(400);
    expect(await first.json()).toMatchObject({ error: 'authorization_pending' });
    const second = await (await dev.poll(form, started.device_code)).json();
    expect(second).toMatchObject({ error: 'slow_down', interval: 6 });
    const third = await (await dev.poll(form, started.device_code)).json();
    expect(third).toMatchObject({ error: 'slow_down', interval: 11 });
    // Once approved, the key is handed over at once: slow_down only paces waiting.
    const owner = await sessionFor(srv, `slow-${form}@example.org`);
    await dev.decide(started.user_code, 'approve', owner.headers);
    expect((await dev.poll(form, started.device_code)).status).toBe(200);
  });

  it('answers invalid_grant for an unknown device_code and unsupported_grant_type for another grant', async () => {
    const unknown = await dev.poll(form, 'not-a-device-code');
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: 'invalid_grant' });
    const started = await dev.start(form);
    const other = await dev.poll(form, started.device_code, 'authorization_code');
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('answers a malformed token request with the RFC 6749 error, not a 422', async () => {
    const res =
      form === 'post'
        ? await dev.send('/api/oauth/token', { method: 'POST', json: { grant_type: 'device_code' } })
        : await dev.send('/api/oauth/token?grant_type=device_code');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'device_code is required' });
  });
});

describe('expired requests', () => {
  let short: TestServer;
  let sdev: ReturnType<typeof deviceClient>;
  beforeAll(async () => {
    short = await startTestServer({ env: { DEVICE_CODE_TTL_SECONDS: '1', DEVICE_POLL_INTERVAL_SECONDS: '1' } });
    sdev = deviceClient(short);
  });
  afterAll(() => short.stop());

  it('expired → expired_token in both forms; lookup and approval answer 410', async () => {
    const post = await sdev.start('post');
    const get = await sdev.start('get');
    expect(post.expires_in).toBe(1);
    const approvedInTime = await sdev.start('post');
    const owner = await sessionFor(short, 'late@example.org');
    await sdev.decide(approvedInTime.user_code, 'approve', owner.headers);
    await new Promise((r) => setTimeout(r, 1100));
    for (const [form, started] of [['post', post], ['get', get]] as const) {
      const res = await sdev.poll(form, started.device_code);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'expired_token' });
    }
    // Approved but never collected before expiry: the device_code's lifetime bounds the whole grant.
    expect(await (await sdev.poll('post', approvedInTime.device_code)).json()).toMatchObject({ error: 'expired_token' });
    expect((await sdev.lookup(post.user_code)).status).toBe(410);
    expect((await sdev.decide(get.user_code, 'approve', owner.headers)).status).toBe(410);
    expect(await short.db.prepare('SELECT COUNT(*) FROM api_keys').pluck().get()).toBe(0);
  });
});

describe('GET /api/device/lookup', () => {
  it('shows a pending request, accepts the code in any case with or without the dash, and tells the viewer', async () => {
    const started = await dev.start('post', { client_name: 'lookup-agent', client_host: 'build-7' });
    const sloppy = ` ${started.user_code.replace('-', '').toLowerCase()} `;
    const anon = await dev.lookup(sloppy);
    expect(anon.status).toBe(200);
    expect(await anon.json()).toMatchObject({
      user_code: started.user_code,
      client_name: 'lookup-agent',
      client_host: 'build-7',
      status: 'pending',
      sandbox: false,
      key_expires_in: 90 * 86_400,
      viewer: { signed_in: false, role: null, can_approve: false },
    });
    const mod = await sessionFor(srv, 'mod@example.org');
    await srv.db.prepare("UPDATE users SET role = 'moderator' WHERE id = ?").run(mod.userId);
    const seen = await (await dev.lookup(started.user_code, mod.headers)).json();
    expect(seen.viewer).toEqual({ signed_in: true, role: 'moderator', can_approve: true });
    const key = await bearerFor(srv, mod.userId);
    expect((await (await dev.lookup(started.user_code, key.headers)).json()).viewer).toEqual({ signed_in: true, role: 'moderator', can_approve: false });
  });

  it('answers 422 without user_code or with more than 24 characters, 404 for an unknown code, 410 once decided', async () => {
    expect((await dev.send('/api/device/lookup')).status).toBe(422);
    const long = await dev.lookup('B'.repeat(25));
    expect(long.status).toBe(422);
    expect((await long.json()).detail[0]).toMatchObject({ type: 'string_too_long', loc: ['query', 'user_code'] });
    const unknown = await dev.lookup('BBBB-BBBB');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).detail).toMatch(/no sign-in request/i);
    const started = await dev.start('post');
    await dev.decide(started.user_code, 'deny', (await sessionFor(srv, 'decider@example.org')).headers);
    const gone = await dev.lookup(started.user_code);
    expect(gone.status).toBe(410);
    expect((await gone.json()).detail).toMatch(/expired or was already/);
  });
});

describe('POST /api/device/approve', () => {
  it('needs a browser session: 401 anonymous and with an API key; 403 cross-site', async () => {
    const started = await dev.start('post');
    const anon = await dev.decide(started.user_code, 'approve');
    expect(anon.status).toBe(401);
    const person = await sessionFor(srv, 'careful@example.org');
    // An API key (or an OAuth token) cannot mint more keys by approving devices: a person must.
    expect((await dev.decide(started.user_code, 'approve', (await bearerFor(srv, person.userId)).headers)).status).toBe(401);
    expect((await dev.decide(started.user_code, 'approve', { Cookie: person.cookie, Origin: 'https://evil.example' })).status).toBe(403);
    expect((await dev.decide(started.user_code, 'approve', { Cookie: person.cookie })).status).toBe(403);
    expect((await dev.lookup(started.user_code)).status).toBe(200); // still pending
  });

  it('validates DeviceApproveRequest, answers 404 for an unknown code and 410 for a decided one', async () => {
    const person = await sessionFor(srv, 'validator@example.org');
    const send = (json: unknown) => dev.send('/api/device/approve', { method: 'POST', headers: person.headers, json });
    expect((await send({ user_code: 'BCDF-GHJK', action: 'maybe' })).status).toBe(422);
    expect((await send({ user_code: 'BCDF-GHJK', approve: true })).status).toBe(422);
    expect((await send({ user_code: 'B'.repeat(25), action: 'approve' })).status).toBe(422);
    expect((await send({ user_code: 'ZZZZ-ZZZZ', action: 'approve' })).status).toBe(404);
    const started = await dev.start('get');
    expect((await send({ user_code: started.user_code.toLowerCase(), action: 'approve' })).status).toBe(200);
    const again = await send({ user_code: started.user_code, action: 'deny' });
    expect(again.status).toBe(410);
    // The first decision stands.
    expect((await dev.poll('get', started.device_code)).status).toBe(200);
  });
});

describe('secrets at rest', () => {
  it('keeps only the SHA-256 of device codes and API keys in the database', async () => {
    const owner = await sessionFor(srv, 'secrets@example.org');
    const started = await dev.start('post');
    await dev.decide(started.user_code, 'approve', owner.headers);
    const token = await (await dev.poll('post', started.device_code)).json();
    const hash = createHash('sha256').update(started.device_code).digest('hex');
    const requests = await dumpTable(srv, 'device_requests');
    expect(requests).toContain(`hex:${hash}`);
    const everything = (await Promise.all(['device_requests', 'api_keys', 'audit_events', 'sessions'].map((t) => dumpTable(srv, t)))).join('\n');
    expect(everything).not.toContain(started.device_code);
    expect(everything).not.toContain(token.access_token);
    expect(everything).not.toContain(token.access_token.slice(3, 30));
    expect(await dumpTable(srv, 'api_keys')).toContain(`hex:${createHash('sha256').update(token.access_token).digest('hex')}`);
  });
});

describe('/openapi.json', () => {
  it('documents the device endpoints and the spec\'s named schemas', async () => {
    const doc = await (await srv.get('/openapi.json')).json();
    expect(Object.keys(doc.paths['/api/oauth/device']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/oauth/token']).sort()).toEqual(['get', 'post']);
    expect(doc.paths['/api/device/lookup'].get).toBeDefined();
    expect(doc.paths['/api/device/approve'].post).toBeDefined();
    expect(doc.paths['/device'].get).toBeDefined();
    for (const name of ['DeviceAuthRequest', 'TokenRequest', 'DeviceLookupOut', 'DeviceApproveRequest']) expect(doc.components.schemas[name], name).toBeDefined();
    expect(doc.components.schemas.DeviceApproveRequest.properties.action.enum).toEqual(['approve', 'deny']);
    const lookupParam = doc.paths['/api/device/lookup'].get.parameters.find((p: { name: string }) => p.name === 'user_code');
    expect(lookupParam).toMatchObject({ in: 'query', required: true, schema: { maxLength: 24 } });
  });
});
