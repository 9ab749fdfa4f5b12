// Discovery and dynamic client registration (RFC 8414, RFC 9728, RFC 7591), through oauth4webapi.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { REDIRECT_URI, discover, insecure, register } from './helpers.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true });
  as = await discover(srv);
});
afterAll(() => srv.stop());

const post = (body: unknown, contentType = 'application/json') =>
  srv.get('/api/oauth/v2/register', { method: 'POST', headers: { 'Content-Type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('metadata', () => {
  it('is discovered by oauth4webapi with this server as issuer, and says what the server does', () => {
    expect(as.issuer).toBe(srv.url);
    expect(as).toMatchObject({
      authorization_endpoint: `${srv.url}/api/oauth/v2/authorize`,
      token_endpoint: `${srv.url}/api/oauth/v2/token`,
      registration_endpoint: `${srv.url}/api/oauth/v2/register`,
      revocation_endpoint: `${srv.url}/api/oauth/v2/revoke`,
      device_authorization_endpoint: `${srv.url}/api/oauth/device`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
      scopes_supported: ['read', 'write', 'moderate', 'admin'],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('describes /mcp as a protected resource, at the spec path and at the RFC 9728 path', async () => {
    const resource = new URL(`${srv.url}/mcp`);
    const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure));
    expect(rs).toMatchObject({ resource: `${srv.url}/mcp`, authorization_servers: [srv.url], bearer_methods_supported: ['header'], scopes_supported: ['read', 'write'] });
    const root = await (await srv.get('/.well-known/oauth-protected-resource')).json();
    expect(root).toEqual(rs);
  });
});

describe('POST /api/oauth/v2/register', () => {
  it('registers a public client: 200, a client_id, no secret, the metadata as registered', async () => {
    const { body } = await register(as, { client_name: 'Claude', grant_types: ['authorization_code', 'refresh_token'] });
    expect(body).toMatchObject({
      client_name: 'Claude',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(body.client_id).toMatch(/^client_[a-z0-9]{16}$/);
    expect(typeof body.client_id_issued_at).toBe('number');
    expect(body).not.toHaveProperty('client_secret');
  });

  it('gives a confidential client its secret once, and a new client_id on every call', async () => {
    const meta = { token_endpoint_auth_method: 'client_secret_basic', client_name: 'Same app' };
    const a = await register(as, meta);
    const b = await register(as, meta);
    expect(a.body.client_id).not.toBe(b.body.client_id);
    expect(a.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.secret).not.toBe(b.secret);
    expect(a.body.client_secret_expires_at).toBe(0);
    // The RFC default method is client_secret_basic.
    const dflt = await post({ redirect_uris: [REDIRECT_URI] });
    const d = await dflt.json();
    expect(d.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(typeof d.client_secret).toBe('string');
    expect(dflt.headers.get('cache-control')).toBe('no-store');
  });

  it('accepts https and loopback http redirect URIs', async () => {
    for (const uri of ['https://app.example/cb', 'http://localhost:3000/callback', 'http://[::1]:8080/cb', 'https://app.example/cb?x=1']) {
      const res = await post({ redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      expect(res.status, uri).toBe(200);
    }
  });

  it('refuses bad redirect URIs with invalid_redirect_uri', async () => {
    for (const uris of [undefined, [], ['http://app.example/cb'], ['https://app.example/cb#frag'], ['/relative'], ['javascript:alert(1)'], [42], ['https://user:pw@app.example/cb']]) {
      const res = await post({ redirect_uris: uris, token_endpoint_auth_method: 'none' });
      const body = await res.json();
      expect(res.status, JSON.stringify(uris)).toBe(400);
      expect(body.error, JSON.stringify(uris)).toBe('invalid_redirect_uri');
      expect(typeof body.error_description).toBe('string');
    }
  });

  it('refuses other bad metadata with invalid_client_metadata', async () => {
    const base = { redirect_uris: [REDIRECT_URI] };
    for (const extra of [
      { token_endpoint_auth_method: 'private_key_jwt' },
      { token_endpoint_auth_method: 'client_secret_post' },
      { grant_types: ['implicit'] },
      { grant_types: ['refresh_token'] },
      { grant_types: ['client_credentials', 'authorization_code'] },
      { response_types: ['token'] },
      { scope: 'read everything' },
      { client_name: '' },
      { client_name: 'x'.repeat(101) },
      { client_uri: 'ftp://x' },
    ]) {
      const res = await post({ ...base, ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect((await res.json()).error, JSON.stringify(extra)).toBe('invalid_client_metadata');
    }
    for (const raw of ['not json', '[1,2]', 'null']) {
      const res = await post(raw);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('invalid_client_metadata');
    }
  });

  it('ignores metadata it does not understand (RFC 7591 §2)', async () => {
    const res = await post({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', jwks_uri_x: 'whatever', frobnicate: true });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body).not.toHaveProperty('frobnicate');
  });

  it('answers browser clients from other origins (CORS)', async () => {
    const pre = await srv.get('/api/oauth/v2/register', { method: 'OPTIONS', headers: { Origin: 'https://inspector.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  });
});
