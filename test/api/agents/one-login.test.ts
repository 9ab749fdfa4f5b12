// Item 8 of issue 16: one login for everything a person allowed. A device-flow sign-in that names the /mcp
// resource ends in OAuth access and refresh tokens (the GitHub CLI model), and that one access token
// works on the REST API, at /mcp and for chat; without the resource the flow still gives the spec's API
// key. The GET poll alias defaults grant_type to device_code (item 10).
import * as oauth from 'oauth4webapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { discover, insecure } from '../oauth/helpers.ts';

let srv: TestServer;
let send: Send;
let ana: TestSession;
let video: string;
let persona: string;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { DEVICE_POLL_INTERVAL_SECONDS: '1', MODERATOR_EMAILS: 'mod@example.org' } });
  send = sender(srv);
  ana = await sessionFor(srv, 'ana@example.org', 'Ana');
  video = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
  persona = (await (await srv.get('/api/personas')).json()).items[0].persona_id;
});
afterAll(() => srv.stop());

const bearer = (t: string) => ({ headers: { Authorization: `Bearer ${t}` } });

async function signIn(as: TestSession, body: Record<string, unknown>) {
  const start = await send('/api/oauth/device', { method: 'POST', json: { client_name: 'my-agent', client_host: 'laptop', ...body } });
  expect(start.status, await start.clone().text()).toBe(200);
  const started = await start.json();
  const approved = await send('/api/device/approve', { method: 'POST', as, json: { user_code: started.user_code, action: 'approve' } });
  expect(approved.status).toBe(200);
  const poll = await send('/api/oauth/token', { method: 'POST', json: { grant_type: 'device_code', device_code: started.device_code } });
  expect(poll.status, await poll.clone().text()).toBe(200);
  return { started, tokens: await poll.json() };
}

describe('a device sign-in that names the /mcp resource', () => {
  it('answers OAuth access and refresh tokens, and the approval page says what they allow', async () => {
    const start = await (await send('/api/oauth/device', { method: 'POST', json: { client_name: 'my-agent', client_host: 'laptop', resource: `${srv.url}/mcp`, scope: 'read write' } })).json();
    expect(start.scope).toBe('read write');
    expect((await (await send(`/api/device/lookup?user_code=${start.user_code}`)).json()).scope).toBe('read write');
    const page = await (await srv.get(`/device?user_code=${start.user_code}`, { headers: { Cookie: ana.cookie } })).text();
    expect(page).toMatch(/read and write .* as you/s);
    expect(page).toMatch(/MCP server and chat/);
    await send('/api/device/approve', { method: 'POST', as: ana, json: { user_code: start.user_code, action: 'approve' } });
    const tokens = await (await send('/api/oauth/token', { method: 'POST', json: { grant_type: 'device_code', device_code: start.device_code } })).json();
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read write', user_email: 'ana@example.org' });
    expect(tokens.access_token).toMatch(/^oat_/);
    expect(tokens.refresh_token).toMatch(/^ort_/);
    expect(tokens.client_id).toMatch(/^client_/);
    expect(tokens.key_id).toBeUndefined();
    expect(await srv.db.prepare("SELECT COUNT(*) FROM audit_events WHERE kind = 'oauth.grant.create'").pluck().get()).toBeGreaterThan(0);
  });

  it('gives one token that comments over HTTP, acts through MCP and chats', async () => {
    const { tokens } = await signIn(ana, { resource: `${srv.url}/mcp`, scope: 'read write' });
    const me = await (await send('/api/auth/me', bearer(tokens.access_token))).json();
    expect(me).toMatchObject({ authenticated: true, via: 'oauth' });
    const comment = await send('/api/comments', { method: 'POST', ...bearer(tokens.access_token), json: { entity_type: 'video', entity_id: video, body: 'One login, over HTTP' } });
    expect(comment.status).toBe(201);

    const client = new Client({ name: 'agent', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: bearer(tokens.access_token) }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('comment');
    const viaMcp = await client.callTool({ name: 'comment', arguments: { entity_type: 'video', entity_id: video, body: 'One login, through MCP' } });
    expect(viaMcp.isError).toBeFalsy();
    await client.close();

    const chat = await send('/api/chat/completions', { method: 'POST', ...bearer(tokens.access_token), json: { persona_id: persona, lang: 'en', messages: [{ role: 'user', content: 'How do agents change work?' }] } });
    expect(chat.status, await chat.clone().text()).toBe(200);
    expect((await chat.json()).persona_id).toBe(persona);
  });

  it('refreshes at the token endpoint as its client, and the person can disconnect it', async () => {
    const { tokens } = await signIn(ana, { resource: `${srv.url}/mcp`, scope: 'read write' });
    const res = await send('/api/oauth/v2/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: tokens.client_id }).toString(),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const next = await res.json();
    expect(next.access_token).toMatch(/^oat_/);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    const apps = await (await send('/api/account/oauth-clients', { as: ana })).json();
    const app = apps.find((a: { client_id: string }) => a.client_id === tokens.client_id);
    expect(app.client_name).toBe('my-agent on laptop');
    expect((await send(`/api/account/oauth-clients/${tokens.client_id}`, { method: 'DELETE', as: ana })).status).toBe(204);
    expect((await send('/api/auth/me', bearer(next.access_token))).status).toBe(401);
  });

  it('grants only what the person holds: moderate is withheld from a user, kept for a moderator', async () => {
    const user = await signIn(ana, { resource: `${srv.url}/mcp`, scope: 'read write moderate' });
    expect(user.tokens.scope).toBe('read write');
    const mod = await signIn(await sessionFor(srv, 'mod@example.org'), { resource: `${srv.url}/mcp`, scope: 'read moderate' });
    expect(mod.tokens.scope).toBe('read moderate');
    // Only the resource named: the authorize endpoint's default, read.
    expect((await signIn(ana, { resource: `${srv.url}/mcp` })).tokens.scope).toBe('read');
  });

  it('refuses another resource or an unknown scope: 422 on the JSON form, the RFC error on a form', async () => {
    const bad = await send('/api/oauth/device', { method: 'POST', json: { client_name: 'a', client_host: 'b', resource: 'https://elsewhere.example/mcp' } });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail[0].loc).toEqual(['body', 'resource']);
    const scope = await send('/api/oauth/device', { method: 'POST', json: { client_name: 'a', client_host: 'b', resource: `${srv.url}/mcp`, scope: 'read repo' } });
    expect(scope.status).toBe(422);
    expect((await scope.json()).hint).toMatch(/read write/);
    const form = await srv.get('/api/oauth/device', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'client_id=x&resource=https%3A%2F%2Felsewhere.example%2Fmcp' });
    expect(form.status).toBe(400);
    expect((await form.json()).error).toBe('invalid_target');
  });

  it('without the resource, the spec\'s API key as before (scopes of other services ignored)', async () => {
    const { tokens } = await signIn(ana, { scope: 'repo read:org' });
    expect(tokens.access_token.startsWith(srv.identity.keyPrefix)).toBe(true);
    expect(tokens.key_id).toBeTruthy();
    expect(tokens.refresh_token).toBeUndefined();
  });
});

describe('a standard RFC 8628 client asking for the /mcp resource', () => {
  it('gets OAuth tokens at the advertised token_endpoint', async () => {
    const as = await discover(srv);
    const client: oauth.Client = { client_id: 'rfc-device-cli' };
    const params = { scope: 'read write', resource: `${srv.url}/mcp` };
    const started = await oauth.processDeviceAuthorizationResponse(as, client, await oauth.deviceAuthorizationRequest(as, client, oauth.None(), params, insecure));
    await send('/api/device/approve', { method: 'POST', as: ana, json: { user_code: started.user_code, action: 'approve' } });
    const tokens = await oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, oauth.None(), started.device_code, insecure));
    expect(tokens.access_token).toMatch(/^oat_/);
    expect(tokens.refresh_token).toMatch(/^ort_/);
    expect(tokens.scope).toBe('read write');
  });
});

describe('the GET poll alias', () => {
  it('defaults grant_type to device_code, and gives no refresh token where the device_code was in a URL', async () => {
    const started = await (await send(`/api/oauth/device?client_name=sandbox&resource=${encodeURIComponent(`${srv.url}/mcp`)}&scope=read%20write`)).json();
    const pending = await send(`/api/oauth/token?device_code=${started.device_code}`);
    expect(pending.status).toBe(400);
    expect((await pending.json()).error).toBe('authorization_pending');
    await send('/api/device/approve', { method: 'POST', as: ana, json: { user_code: started.user_code, action: 'approve' } });
    await new Promise((r) => setTimeout(r, 1100));
    const done = await send(`/api/oauth/token?device_code=${started.device_code}`);
    expect(done.status, await done.clone().text()).toBe(200);
    const tokens = await done.json();
    expect(tokens.access_token).toMatch(/^oat_/);
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.user_email).toBeUndefined();
    // The POST poll still needs grant_type, as RFC 8628 says.
    const post = await send('/api/oauth/token', { method: 'POST', json: { device_code: 'x' } });
    expect((await post.json()).error_description).toMatch(/grant_type=device_code/);
  });
});
