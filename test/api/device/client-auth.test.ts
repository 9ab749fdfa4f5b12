// Issue 39, item 8: the device flow authenticates registered clients as the token endpoint does (RFC 8628
// §3.1 and §3.4, RFC 6749 §3.2.1). A start that names a confidential client must carry its secret (HTTP
// Basic), and a request a registered client made is redeemed by that client only, a confidential one with
// its secret, at either token endpoint. Unregistered client_ids stay what they were: names.
// oauth4webapi is the client wherever the RFC path is used.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';
import { discover, insecure, register } from '../oauth/helpers.ts';
import { deviceClient } from './helpers.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
let dev: ReturnType<typeof deviceClient>;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { DEVICE_POLL_INTERVAL_SECONDS: '1' } });
  as = await discover(srv);
  dev = deviceClient(srv);
});
afterAll(() => srv.stop());

const mcp = () => `${srv.url}/mcp`;
const requests = async () => await srv.db.prepare('SELECT COUNT(*) FROM device_requests').pluck().get() as number;

/** An RFC 6749 §5.2 error with its status; invalid_client also carries the Basic challenge. */
async function rfcError(res: Response, status: number, error: string): Promise<void> {
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(body.error, JSON.stringify(body)).toBe(error);
  expect(typeof body.error_description).toBe('string');
  if (error === 'invalid_client') expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
}

const approve = async (userCode: string, email: string) => {
  const res = await dev.decide(userCode, 'approve', (await sessionFor(srv, email)).headers);
  expect(res.status).toBe(200);
};

describe('a confidential client at the device authorization endpoint', () => {
  it('is refused without its secret (invalid_client), in every form the endpoint takes, and nothing starts', async () => {
    const app = await register(as, { token_endpoint_auth_method: 'client_secret_basic', client_name: 'Confidential App' });
    const before = await requests();
    const ask = { scope: 'read write', resource: mcp() };
    // What anyone who knows the client_id can send: the RFC form without credentials…
    await rfcError(await oauth.deviceAuthorizationRequest(as, app.client, oauth.None(), ask, insecure), 401, 'invalid_client');
    // …a wrong secret, or the secret in the body (client_secret_post is not this client's method)…
    await rfcError(await oauth.deviceAuthorizationRequest(as, app.client, oauth.ClientSecretBasic('not-the-secret'), ask, insecure), 401, 'invalid_client');
    await rfcError(await oauth.deviceAuthorizationRequest(as, app.client, oauth.ClientSecretPost(app.secret!), ask, insecure), 401, 'invalid_client');
    // …the spec's JSON body and the GET alias.
    await rfcError(await dev.send('/api/oauth/device', { method: 'POST', json: { client_name: 'x', client_host: 'y', client_id: app.client.client_id, ...ask } }), 401, 'invalid_client');
    await rfcError(await dev.send(`/api/oauth/device?${new URLSearchParams({ client_id: app.client.client_id, ...ask })}`), 401, 'invalid_client');
    // Also when asking for an API key: the client_id still claims to be that client.
    await rfcError(await dev.send('/api/oauth/device', { method: 'POST', json: { client_name: 'x', client_host: 'y', client_id: app.client.client_id } }), 401, 'invalid_client');
    expect(await requests()).toBe(before);
  });

  it('starts with its secret; then only it redeems, with its secret, at either token endpoint', async () => {
    const app = await register(as, { token_endpoint_auth_method: 'client_secret_basic', client_name: 'Confidential App' });
    const rival = await register(as, { token_endpoint_auth_method: 'client_secret_basic' });
    const started = await oauth.processDeviceAuthorizationResponse(as, app.client, await oauth.deviceAuthorizationRequest(as, app.client, app.auth, { scope: 'read write', resource: mcp() }, insecure));
    // The page names the client by its registered name.
    expect(await (await dev.lookup(started.user_code)).json()).toMatchObject({ client_name: 'Confidential App', scope: 'read write' });
    await approve(started.user_code, 'conf-owner@example.org');

    // Whoever holds the device_code but not the secret gets nothing: at the advertised token endpoint…
    await rfcError(await oauth.deviceCodeGrantRequest(as, app.client, oauth.None(), started.device_code, insecure), 401, 'invalid_client');
    // …at the spec's endpoint, POST and GET…
    await rfcError(await dev.poll('post', started.device_code), 401, 'invalid_client');
    await rfcError(await dev.poll('get', started.device_code), 401, 'invalid_client');
    // …nor does another client with its own secret.
    await rfcError(await oauth.deviceCodeGrantRequest(as, rival.client, rival.auth, started.device_code, insecure), 400, 'invalid_grant');

    // The client itself does, once.
    const tokens = await oauth.processDeviceCodeResponse(as, app.client, await oauth.deviceCodeGrantRequest(as, app.client, app.auth, started.device_code, insecure));
    expect(tokens.access_token).toMatch(/^oat_/);
    expect(tokens.scope).toBe('read write');
    expect(tokens.client_id).toBe(app.client.client_id);
    const me = await (await srv.get('/api/auth/me', { headers: { Authorization: `Bearer ${tokens.access_token}` } })).json();
    expect(me).toMatchObject({ authenticated: true, via: 'oauth' });
    await rfcError(await oauth.deviceCodeGrantRequest(as, app.client, app.auth, started.device_code, insecure), 400, 'invalid_grant');
  });

  it('may poll the spec\'s endpoint too, with HTTP Basic', async () => {
    const app = await register(as, { token_endpoint_auth_method: 'client_secret_basic' });
    const started = await oauth.processDeviceAuthorizationResponse(as, app.client, await oauth.deviceAuthorizationRequest(as, app.client, app.auth, {}, insecure));
    await approve(started.user_code, 'conf-key@example.org');
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(app.client.client_id)}:${encodeURIComponent(app.secret!)}`).toString('base64')}`;
    const res = await dev.send('/api/oauth/token', { method: 'POST', headers: { Authorization: basic }, json: { grant_type: 'device_code', device_code: started.device_code } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()).access_token.startsWith(srv.identity.keyPrefix)).toBe(true);
  });
});

describe('public and unregistered clients', () => {
  it('a registered public client starts and polls by its client_id alone; another registered client cannot redeem it', async () => {
    const app = await register(as, { token_endpoint_auth_method: 'none' });
    const rival = await register(as, { token_endpoint_auth_method: 'none' });
    const started = await oauth.processDeviceAuthorizationResponse(as, app.client, await oauth.deviceAuthorizationRequest(as, app.client, app.auth, { resource: mcp() }, insecure));
    await approve(started.user_code, 'public-owner@example.org');
    await rfcError(await oauth.deviceCodeGrantRequest(as, rival.client, rival.auth, started.device_code, insecure), 400, 'invalid_grant');
    const tokens = await oauth.processDeviceCodeResponse(as, app.client, await oauth.deviceCodeGrantRequest(as, app.client, app.auth, started.device_code, insecure));
    expect(tokens.client_id).toBe(app.client.client_id);
  });

  it('an unregistered client_id needs no credentials and names the program, as before', async () => {
    const cli: oauth.Client = { client_id: 'some-cli' };
    const started = await oauth.processDeviceAuthorizationResponse(as, cli, await oauth.deviceAuthorizationRequest(as, cli, oauth.None(), { resource: mcp() }, insecure));
    expect(await (await dev.lookup(started.user_code)).json()).toMatchObject({ client_name: 'some-cli' });
    await approve(started.user_code, 'cli-owner@example.org');
    const tokens = await oauth.processDeviceCodeResponse(as, cli, await oauth.deviceCodeGrantRequest(as, cli, oauth.None(), started.device_code, insecure));
    expect(tokens.client_id).toMatch(/^client_/);
    expect(tokens.client_id).not.toBe('some-cli');
  });
});
