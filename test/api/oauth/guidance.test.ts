// OAuth details (issue 42, item 10), through the clients that meet them: a refresh with an unknown or
// missing client_id says which client_id to send; a refresh or code grant sent to the device flow's poll
// (/api/oauth/token) points to the OAuth 2.1 token endpoint, where the same request then succeeds; and the
// 403 insufficient_scope challenge of /mcp is a valid WWW-Authenticate header (RFC 9110 quoted-strings,
// RFC 6750 §3 characters), read whole by oauth4webapi's parser and acted on by the MCP SDK's client.
import * as oauth from 'oauth4webapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { discover, fullFlow, insecure, oauthError, tokenPost } from './helpers.ts';
import { SdkOAuthProvider } from './sdk-provider.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true });
  as = await discover(srv);
});
afterAll(() => srv.stop());

describe('a refresh with the wrong client_id', () => {
  it('says which client_id to send: the token response\'s, or the registration\'s', async () => {
    const { tokens } = await fullFlow(srv, as);
    // A client_id this server never issued (the program's own name), and none at all.
    const unknown = await oauth.refreshTokenGrantRequest(as, { client_id: 'my-agent' }, oauth.None(), tokens.refresh_token!, insecure);
    const missing = await tokenPost(srv, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });
    for (const res of [unknown, missing]) {
      const description = await oauthError(res, 401, 'invalid_client');
      expect(description).toMatch(/client_id field of the token response/);
      expect(description).toMatch(/POST \/api\/oauth\/v2\/register/);
    }
  });
});

describe('grant_type=refresh_token at the device flow\'s poll', () => {
  it('points to the OAuth 2.1 token endpoint of the metadata, where the same request succeeds', async () => {
    const { reg, tokens } = await fullFlow(srv, as);
    const form = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: reg.client.client_id };
    const asForm = await srv.get('/api/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    const asJson = await srv.get('/api/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(form) });
    for (const res of [asForm, asJson]) expect(await oauthError(res, 400, 'unsupported_grant_type')).toContain(`POST ${as.token_endpoint}`);
    const code = await srv.get('/api/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'authorization_code', code: 'x' }) });
    expect(await oauthError(code, 400, 'unsupported_grant_type')).toContain(`POST ${as.token_endpoint}`);
    // Nothing was used up: the token endpoint it names takes the same refresh.
    const there = await oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, tokens.refresh_token!, insecure);
    expect((await oauth.processRefreshTokenResponse(as, reg.client, there)).access_token).toMatch(/^oat_/);
  });
});

describe('the insufficient_scope challenge of /mcp', () => {
  const callComment = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'comment', arguments: { entity_type: 'video', entity_id: 'x', body: 'hi' } } };

  it('is one valid Bearer challenge: oauth4webapi reads every parameter, none swallowed by a stray quote', async () => {
    const { tokens } = await fullFlow(srv, as, { email: 'reader@example.org' });
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const err = await oauth.protectedResourceRequest(tokens.access_token, 'POST', new URL(`${srv.url}/mcp`), new Headers(headers), JSON.stringify(callComment), insecure).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const { cause: challenges, status } = err as oauth.WWWAuthenticateChallengeError;
    expect(status).toBe(403);
    expect(challenges).toHaveLength(1);
    expect(challenges[0].scheme).toBe('bearer');
    expect(Object.keys(challenges[0].parameters).sort()).toEqual(['error', 'error_description', 'resource_metadata', 'scope']);
    expect(challenges[0].parameters).toMatchObject({ error: 'insufficient_scope', scope: 'read write', resource_metadata: `${srv.url}/.well-known/oauth-protected-resource` });
    // RFC 6750 §3: error_description holds no '"' or '\'; the scope it names is still there.
    expect(challenges[0].parameters.error_description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
    expect(challenges[0].parameters.error_description).toMatch(/read write/);
  });

  it('sends the MCP SDK\'s client to authorize again asking for scope "read write"', async () => {
    const { reg, tokens } = await fullFlow(srv, as, { email: 'reader@example.org' });
    // The host keeps the client and an access token (no refresh token, so the SDK goes straight to consent).
    const provider = new SdkOAuthProvider({ info: { client_id: reg.client.client_id }, tokens: { access_token: tokens.access_token, token_type: 'Bearer' } });
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { authProvider: provider }));
    await expect(client.callTool(callComment.params)).rejects.toThrow(UnauthorizedError);
    const url = provider.authorizationUrl!;
    expect(url.origin + url.pathname).toBe(as.authorization_endpoint);
    expect(url.searchParams.get('scope')).toBe('read write');
    expect(url.searchParams.get('client_id')).toBe(reg.client.client_id);
    expect(url.searchParams.get('resource')).toBe(`${srv.url}/mcp`);
    await client.close();
  });
});
