// Revocation (RFC 7009) and the account's connected apps (/api/account/oauth-clients).
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor, sessionFor } from '../../helpers/auth.ts';
import { discover, fullFlow, insecure, oauthError, refresh, register, whoAmI } from './helpers.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true });
  as = await discover(srv);
});
afterAll(() => srv.stop());

const revokeRaw = (body: string, headers: Record<string, string> = {}) =>
  srv.get('/api/oauth/v2/revoke', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body });

describe('POST /api/oauth/v2/revoke', () => {
  it('revoking a refresh token revokes its grant: every token of the family stops working', async () => {
    const { reg, tokens } = await fullFlow(srv, as);
    const rotated = await oauth.processRefreshTokenResponse(as, reg.client, await refresh(as, reg, tokens.refresh_token!));
    const res = await oauth.revocationRequest(as, reg.client, reg.auth, rotated.refresh_token!, insecure);
    expect(res.status).toBe(200);
    await oauth.processRevocationResponse(res);
    for (const t of [tokens.access_token, rotated.access_token]) expect((await whoAmI(srv, t)).status).toBe(401);
    await oauthError(await refresh(as, reg, rotated.refresh_token!), 400, 'invalid_grant');
  });

  it('revoking an access token ends that token only', async () => {
    const { reg, tokens } = await fullFlow(srv, as);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, reg.client, reg.auth, tokens.access_token, { ...insecure, additionalParameters: { token_type_hint: 'access_token' } }));
    expect((await whoAmI(srv, tokens.access_token)).status).toBe(401);
    const next = await oauth.processRefreshTokenResponse(as, reg.client, await refresh(as, reg, tokens.refresh_token!));
    expect((await whoAmI(srv, next.access_token)).status).toBe(200);
  });

  it('answers 200 for unknown, already revoked, foreign and malformed requests alike', async () => {
    const { reg, tokens } = await fullFlow(srv, as);
    const other = await register(as);
    // Another client cannot revoke this client's token: 200, and nothing happens.
    expect((await oauth.revocationRequest(as, other.client, other.auth, tokens.refresh_token!, insecure)).status).toBe(200);
    expect((await whoAmI(srv, tokens.access_token)).status).toBe(200);
    for (const token of ['unknown', 'oat_unknown', 'ort_unknown', tokens.refresh_token!, tokens.refresh_token!]) {
      const res = await oauth.revocationRequest(as, reg.client, reg.auth, token, insecure);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    expect((await whoAmI(srv, tokens.access_token)).status).toBe(401);
    for (const body of ['', 'token=', 'garbage', 'token=a&token=b']) expect((await revokeRaw(body)).status).toBe(200);
    const json = await srv.get('/api/oauth/v2/revoke', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"token":"oat_nope"}' });
    expect(json.status).toBe(200);
  });

  it('tells a confidential client its credentials are wrong (401 invalid_client)', async () => {
    const { reg, tokens } = await fullFlow(srv, as, { metadata: { token_endpoint_auth_method: 'client_secret_basic' } });
    const res = await oauth.revocationRequest(as, reg.client, oauth.ClientSecretBasic('wrong'), tokens.refresh_token!, insecure);
    await oauthError(res, 401, 'invalid_client');
    expect((await whoAmI(srv, tokens.access_token)).status).toBe(200);
    expect((await oauth.revocationRequest(as, reg.client, reg.auth, tokens.refresh_token!, insecure)).status).toBe(200);
    expect((await whoAmI(srv, tokens.access_token)).status).toBe(401);
  });
});

describe('/api/account/oauth-clients', () => {
  it('lists the apps holding live grants, and revoking one ends all of its tokens for this person only', async () => {
    const email = 'owner@example.org';
    const a1 = await fullFlow(srv, as, { email, metadata: { client_name: 'Agent A', client_uri: 'https://a.example' } });
    const a2 = await fullFlow(srv, as, { email, registered: a1.reg, scope: 'read write' });
    const b = await fullFlow(srv, as, { email, metadata: { client_name: 'Agent B' } });
    const someoneElse = await fullFlow(srv, as, { email: 'neighbour@example.org', registered: a1.reg });
    const me = await sessionFor(srv, email);

    const list = await (await srv.get('/api/account/oauth-clients', { headers: me.headers })).json();
    expect(list.map((c: { client_name: string }) => c.client_name).sort()).toEqual(['Agent A', 'Agent B']);
    const agentA = list.find((c: { client_id: string }) => c.client_id === a1.reg.client.client_id);
    expect(agentA).toMatchObject({ client_name: 'Agent A', client_uri: 'https://a.example', scopes: ['read', 'write'] });
    expect(typeof agentA.authorized_at).toBe('string');
    expect(typeof agentA.last_used_at).toBe('string');
    expect(JSON.stringify(list)).not.toMatch(/oat_|ort_|secret/);

    // Only the person's browser session manages it: neither an API key nor an OAuth token may.
    const key = await bearerFor(srv, me.userId);
    expect((await srv.get('/api/account/oauth-clients', { headers: key.headers })).status).toBe(403);
    expect((await srv.get('/api/account/oauth-clients', { headers: { Authorization: `Bearer ${b.tokens.access_token}` } })).status).toBe(403);
    expect((await srv.get('/api/account/oauth-clients')).status).toBe(401);

    const del = await srv.get(`/api/account/oauth-clients/${a1.reg.client.client_id}`, { method: 'DELETE', headers: me.headers });
    expect(del.status).toBe(204);
    for (const t of [a1.tokens.access_token, a2.tokens.access_token]) expect((await whoAmI(srv, t)).status).toBe(401);
    await oauthError(await refresh(as, a1.reg, a2.tokens.refresh_token!), 400, 'invalid_grant');
    expect((await whoAmI(srv, b.tokens.access_token)).status).toBe(200);
    expect((await whoAmI(srv, someoneElse.tokens.access_token)).status).toBe(200);

    const after = await (await srv.get('/api/account/oauth-clients', { headers: me.headers })).json();
    expect(after.map((c: { client_name: string }) => c.client_name)).toEqual(['Agent B']);
    expect((await srv.get(`/api/account/oauth-clients/${a1.reg.client.client_id}`, { method: 'DELETE', headers: me.headers })).status).toBe(404);
    expect((await srv.get('/api/account/oauth-clients/client_unknown', { method: 'DELETE', headers: me.headers })).status).toBe(404);
    // Cookie writes keep their CSRF rule.
    expect((await srv.get(`/api/account/oauth-clients/${b.reg.client.client_id}`, { method: 'DELETE', headers: { Cookie: me.cookie } })).status).toBe(403);
  });

  it('drops an app once its grants are revoked by the client or by reuse detection', async () => {
    const email = 'lister@example.org';
    const { reg, tokens } = await fullFlow(srv, as, { email });
    const me = await sessionFor(srv, email);
    expect((await (await srv.get('/api/account/oauth-clients', { headers: me.headers })).json()).length).toBe(1);
    await oauth.revocationRequest(as, reg.client, reg.auth, tokens.refresh_token!, insecure);
    expect(await (await srv.get('/api/account/oauth-clients', { headers: me.headers })).json()).toEqual([]);
  });
});
