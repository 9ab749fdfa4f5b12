// The MCP resource at /mcp, driven by the MCP SDK's own client over Streamable HTTP: refused without an
// OAuth token for this resource, served with one (tools and resources), and the SDK's complete OAuth
// flow starting from the 401 challenge (protected-resource metadata → registration → consent → token).
import * as oauth from 'oauth4webapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor } from '../../helpers/auth.ts';
import { hashSecret } from '../../../api/auth/secrets.ts';
import { REDIRECT_URI, consent, discover, fullFlow, signedInBrowser } from '../oauth/helpers.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
let token: string;
let ownerId: string;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true });
  as = await discover(srv);
  const flow = await fullFlow(srv, as, { email: 'mcp-user@example.org' });
  token = flow.tokens.access_token;
  ownerId = flow.userId;
});
afterAll(() => srv.stop());

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'kb-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers } }));
  return client;
}

const initialize = (headers: Record<string, string> = {}) =>
  srv.get('/mcp', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });

const text = (r: unknown) => JSON.parse(((r as { content: { text: string }[] }).content[0]).text);

describe('without a valid token', () => {
  it('answers 401 with a Bearer challenge naming the protected resource metadata', async () => {
    const res = await initialize();
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${srv.url}/.well-known/oauth-protected-resource"`);
    expect(challenge).toContain('scope="read"');
    const meta = await (await srv.get('/.well-known/oauth-protected-resource')).json();
    expect(meta.resource).toBe(`${srv.url}/mcp`);
  });

  it('refuses the SDK client without a token', async () => {
    await expect(connect({})).rejects.toThrow(/401|Unauthorized/i);
  });

  it('refuses unknown, revoked and expired tokens, tokens of another audience, and API keys', async () => {
    const flow = await fullFlow(srv, as, { email: 'mcp-user@example.org' });
    // A token this server would issue for another resource (another deployment's /mcp).
    const foreign = 'oat_' + 'f'.repeat(43);
    srv.db
      .prepare("INSERT INTO oauth_tokens (token_hash, grant_id, kind, scope, resource, created_at, expires_at) SELECT ?, grant_id, 'access', 'read', 'https://other.example/mcp', created_at, expires_at FROM oauth_tokens WHERE kind = 'access' LIMIT 1")
      .run(hashSecret(foreign));
    const expired = (await fullFlow(srv, as)).tokens.access_token;
    srv.db.prepare("UPDATE oauth_tokens SET expires_at = '2000-01-01T00:00:00.000Z' WHERE token_hash = ?").run(hashSecret(expired));
    await srv.get('/api/oauth/v2/revoke', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${flow.tokens.refresh_token}` });
    const apiKey = bearerFor(srv, ownerId).secret;
    for (const [what, t] of [['unknown', 'oat_nope'], ['foreign audience', foreign], ['expired', expired], ['revoked', flow.tokens.access_token], ['API key', apiKey]]) {
      const res = await initialize({ Authorization: `Bearer ${t}` });
      expect(res.status, what).toBe(401);
      expect(res.headers.get('www-authenticate'), what).toMatch(/error="invalid_token".*resource_metadata=/);
      await expect(connect({ Authorization: `Bearer ${t}` }), what).rejects.toThrow();
    }
    // The foreign-audience token is not accepted by the REST API either.
    expect((await srv.get('/api/auth/me', { headers: { Authorization: `Bearer ${foreign}` } })).status).toBe(401);
  });
});

describe('with an OAuth access token for /mcp', () => {
  it('lists the tools and calls search', async () => {
    const client = await connect({ Authorization: `Bearer ${token}` });
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(['get_item', 'latest_briefing', 'list_recent', 'search']);
    const result = text(await client.callTool({ name: 'search', arguments: { query: 'Agentic workflow' } }));
    expect(result.hits.length).toBeGreaterThan(0);
    expect(result.hits[0]).toMatchObject({ type: 'knowledge', title: 'Agentic workflow' });
    expect(result.hits[0].url).toMatch(new RegExp(`^${srv.url}/api/knowledge/.+\\?agent=true$`));
    const essays = text(await client.callTool({ name: 'search', arguments: { query: 'AGENTS', types: ['essay'], limit: 2 } }));
    expect(essays.hits.length).toBeGreaterThan(0);
    expect(essays.hits.length).toBeLessThanOrEqual(2);
    expect(essays.hits.every((h: { type: string }) => h.type === 'essay')).toBe(true);
    expect(text(await client.callTool({ name: 'search', arguments: { query: 'zzzqqq xqxqxq' } })).hits).toEqual([]);
    await client.close();
  });

  it('gets items, the briefing and recent items; an unknown item is a tool error', async () => {
    const client = await connect({ Authorization: `Bearer ${token}` });
    const brief = text(await client.callTool({ name: 'latest_briefing', arguments: {} }));
    expect(brief).toHaveProperty('latest_digest');
    const recent = text(await client.callTool({ name: 'list_recent', arguments: { limit: 5 } }));
    expect(recent.items).toHaveLength(5);
    const dates = recent.items.map((i: { date: string }) => i.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const digest = text(await client.callTool({ name: 'get_item', arguments: { type: 'digest', id: brief.latest_digest.date } }));
    expect(digest.content).toContain('# ');
    const missing = await client.callTool({ name: 'get_item', arguments: { type: 'video', id: 'nope' } });
    expect(missing.isError).toBe(true);
    const invalid = await client.callTool({ name: 'get_item', arguments: { type: 'planet', id: 'x' } });
    expect(invalid.isError).toBe(true);
    await client.close();
  });

  it('serves digests, essays and knowledge pages as resources', async () => {
    const client = await connect({ Authorization: `Bearer ${token}` });
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort();
    expect(templates).toEqual(['kb://digests/{date}', 'kb://essays/{slug}', 'kb://knowledge/{slug}']);
    const resources = (await client.listResources()).resources;
    for (const kind of ['digests', 'essays', 'knowledge']) expect(resources.some((r) => r.uri.startsWith(`kb://${kind}/`)), kind).toBe(true);
    const essay = resources.find((r) => r.uri.startsWith('kb://essays/'))!;
    const read = await client.readResource({ uri: essay.uri });
    expect(read.contents[0]).toMatchObject({ uri: essay.uri, mimeType: 'text/markdown' });
    expect((read.contents[0] as { text: string }).text).toMatch(/^# /);
    await expect(client.readResource({ uri: 'kb://knowledge/no-such-page' })).rejects.toThrow();
    await client.close();
  });

  it('is stateless: GET and DELETE are 405, no session id is handed out', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    const init = await initialize(auth);
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect((await srv.get('/mcp', { headers: { ...auth, Accept: 'text/event-stream' } })).status).toBe(405);
    expect((await srv.get('/mcp', { method: 'DELETE', headers: auth })).status).toBe(405);
    expect((await srv.get('/mcp', { headers: { Accept: 'text/event-stream' } })).status).toBe(401);
  });
});

/** An OAuth client provider as an MCP host keeps one; the "browser" step is done by the test. */
class TestProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata() {
    return { client_name: 'MCP SDK client', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe("the MCP SDK's own OAuth flow", () => {
  it('discovers, registers, gets consent and a token from the 401 alone, then calls search', async () => {
    const provider = new TestProvider();
    const url = new URL(`${srv.url}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: 'sdk', version: '1' }).connect(first)).rejects.toThrow(UnauthorizedError);
    expect(provider.info?.client_id).toMatch(/^client_/);
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.origin + authUrl.pathname).toBe(`${srv.url}/api/oauth/v2/authorize`);
    expect(authUrl.searchParams.get('resource')).toBe(`${srv.url}/mcp`);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');

    const { browser } = signedInBrowser(srv, 'sdk-user@example.org');
    const back = await consent(browser, authUrl.href);
    await first.finishAuth(back.searchParams.get('code')!);
    expect(provider.saved?.access_token).toMatch(/^oat_/);
    expect(provider.saved?.refresh_token).toMatch(/^ort_/);

    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const hits = text(await client.callTool({ name: 'search', arguments: { query: 'governance' } })).hits;
    expect(hits.length).toBeGreaterThan(0);
    await client.close();
  });
});
