// The token endpoint: code exchange with PKCE, single-use codes (a replay revokes what the code issued),
// refresh rotation with reuse detection revoking the family, client authentication, and the RFC 6749
// §5.2 errors. oauth4webapi is the client wherever it can make the request.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import {
  REDIRECT_URI,
  authorizeUrl,
  bearer,
  consent,
  discover,
  fullFlow,
  insecure,
  oauthError,
  pkce,
  refresh,
  register,
  signedInBrowser,
  tokenPost,
  whoAmI,
  type RegisteredClient,
} from './helpers.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true });
  as = await discover(srv);
});
afterAll(() => srv.stop());

/** The reasons of the audit log's grant revocations for `reg`'s grants: one event per revocation. */
async function revocations(reg: RegisteredClient): Promise<string[]> {
  const items = (await (await srv.get('/api/audit?kind=oauth.grant.revoke&limit=200')).json()).items as { data: { client_id: string; reason: string } }[];
  return items.filter((e) => e.data.client_id === reg.client.client_id).map((e) => e.data.reason);
}

/** A fresh code for `reg`, not yet exchanged. */
async function codeFor(reg: RegisteredClient, email = 'coder@example.org') {
  const { browser } = await signedInBrowser(srv, email);
  const p = await pkce();
  const back = await consent(browser, authorizeUrl(as, reg.client, p));
  return { p, params: oauth.validateAuthResponse(as, reg.client, back, p.state), code: back.searchParams.get('code')! };
}

describe('authorization_code', () => {
  it('exchanges a code for an opaque access token bound to /mcp (1 h) and a refresh token, never cached', async () => {
    const reg = await register(as);
    const { p, params } = await codeFor(reg);
    const res = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, p.verifier, insecure);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const tokens = await oauth.processAuthorizationCodeResponse(as, reg.client, res);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'read' });
    expect(tokens.access_token).toMatch(/^oat_[A-Za-z0-9_-]{43}$/);
    expect(tokens.refresh_token).toMatch(/^ort_[A-Za-z0-9_-]{43}$/);
    const me = await whoAmI(srv, tokens.access_token);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ authenticated: true, via: 'oauth', scopes: ['read'], audience: `${srv.url}/mcp` });
  });

  it('refuses a wrong code_verifier with invalid_grant, and the code stays usable by its rightful holder', async () => {
    const reg = await register(as);
    const { p, params } = await codeFor(reg);
    const wrong = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, oauth.generateRandomCodeVerifier(), insecure);
    expect(await oauthError(wrong, 400, 'invalid_grant')).toMatch(/code_verifier/);
    const malformed = await tokenPost(srv, { grant_type: 'authorization_code', client_id: reg.client.client_id, code: params.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: 'short' });
    await oauthError(malformed, 400, 'invalid_grant');
    const missing = await tokenPost(srv, { grant_type: 'authorization_code', client_id: reg.client.client_id, code: params.get('code')!, redirect_uri: REDIRECT_URI });
    await oauthError(missing, 400, 'invalid_request');
    const right = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, p.verifier, insecure);
    expect((await oauth.processAuthorizationCodeResponse(as, reg.client, right)).access_token).toBeTruthy();
  });

  it('refuses a wrong redirect_uri with invalid_grant', async () => {
    const reg = await register(as, { redirect_uris: [REDIRECT_URI, 'http://127.0.0.1:9/other'] });
    const { p, params } = await codeFor(reg);
    const res = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, 'http://127.0.0.1:9/other', p.verifier, insecure);
    expect(await oauthError(res, 400, 'invalid_grant')).toMatch(/redirect_uri/);
    const absent = await tokenPost(srv, { grant_type: 'authorization_code', client_id: reg.client.client_id, code: params.get('code')!, code_verifier: p.verifier });
    await oauthError(absent, 400, 'invalid_grant');
  });

  it('makes codes single-use: a replayed code is refused and revokes every token issued from it', async () => {
    const reg = await register(as);
    const { p, params } = await codeFor(reg);
    const first = await oauth.processAuthorizationCodeResponse(as, reg.client, await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, p.verifier, insecure));
    const rotated = await oauth.processRefreshTokenResponse(as, reg.client, await refresh(as, reg, first.refresh_token!));
    expect((await whoAmI(srv, rotated.access_token)).status).toBe(200);

    const replay = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, p.verifier, insecure);
    expect(await oauthError(replay, 400, 'invalid_grant')).toMatch(/already used/);
    for (const t of [first.access_token, rotated.access_token]) expect((await whoAmI(srv, t)).status).toBe(401);
    await oauthError(await refresh(as, reg, rotated.refresh_token!), 400, 'invalid_grant');
  });

  it('exchanges a code presented several times at once exactly once: the others are replays that revoke what it issued', async () => {
    const reg = await register(as);
    const { p, params } = await codeFor(reg, 'racer@example.org');
    const answers = await Promise.all(Array.from({ length: 8 }, () => oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, p.verifier, insecure)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
    const won = await answers.find((r) => r.status === 200)!.json();
    expect((await whoAmI(srv, won.access_token)).status).toBe(401);
    expect(await revocations(reg)).toEqual(['code_replay']);
  });

  it('refuses an expired code, an unknown code, and another client\'s code', async () => {
    const reg = await register(as);
    const other = await register(as);
    const a = await codeFor(reg);
    await oauthError(await oauth.authorizationCodeGrantRequest(as, other.client, other.auth, a.params, REDIRECT_URI, a.p.verifier, insecure), 400, 'invalid_grant');
    await oauthError(await tokenPost(srv, { grant_type: 'authorization_code', client_id: reg.client.client_id, code: 'nope', redirect_uri: REDIRECT_URI, code_verifier: a.p.verifier }), 400, 'invalid_grant');
    // The other client's attempt did not burn the code…
    const b = await codeFor(reg);
    await srv.db.prepare("UPDATE oauth_codes SET expires_at = '2000-01-01T00:00:00.000Z'").run();
    // …but time does.
    await oauthError(await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, b.params, REDIRECT_URI, b.p.verifier, insecure), 400, 'invalid_grant');
  });

  it('binds the code to the resource: a token request naming another resource is invalid_target', async () => {
    const reg = await register(as);
    const { p, params } = await codeFor(reg);
    const res = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, p.verifier, { ...insecure, additionalParameters: { resource: 'https://other.example/mcp' } });
    await oauthError(res, 400, 'invalid_target');
    const ok = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, p.verifier, { ...insecure, additionalParameters: { resource: `${srv.url}/mcp` } });
    expect(ok.status).toBe(200);
  });
});

describe('refresh_token', () => {
  it('rotates on every use: a new refresh token each time, and the new access token works', async () => {
    const { reg, tokens } = await fullFlow(srv, as);
    let current = tokens.refresh_token!;
    const seen = new Set([current]);
    for (let i = 0; i < 3; i++) {
      const next = await oauth.processRefreshTokenResponse(as, reg.client, await refresh(as, reg, current));
      expect(next.refresh_token).toBeTruthy();
      expect(seen.has(next.refresh_token!)).toBe(false);
      seen.add(next.refresh_token!);
      expect((await whoAmI(srv, next.access_token)).body).toMatchObject({ via: 'oauth' });
      current = next.refresh_token!;
    }
  });

  it('detects reuse: a rotated refresh token presented again revokes the whole family', async () => {
    const { reg, tokens } = await fullFlow(srv, as, { scope: 'read write' });
    const second = await oauth.processRefreshTokenResponse(as, reg.client, await refresh(as, reg, tokens.refresh_token!));
    const third = await oauth.processRefreshTokenResponse(as, reg.client, await refresh(as, reg, second.refresh_token!));
    // An attacker (or a confused client) presents the first, already rotated, token.
    expect(await oauthError(await refresh(as, reg, tokens.refresh_token!), 400, 'invalid_grant')).toMatch(/already used/);
    for (const t of [tokens.access_token, second.access_token, third.access_token]) expect((await whoAmI(srv, t)).status).toBe(401);
    await oauthError(await refresh(as, reg, third.refresh_token!), 400, 'invalid_grant');
    const grant = await srv.db.prepare('SELECT revoked_at, revoked_reason FROM oauth_grants WHERE client_id = ?').get(reg.client.client_id) as { revoked_at: string; revoked_reason: string };
    expect(grant.revoked_reason).toBe('refresh_token_reuse');
  });

  it('rotates a refresh token presented several times at once exactly once: the others are reuse, revoking the family', async () => {
    const { reg, tokens } = await fullFlow(srv, as, { email: 'twin@example.org' });
    const answers = await Promise.all(Array.from({ length: 8 }, () => refresh(as, reg, tokens.refresh_token!)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
    const won = await answers.find((r) => r.status === 200)!.json();
    expect((await whoAmI(srv, won.access_token)).status).toBe(401);
    expect(await revocations(reg)).toEqual(['refresh_token_reuse']);
  });

  it('narrows the scope on request and refuses to widen it', async () => {
    const { reg, tokens } = await fullFlow(srv, as, { scope: 'read write' });
    expect(tokens.scope).toBe('read write');
    const narrow = await oauth.processRefreshTokenResponse(as, reg.client, await oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, tokens.refresh_token!, { ...insecure, additionalParameters: { scope: 'read' } }));
    expect(narrow.scope).toBe('read');
    expect((await whoAmI(srv, narrow.access_token)).body.scopes).toEqual(['read']);
    // The refresh token keeps the grant's scope.
    const again = await oauth.processRefreshTokenResponse(as, reg.client, await refresh(as, reg, narrow.refresh_token!));
    expect(again.scope).toBe('read write');
    const wide = await oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, again.refresh_token!, { ...insecure, additionalParameters: { scope: 'read write admin' } });
    await oauthError(wide, 400, 'invalid_scope');
  });

  it("refuses another client's refresh token without revoking it, and an expired one", async () => {
    const { reg, tokens } = await fullFlow(srv, as);
    const thief = await register(as);
    await oauthError(await refresh(as, thief, tokens.refresh_token!), 400, 'invalid_grant');
    const ok = await oauth.processRefreshTokenResponse(as, reg.client, await refresh(as, reg, tokens.refresh_token!));
    await srv.db.prepare("UPDATE oauth_tokens SET expires_at = '2000-01-01T00:00:00.000Z' WHERE kind = 'refresh'").run();
    expect(await oauthError(await refresh(as, reg, ok.refresh_token!), 400, 'invalid_grant')).toMatch(/expired/);
  });

  it('gives no refresh token to a client that did not register the grant, and refuses it the grant', async () => {
    const { reg, tokens } = await fullFlow(srv, as, { metadata: { grant_types: ['authorization_code'] } });
    expect(tokens.refresh_token).toBeUndefined();
    await oauthError(await tokenPost(srv, { grant_type: 'refresh_token', client_id: reg.client.client_id, refresh_token: 'ort_x' }), 400, 'unauthorized_client');
  });
});

describe('client authentication', () => {
  it('lets a confidential client in with HTTP Basic only', async () => {
    const { reg, tokens } = await fullFlow(srv, as, { metadata: { token_endpoint_auth_method: 'client_secret_basic' } });
    expect(reg.secret).toBeTruthy();
    const rotated = await oauth.processRefreshTokenResponse(as, reg.client, await refresh(as, reg, tokens.refresh_token!));
    const wrongSecret = await oauth.refreshTokenGrantRequest(as, reg.client, oauth.ClientSecretBasic('wrong'), rotated.refresh_token!, insecure);
    await oauthError(wrongSecret, 401, 'invalid_client');
    expect(wrongSecret.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    // As a public client (client_id only), or with the secret in the body: refused.
    await oauthError(await refresh(as, { ...reg, auth: oauth.None() }, rotated.refresh_token!), 401, 'invalid_client');
    await oauthError(await oauth.refreshTokenGrantRequest(as, reg.client, oauth.ClientSecretPost(reg.secret!), rotated.refresh_token!, insecure), 401, 'invalid_client');
    // None of the failures burnt the token.
    expect((await refresh(as, reg, rotated.refresh_token!)).status).toBe(200);
  });

  it('refuses a public client that sends Basic, an unknown client, and no client at all', async () => {
    const pub = await register(as);
    const basic = `Basic ${Buffer.from(`${pub.client.client_id}:anything`).toString('base64')}`;
    await oauthError(await tokenPost(srv, { grant_type: 'refresh_token', refresh_token: 'ort_x' }, { Authorization: basic }), 401, 'invalid_client');
    await oauthError(await tokenPost(srv, { grant_type: 'refresh_token', client_id: 'client_unknown', refresh_token: 'ort_x' }), 401, 'invalid_client');
    await oauthError(await tokenPost(srv, { grant_type: 'refresh_token', refresh_token: 'ort_x' }), 401, 'invalid_client');
    await oauthError(await tokenPost(srv, { grant_type: 'refresh_token', refresh_token: 'ort_x' }, { Authorization: 'Basic !!!' }), 401, 'invalid_client');
  });
});

describe('request errors (RFC 6749 §5.2)', () => {
  it('answers invalid_request, unsupported_grant_type as JSON 400', async () => {
    const pub = await register(as);
    const id = pub.client.client_id;
    await oauthError(await tokenPost(srv, { client_id: id }), 400, 'invalid_request');
    await oauthError(await tokenPost(srv, { client_id: id, grant_type: 'password', username: 'a', password: 'b' }), 400, 'unsupported_grant_type');
    await oauthError(await tokenPost(srv, { client_id: id, grant_type: 'client_credentials' }), 400, 'unsupported_grant_type');
    await oauthError(await tokenPost(srv, `client_id=${id}&grant_type=refresh_token&refresh_token=a&refresh_token=b`), 400, 'invalid_request');
    await oauthError(await tokenPost(srv, { client_id: id, grant_type: 'authorization_code' }), 400, 'invalid_request');
    const json = await srv.get('/api/oauth/v2/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token', client_id: id }) });
    await oauthError(json, 400, 'invalid_request');
  });
});

describe('REST API with an OAuth token', () => {
  it('reads with read, writes only with write, and never manages the account', async () => {
    const { tokens: readOnly } = await fullFlow(srv, as, { email: 'scoped@example.org' });
    const { tokens: writer } = await fullFlow(srv, as, { email: 'scoped@example.org', scope: 'read write' });
    expect((await srv.get('/api/notifications', { headers: bearer(readOnly.access_token) })).status).toBe(200);
    const denied = await srv.get('/api/notifications/mark-all-read', { method: 'POST', headers: bearer(readOnly.access_token) });
    expect(denied.status).toBe(403);
    expect(denied.headers.get('www-authenticate')).toMatch(/insufficient_scope.*scope="write"/);
    expect((await srv.get('/api/notifications/mark-all-read', { method: 'POST', headers: bearer(writer.access_token) })).status).toBe(200);
    expect((await srv.get('/api/account/api-keys', { headers: bearer(writer.access_token) })).status).toBe(403);
    expect((await srv.get('/api/account/oauth-clients', { headers: bearer(writer.access_token) })).status).toBe(403);
  });

  it('expires access tokens after their lifetime', async () => {
    const { tokens } = await fullFlow(srv, as);
    await srv.db.prepare("UPDATE oauth_tokens SET expires_at = '2000-01-01T00:00:00.000Z' WHERE kind = 'access'").run();
    expect((await whoAmI(srv, tokens.access_token)).status).toBe(401);
  });
});
