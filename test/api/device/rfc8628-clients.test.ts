// The device flow for standard RFC 8628 clients (issue 15, item 8): a client that reads
// /.well-known/oauth-authorization-server (oauth4webapi here) finds device_authorization_endpoint and the
// device grant, sends form-encoded requests with its client_id, and polls the advertised token_endpoint;
// a GitHub-CLI-style client polls the spec's /api/oauth/token with a form. Every failure of either token
// endpoint is the RFC 6749 error JSON. The spec's JSON shapes and GET aliases are kept (device-flow.test.ts).
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';
import { discover, insecure } from '../oauth/helpers.ts';
import { START_LIMIT } from '../../../api/device/index.ts';
import { URN, deviceClient } from './helpers.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
let dev: ReturnType<typeof deviceClient>;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { DEVICE_POLL_INTERVAL_SECONDS: '1' } });
  as = await discover(srv);
  dev = deviceClient(srv);
});
afterAll(() => srv.stop());

const cli: oauth.Client = { client_id: 'gh-style-cli' };
const form = (path: string, params: Record<string, string> | string, headers: Record<string, string> = {}) =>
  srv.get(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', ...headers },
    body: typeof params === 'string' ? params : new URLSearchParams(params).toString(),
  });

/** An RFC 6749 §5.2 error: status, `error`, a description, no-store, and nothing of the 422 shape. */
async function rfcError(res: Response, status: number, error: string): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(body.error, JSON.stringify(body)).toBe(error);
  expect(typeof body.error_description).toBe('string');
  expect(body).not.toHaveProperty('detail');
  return body;
}

const approve = async (userCode: string, email: string) => {
  const owner = await sessionFor(srv, email);
  const res = await dev.decide(userCode, 'approve', owner.headers);
  expect(res.status).toBe(200);
  return owner;
};

describe('discovery', () => {
  it('advertises the device authorization endpoint and the device grant (RFC 8628 §4)', () => {
    expect(as.device_authorization_endpoint).toBe(`${srv.url}/api/oauth/device`);
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', URN]));
  });
});

describe('a standard client driven by the metadata (oauth4webapi)', () => {
  it('starts with a form carrying client_id, polls the token_endpoint, and gets a working key once approved', async () => {
    const started = await oauth.processDeviceAuthorizationResponse(as, cli, await oauth.deviceAuthorizationRequest(as, cli, oauth.None(), { scope: 'read' }, insecure));
    expect(started.verification_uri).toBe(`${srv.url}/device`);
    expect(started.verification_uri_complete).toBe(`${srv.url}/device?user_code=${started.user_code}`);
    expect(started).toMatchObject({ expires_in: 600, interval: 1 });
    // The approval page names the client by its client_id.
    expect(await (await dev.lookup(started.user_code)).json()).toMatchObject({ client_name: 'gh-style-cli', client_host: 'unknown host', sandbox: false });

    const pending = await oauth.deviceCodeGrantRequest(as, cli, oauth.None(), started.device_code, insecure);
    const err = await oauth.processDeviceCodeResponse(as, cli, pending).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(oauth.ResponseBodyError);
    expect((err as oauth.ResponseBodyError).error).toBe('authorization_pending');

    const owner = await approve(started.user_code, 'metadata-client@example.org');
    const tokens = await oauth.processDeviceCodeResponse(as, cli, await oauth.deviceCodeGrantRequest(as, cli, oauth.None(), started.device_code, insecure));
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(90 * 86_400);
    const me = await (await srv.get('/api/auth/me', { headers: { Authorization: `Bearer ${tokens.access_token}` } })).json();
    expect(me).toMatchObject({ authenticated: true, via: 'api_key', user: { id: owner.userId } });

    // One key per request, whichever endpoint redeems it.
    const again = await oauth.deviceCodeGrantRequest(as, cli, oauth.None(), started.device_code, insecure);
    await rfcError(again, 400, 'invalid_grant');
    await rfcError(await dev.poll('post', started.device_code), 400, 'invalid_grant');
  });

  it('at the token_endpoint: slow_down with the new interval, and the RFC errors for a bad device poll', async () => {
    const started = await (await form('/api/oauth/device', { client_id: 'pacing-cli' })).json();
    const poll = (extra: Record<string, string> = {}, headers: Record<string, string> = {}) =>
      form('/api/oauth/v2/token', { grant_type: URN, device_code: started.device_code, client_id: 'pacing-cli', ...extra }, headers);
    await rfcError(await poll(), 400, 'authorization_pending');
    expect(await rfcError(await poll(), 400, 'slow_down')).toMatchObject({ interval: 6 });
    await rfcError(await poll({ device_code: 'not-a-device-code' }), 400, 'invalid_grant');
    await rfcError(await form('/api/oauth/v2/token', { grant_type: URN, client_id: 'pacing-cli' }), 400, 'invalid_request');
    await rfcError(await form('/api/oauth/v2/token', `grant_type=${encodeURIComponent(URN)}&device_code=a&device_code=b`), 400, 'invalid_request');
    // Client credentials are optional here, but checked when sent.
    await rfcError(await poll({}, { Authorization: `Basic ${Buffer.from('nobody:wrong').toString('base64')}` }), 401, 'invalid_client');
    await rfcError(await poll({ client_secret: 'x' }), 401, 'invalid_client');
    // The spec's short grant_type is the legacy endpoint's only: here it is no device grant, and the
    // grants other than the device's need a registered client.
    await rfcError(await poll({ grant_type: 'device_code' }), 401, 'invalid_client');
  });
});

describe('a GitHub-CLI-style client at the spec endpoints, form-encoded', () => {
  it('POST /api/oauth/device and POST /api/oauth/token take forms with client_id', async () => {
    const res = await form('/api/oauth/device', { client_id: 'Iv1.b507a08c87ecfe98', scope: 'repo read:org' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const started = await res.json();
    expect(Object.keys(started).sort()).toEqual(['device_code', 'expires_in', 'interval', 'user_code', 'verification_uri', 'verification_uri_complete']);

    const poll = () => form('/api/oauth/token', { grant_type: URN, device_code: started.device_code, client_id: 'Iv1.b507a08c87ecfe98' });
    await rfcError(await poll(), 400, 'authorization_pending');
    const owner = await approve(started.user_code, 'gh-style@example.org');
    const ok = await poll();
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    const token = await ok.json();
    expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 90 * 86_400, user_email: 'gh-style@example.org' });
    const keys = await (await srv.get('/api/account/api-keys', { headers: owner.headers })).json();
    expect(keys).toEqual([expect.objectContaining({ id: token.key_id, source: 'device', name: 'Device: Iv1.b507a08c87ecfe98 on unknown host' })]);
  });

  it('a form may name the client and host like the JSON body; their rules hold, as RFC 6749 errors', async () => {
    const started = await (await form('/api/oauth/device', { client_id: 'x', client_name: 'my-agent', client_host: 'build-box' })).json();
    expect(await (await dev.lookup(started.user_code)).json()).toMatchObject({ client_name: 'my-agent', client_host: 'build-box' });
    await rfcError(await form('/api/oauth/device', { client_id: 'evil\u202Eexe.txt' }), 400, 'invalid_request');
    await rfcError(await form('/api/oauth/device', { client_name: 'x'.repeat(101) }), 400, 'invalid_request');
    await rfcError(await form('/api/oauth/device', 'client_id=a&client_id=b'), 400, 'invalid_request');
    // With no name at all the page says so.
    const anonymous = await (await form('/api/oauth/device', '')).json();
    expect(await (await dev.lookup(anonymous.user_code)).json()).toMatchObject({ client_name: 'Unnamed client', client_host: 'unknown host' });
  });

  it('the JSON body keeps the spec\'s shape and its 422', async () => {
    const res = await dev.send('/api/oauth/device', { method: 'POST', json: { client_id: 'only-an-id' } });
    expect(res.status).toBe(422);
    expect((await res.json()).detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(['body.client_name', 'body.client_host']);
  });
});

describe('every failure of POST /api/oauth/token is the RFC 6749 error JSON', () => {
  const post = (body: string, contentType?: string) =>
    srv.get('/api/oauth/token', { method: 'POST', headers: contentType ? { 'Content-Type': contentType } : {}, body });

  it('in JSON, in a form, and through the GET alias', async () => {
    const cases: [Promise<Response>, string][] = [
      [post('{"grant_type":"device_code"}', 'application/json'), 'invalid_request'],
      [post('{"device_code":"abc"}', 'application/json'), 'invalid_request'],
      [post('{"grant_type":"device_code","device_code":42}', 'application/json'), 'invalid_request'],
      [post('[]', 'application/json'), 'invalid_request'],
      [post('null', 'application/json'), 'invalid_request'],
      [post('{oops', 'application/json'), 'invalid_request'],
      [post('', 'application/json'), 'invalid_request'],
      [post('grant_type=device_code', 'text/plain'), 'invalid_request'],
      [post('{"grant_type":"password","device_code":"abc"}', 'application/json'), 'unsupported_grant_type'],
      [post('{"grant_type":"device_code","device_code":"unknown"}', 'application/json'), 'invalid_grant'],
      [form('/api/oauth/token', { grant_type: URN }), 'invalid_request'],
      [form('/api/oauth/token', { device_code: 'abc' }), 'invalid_request'],
      [form('/api/oauth/token', `grant_type=${encodeURIComponent(URN)}&device_code=a&device_code=a`), 'invalid_request'],
      [form('/api/oauth/token', { grant_type: 'authorization_code', device_code: 'abc' }), 'unsupported_grant_type'],
      [form('/api/oauth/token', { grant_type: URN, device_code: 'unknown', client_id: 'c' }), 'invalid_grant'],
      [srv.get('/api/oauth/token'), 'invalid_request'],
      [srv.get('/api/oauth/token?grant_type=device_code'), 'invalid_request'],
      [srv.get('/api/oauth/token?grant_type=device_code&device_code=a&device_code=b'), 'invalid_request'],
      [srv.get('/api/oauth/token?grant_type=password&device_code=a'), 'unsupported_grant_type'],
    ];
    for (const [res, error] of cases) await rfcError(await res, 400, error);
  });
});

describe('the form-encoded device request under the start limit', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer();
  });
  afterAll(() => limited.stop());

  it('answers 429 temporarily_unavailable with Retry-After', async () => {
    const start = () =>
      limited.get('/api/oauth/device', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'client_id=burst' });
    for (let i = 0; i < START_LIMIT.limit; i++) expect((await start()).status).toBe(200);
    const res = await start();
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    await rfcError(res, 429, 'temporarily_unavailable');
  });
});

describe('/openapi.json', () => {
  it('documents both encodings, the RFC errors instead of 422 at the token endpoints, and the device grant at v2', async () => {
    const doc = await (await srv.get('/openapi.json')).json();
    for (const path of ['/api/oauth/device', '/api/oauth/token']) {
      expect(Object.keys(doc.paths[path].post.requestBody.content).sort(), path).toEqual(['application/json', 'application/x-www-form-urlencoded']);
      expect(doc.paths[path].post.responses, path).toHaveProperty('400');
    }
    for (const method of ['get', 'post']) {
      const responses = doc.paths['/api/oauth/token'][method].responses;
      expect(responses, method).toHaveProperty('200');
      expect(responses, method).toHaveProperty('400');
      expect(responses, method).not.toHaveProperty('422');
    }
    const v2 = doc.paths['/api/oauth/v2/token'].post.requestBody.content['application/x-www-form-urlencoded'].schema;
    expect(v2.properties.grant_type.enum).toContain(URN);
    expect(v2.properties).toHaveProperty('device_code');
  });
});
