// The MCP resource at /mcp, driven by the MCP SDK's own client over Streamable HTTP: every tool listed to
// everyone with what it needs (issue 42, item 7), read tools, resources and persona prompts without a
// token; API keys and bad tokens refused; the SDK's complete OAuth flow
// (protected-resource metadata → registration → consent → token) for a read-only and a read-write token;
// the tools that act go through the HTTP routes (their audit events, limits and errors); tool quality
// (descriptions, output schemas, structured content, absolute URLs, hints).
import * as oauth from 'oauth4webapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor, sessionFor } from '../../helpers/auth.ts';
import { hashSecret } from '../../../src/lib/data/secrets.ts';
import { consent, discover, fullFlow, signedInBrowser } from '../oauth/helpers.ts';
import { SdkOAuthProvider } from '../oauth/sdk-provider.ts';
import { connect as connectNotes, person } from '../personal-knowledge/helpers.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { WRITE_RATE_LIMIT_PER_MINUTE: '10000' } });
  as = await discover(srv);
});
afterAll(() => srv.stop());

const READ_TOOLS = ['get_item', 'latest_briefing', 'list_comments', 'list_recent', 'related', 'search'];
const NOTE_TOOLS = ['list_notes', 'read_note'];
const WRITE_TOOLS = ['comment', 'draft_post', 'edit_post_essay', 'flag_proposal', 'react', 'submit_post', 'write_note'];
const ALL_TOOLS = [...READ_TOOLS, ...NOTE_TOOLS, ...WRITE_TOOLS].sort();

// Clients list the tools first: the SDK client then checks every result's structuredContent against the
// tool's output schema, as MCP hosts do.
async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'kb-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers } }));
  await client.listTools();
  return client;
}

const rpc = (body: unknown, headers: Record<string, string> = {}) =>
  srv.get('/mcp', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
const initialize = (headers: Record<string, string> = {}) =>
  rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }, headers);
const callRaw = (name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) =>
  rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } }, headers);

type Result = CallToolResult & { structuredContent?: Record<string, any> };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Result;
const ok = (r: Result) => {
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  expect(r.structuredContent).toBeDefined();
  // The text is the same JSON, for clients that read only text.
  expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent);
  return r.structuredContent!;
};
const errorText = (r: Result) => {
  expect(r.isError).toBe(true);
  return (r.content[0] as { text: string }).text;
};

/** Every string field named url or *_url in a value, with where it is. */
function urls(value: unknown, at = '$'): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => urls(v, `${at}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (typeof v === 'string' && (k === 'url' || k.endsWith('_url')) ? [[`${at}.${k}`, v] as [string, string]] : urls(v, `${at}.${k}`)));
}
const expectAbsolute = (value: unknown) => {
  for (const [where, u] of urls(value)) expect(u, where).toMatch(/^https?:\/\//);
};

/** The SDK's own OAuth flow for `scope`, the person consenting in a browser; returns the provider with its tokens. */
async function sdkSignIn(email: string, scope: string): Promise<SdkOAuthProvider> {
  const provider = new SdkOAuthProvider({ scope });
  const serverUrl = new URL(`${srv.url}/mcp`);
  expect(await auth(provider, { serverUrl, scope })).toBe('REDIRECT');
  const authUrl = provider.authorizationUrl!;
  expect(authUrl.searchParams.get('resource')).toBe(`${srv.url}/mcp`);
  expect(authUrl.searchParams.get('scope')).toBe(scope);
  const { browser } = await signedInBrowser(srv, email);
  const back = await consent(browser, authUrl.href);
  expect(await auth(provider, { serverUrl, scope, authorizationCode: back.searchParams.get('code')! })).toBe('AUTHORIZED');
  expect(provider.saved?.access_token).toMatch(/^oat_/);
  expect(provider.saved?.scope).toBe(scope);
  return provider;
}

const sdkClient = async (provider: SdkOAuthProvider) => {
  const client = new Client({ name: 'sdk', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { authProvider: provider }));
  await client.listTools();
  return client;
};

describe('without a token', () => {
  it('serves the read tools, resources and persona prompts, as the same reads are anonymous over HTTP', async () => {
    const client = await connect();
    expect(client.getInstructions()).toMatch(/page_url/);
    const hits = ok(await call(client, 'search', { query: 'Agentic workflow' })).hits;
    expect(hits[0]).toMatchObject({ type: 'knowledge', title: 'Agentic workflow' });
    expect(hits[0].url).toMatch(new RegExp(`^${srv.url}/api/knowledge/.+\\?agent=true$`));
    expect(hits[0].page_url).toMatch(new RegExp(`^${srv.url}/knowledge/`));
    await client.close();
  });

  it('lists every tool, each saying whether it needs sign-in and which scope', async () => {
    const client = await connect();
    const tools = (await client.listTools()).tools;
    await client.close();
    expect(tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
    const schemes = (name: string) => (tools.find((t) => t.name === name)!._meta as { securitySchemes?: unknown } | undefined)?.securitySchemes;
    for (const name of READ_TOOLS) {
      expect(schemes(name), name).toEqual([{ type: 'noauth' }]);
      expect(tools.find((t) => t.name === name)!.description, name).not.toMatch(/Needs sign-in/);
    }
    for (const name of NOTE_TOOLS) {
      expect(schemes(name), name).toEqual([{ type: 'oauth2', scopes: ['read'] }]);
      expect(tools.find((t) => t.name === name)!.description, name).toMatch(/Needs sign-in: an OAuth access token for this MCP server with scope "read"/);
    }
    for (const name of WRITE_TOOLS) {
      expect(schemes(name), name).toEqual([{ type: 'oauth2', scopes: ['read', 'write'] }]);
      expect(tools.find((t) => t.name === name)!.description, name).toMatch(/Needs sign-in: an OAuth access token for this MCP server with scope "read write".*HTTP 401/);
    }
  });

  it('answers a tool that acts with the OAuth challenge for the write scope', async () => {
    const res = await callRaw('comment', { entity_type: 'video', entity_id: 'x', body: 'hi' });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toContain(`resource_metadata="${srv.url}/.well-known/oauth-protected-resource"`);
    expect(challenge).toContain('scope="read write"');
    expect((await res.json()).hint).toMatch(/device flow/);
    expect((await callRaw('list_notes', {})).status).toBe(401);
    // The metadata offers both scopes.
    const meta = await (await srv.get('/.well-known/oauth-protected-resource')).json();
    expect(meta).toMatchObject({ resource: `${srv.url}/mcp`, scopes_supported: ['read', 'write'] });
  });

  it('refuses unknown, revoked and expired tokens, tokens of another audience, and API keys', async () => {
    const flow = await fullFlow(srv, as, { email: 'mcp-user@example.org' });
    const foreign = 'oat_' + 'f'.repeat(43);
    await srv.db
      .prepare("INSERT INTO oauth_tokens (token_hash, grant_id, kind, scope, resource, created_at, expires_at) SELECT ?, grant_id, 'access', 'read', 'https://other.example/mcp', created_at, expires_at FROM oauth_tokens WHERE kind = 'access' LIMIT 1")
      .run(hashSecret(foreign));
    const expired = (await fullFlow(srv, as)).tokens.access_token;
    await srv.db.prepare("UPDATE oauth_tokens SET expires_at = '2000-01-01T00:00:00.000Z' WHERE token_hash = ?").run(hashSecret(expired));
    await srv.get('/api/oauth/v2/revoke', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${flow.tokens.refresh_token}` });
    const apiKey = (await bearerFor(srv, flow.userId)).secret;
    for (const [what, t] of [['unknown', 'oat_nope'], ['foreign audience', foreign], ['expired', expired], ['revoked', flow.tokens.access_token], ['API key', apiKey]]) {
      const res = await initialize({ Authorization: `Bearer ${t}` });
      expect(res.status, what).toBe(401);
      expect(res.headers.get('www-authenticate'), what).toMatch(/error="invalid_token".*resource_metadata=/);
      await expect(connect({ Authorization: `Bearer ${t}` }), what).rejects.toThrow();
    }
    expect((await srv.get('/api/auth/me', { headers: { Authorization: `Bearer ${foreign}` } })).status).toBe(401);
  });

  it('is stateless: GET and DELETE are 405, no session id is handed out', async () => {
    const init = await initialize();
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect((await srv.get('/mcp', { headers: { Accept: 'text/event-stream' } })).status).toBe(405);
    expect((await srv.get('/mcp', { method: 'DELETE' })).status).toBe(405);
    expect((await srv.get('/mcp', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{not json' })).status).toBe(400);
  });
});

describe('read tools', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(() => client.close());

  it('search covers every type the HTTP search covers, personas and posts included, and says how it counted', async () => {
    const all = ok(await call(client, 'search', { query: 'governance', limit: 50 }));
    expect(all.total).toBeGreaterThan(0);
    expect(typeof all.total_exact).toBe('boolean');
    expect(all.embedder).toMatchObject({ name: expect.any(String) });
    const personas = ok(await call(client, 'search', { query: 'governance counsel', types: ['persona'] })).hits;
    expect(personas[0]).toMatchObject({ type: 'persona', id: 'governance-counsel' });
    expect(personas[0].page_url).toBe(`${srv.url}/personas/governance-counsel`);
    // A published post is found too.
    const owner = await sessionFor(srv, 'poster@example.org');
    const created = await (await srv.get('/api/posts', { method: 'POST', headers: { ...owner.headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'Zanzibar onboarding for agents', summary: 'How we onboard agents.', body: 'Zanzibar '.repeat(40) }) })).json();
    expect((await srv.get(`/api/posts/${created.post_id}/submit`, { method: 'POST', headers: owner.headers })).status).toBe(202);
    const posts = ok(await call(client, 'search', { query: 'Zanzibar onboarding', types: ['post'] })).hits;
    expect(posts[0]).toMatchObject({ type: 'post', id: created.post_id, page_url: `${srv.url}/posts/${created.slug}` });
    expect(ok(await call(client, 'search', { query: 'zzzqqq xqxqxq' })).hits).toEqual([]);
  });

  it('reads items, the briefing, recent and related items and comments, every link absolute', async () => {
    const brief = ok(await call(client, 'latest_briefing'));
    expectAbsolute(brief);
    // Paths that are not named *url, and links inside Markdown, are absolute too.
    expect(brief.featured_essay.thumbnail).toMatch(new RegExp(`^${srv.url}/api/essays/`));
    expect(brief.explore.all_videos).toBe(`${srv.url}/api/videos`);
    expect(brief.latest_digest.content).not.toMatch(/\]\(\//);
    expect(brief.latest_digest.content).toMatch(new RegExp(`\\]\\(${srv.url}/videos/`));
    expect(brief.latest_digest.page_url).toBe(`${srv.url}/digests/${brief.latest_digest.date}`);
    const digest = ok(await call(client, 'get_item', { type: 'digest', id: brief.latest_digest.date }));
    expect(digest).toMatchObject({ type: 'digest', page_url: `${srv.url}/digests/${brief.latest_digest.date}` });
    expect(digest.item.content).toContain('# ');
    expectAbsolute(digest);
    const recent = ok(await call(client, 'list_recent', { limit: 5 })).items;
    expect(recent).toHaveLength(5);
    expect([...recent.map((i: { date: string }) => i.date)].sort().reverse()).toEqual(recent.map((i: { date: string }) => i.date));
    expectAbsolute(recent);
    const video = brief.latest_videos[0];
    const related = ok(await call(client, 'related', { type: 'video', id: video.video_id, k: 3 }));
    expect(related.item.page_url).toBe(`${srv.url}/videos/${video.video_id}`);
    expect(related.hits.length).toBeLessThanOrEqual(3);
    expectAbsolute(related);
    const commenter = await sessionFor(srv, 'commenter@example.org');
    const posted = await (await srv.get('/api/comments', { method: 'POST', headers: { ...commenter.headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ entity_type: 'video', entity_id: video.video_id, body: 'Seen over HTTP' }) })).json();
    const comments = ok(await call(client, 'list_comments', { entity_type: 'video', entity_id: video.video_id }));
    const mine = comments.items.find((c: { comment_id: string }) => c.comment_id === posted.comment_id);
    expect(mine).toMatchObject({ body: 'Seen over HTTP', page_url: `${srv.url}/videos/${video.video_id}#comment-${posted.comment_id}` });
  });

  it('says how to fix a bad call', async () => {
    expect(errorText(await call(client, 'get_item', { type: 'planet', id: 'x' }))).toMatch(/type must be one of video, knowledge, essay, digest, persona, post at type/);
    expect(errorText(await call(client, 'get_item', { type: 'video' }))).toMatch(/id is required/);
    expect(errorText(await call(client, 'search', { query: '' }))).toMatch(/query must not be empty/);
    expect(errorText(await call(client, 'search', { query: 'x', limit: 500 }))).toMatch(/limit must be at most 50/);
    const missing = errorText(await call(client, 'get_item', { type: 'video', id: 'nope' }));
    expect(missing).toMatch(/HTTP 404: Video not found\. To fix the call: .*\/api\/search/);
    expect(errorText(await call(client, 'list_comments', { entity_type: 'video', entity_id: 'nope' }))).toMatch(/To fix the call/);
  });

  it('describes every input field, declares output schemas and read-only or destructive hints', async () => {
    const write = await sdkClient(await sdkSignIn('schema-reader@example.org', 'read write'));
    const tools = (await write.listTools()).tools;
    await write.close();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...NOTE_TOOLS, ...WRITE_TOOLS].sort());
    for (const t of tools) {
      for (const [field, schema] of Object.entries(t.inputSchema.properties ?? {})) expect((schema as { description?: string }).description, `${t.name}.${field}`).toBeTruthy();
      expect(t.outputSchema, t.name).toBeDefined();
      expect(t.title, t.name).toBeTruthy();
      expect(typeof t.annotations?.readOnlyHint, t.name).toBe('boolean');
      expect(typeof t.annotations?.destructiveHint, t.name).toBe('boolean');
      expect(t.annotations?.readOnlyHint, t.name).toBe([...READ_TOOLS, ...NOTE_TOOLS].includes(t.name));
    }
    expect(tools.find((t) => t.name === 'flag_proposal')!.annotations!.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === 'comment')!.annotations!.destructiveHint).toBe(false);
  });
});

describe('resources and prompts', () => {
  it('lists resources with the identifier as name and the item\'s title as title', async () => {
    const client = await connect();
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort();
    expect(templates).toEqual(['kb://digests/{date}', 'kb://essays/{slug}', 'kb://knowledge/{slug}']);
    const resources = (await client.listResources()).resources;
    const concept = resources.find((r) => r.uri === 'kb://knowledge/agentic-workflow')!;
    expect(concept).toMatchObject({ name: 'agentic-workflow', title: 'Agentic workflow', mimeType: 'text/markdown' });
    expect(concept.description).toContain(`${srv.url}/knowledge/agentic-workflow`);
    const digest = resources.find((r) => r.uri.startsWith('kb://digests/'))!;
    expect(digest.name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(digest.title).not.toContain(digest.name);
    const read = await client.readResource({ uri: concept.uri });
    expect((read.contents[0] as { text: string }).text).toMatch(/^# /);
    await expect(client.readResource({ uri: 'kb://knowledge/no-such-page' })).rejects.toThrow(/resources\/list/);
    await client.close();
  });

  it('offers each persona as a prompt per mode and language, built from its modelfile', async () => {
    const client = await connect();
    const prompts = (await client.listPrompts()).prompts;
    const personas = (await (await srv.get('/api/personas')).json()).items as { persona_id: string; modes: string[]; languages: string[] }[];
    const expected = personas.flatMap((p) => p.modes.flatMap((m) => p.languages.map((l) => `${p.persona_id}-${m}-${l}`))).sort();
    expect(prompts.map((p) => p.name).sort()).toEqual(expected);
    expect(expected.length).toBe(personas.length * 4);
    const name = `${personas[0].persona_id}-chat-sl`;
    const modelfile = (await (await srv.get(`/api/personas/modelfiles/${personas[0].persona_id}/chat/sl`)).json()).modelfile as string;
    const system = /SYSTEM """\n?([\s\S]*?)\n?"""/.exec(modelfile)![1].trim().split('\n')[0];
    const got = await client.getPrompt({ name, arguments: { question: 'Kaj je agentni potek dela?' } });
    const text = (got.messages[0].content as { text: string }).text;
    expect(text).toContain(system);
    expect(text).toMatch(/Answer in Slovenian/);
    expect(text).toMatch(/Question: Kaj je agentni potek dela\?$/);
    expect(prompts.find((p) => p.name === name)!.title).toMatch(/\(chat, Slovenian\)$/);
    await client.close();
  });
});

describe('with a read-only token from the SDK\'s OAuth flow', () => {
  it('uses the person\'s notes; calling a tool that acts is 403 insufficient_scope', async () => {
    const provider = await sdkSignIn('reader@example.org', 'read');
    const client = await sdkClient(provider);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
    // Not connected to a note store yet: the route's 404 and its hint, as a tool error.
    expect(errorText(await call(client, 'list_notes'))).toMatch(/^HTTP 404/);
    await client.close();
    const res = await callRaw('comment', { entity_type: 'video', entity_id: 'x', body: 'hi' }, { Authorization: `Bearer ${provider.saved!.access_token}` });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope".*scope="read write"/);
    // Through the SDK client, the same call is refused before anything is written.
    const again = await sdkClient(provider);
    await expect(call(again, 'comment', { entity_type: 'video', entity_id: 'x', body: 'hi' })).rejects.toThrow(/403|insufficient_scope/);
    await again.close();
  });
});

describe('with a read-write token from the SDK\'s OAuth flow', () => {
  let client: Client;
  let userId: string;
  let token: string;
  beforeAll(async () => {
    const provider = await sdkSignIn('writer@example.org', 'read write');
    token = provider.saved!.access_token;
    userId = (await (await srv.get('/api/auth/me', { headers: { Authorization: `Bearer ${token}` } })).json()).user.id;
    client = await sdkClient(provider);
  });
  afterAll(() => client.close());

  const auditOf = (kind: string, subjectId: string) => srv.db.prepare('SELECT kind FROM audit_events WHERE kind = ? AND subject_id = ?').all(kind, subjectId);

  it('comments and reacts through the HTTP routes: the comment is public, audited, and limited like any other', async () => {
    const video = (await (await srv.get('/api/videos?limit=1')).json()).items[0];
    const c = ok(await call(client, 'comment', { entity_type: 'video', entity_id: video.video_id, body: 'Written through MCP' }));
    expect(c).toMatchObject({ body: 'Written through MCP', author: { id: userId }, page_url: `${srv.url}/videos/${video.video_id}#comment-${c.comment_id}` });
    expect(await auditOf('comment.create', c.comment_id)).toHaveLength(1);
    const listed = await (await srv.get(`/api/comments?entity_type=video&entity_id=${video.video_id}`)).json();
    expect(listed.items.map((x: { comment_id: string }) => x.comment_id)).toContain(c.comment_id);
    const r = ok(await call(client, 'react', { comment_id: c.comment_id, kind: 'insightful' }));
    expect(r).toMatchObject({ counts: { insightful: 1 }, mine: ['insightful'] });
    expect(ok(await call(client, 'react', { comment_id: c.comment_id, kind: 'insightful', undo: true })).counts.insightful).toBe(0);
    // The route's checks: an unknown item is its 404, with the route's hint.
    expect(errorText(await call(client, 'comment', { entity_type: 'video', entity_id: 'no-such-video', body: 'x' }))).toMatch(/HTTP 404: No video with id no-such-video\. To fix the call/);
    expect(errorText(await call(client, 'comment', { entity_type: 'video', entity_id: video.video_id, body: 'x'.repeat(10_001) }))).toMatch(/body has at most 10000 characters/);
  });

  it('drafts, edits and submits a post, with the route\'s checks and hints', async () => {
    const draft = ok(await call(client, 'draft_post', { title: 'Agents at the help desk', summary: 'What changed when agents took the first line.', tags: ['agents'], body: 'Too short.' }));
    expect(draft).toMatchObject({ status: 'draft', page_url: `${srv.url}/posts/${draft.slug}` });
    expectAbsolute(draft);
    const refused = errorText(await call(client, 'submit_post', { post_id: draft.post_id }));
    expect(refused).toMatch(/HTTP 409: The post cannot be submitted yet: the essay is shorter than 200 characters/);
    expect(refused).toMatch(/PUT \/api\/posts\/.+\/essay/);
    const stale = errorText(await call(client, 'edit_post_essay', { post_id: draft.post_id, body: 'x' }));
    expect(stale).toMatch(/HTTP 428/);
    const saved = ok(await call(client, 'edit_post_essay', { post_id: draft.post_id, body: 'The help desk changed. '.repeat(12), etag: draft.essay_etag }));
    expect(saved.revision).toBe(2);
    const published = ok(await call(client, 'submit_post', { post_id: draft.post_id }));
    expect(published.status).toBe('published');
    expect((await auditOf('post.submit', draft.post_id)).length).toBeGreaterThan(0);
  });

  it('flags someone else\'s proposal, but not its own', async () => {
    const other = await sessionFor(srv, 'proposer@example.org');
    const video = (await (await srv.get('/api/videos?limit=1')).json()).items[0];
    const proposal = { kind: 'tag_correction', title: 'Retag', payload: { target: { type: 'video', id: video.video_id }, add: ['agents'], remove: [] } };
    const theirs = await srv.get('/api/proposals', { method: 'POST', headers: { ...other.headers, 'Content-Type': 'application/json' }, body: JSON.stringify(proposal) });
    expect(theirs.status, await theirs.clone().text()).toBe(201);
    const pid = (await theirs.json()).proposal_id;
    expect(ok(await call(client, 'flag_proposal', { proposal_id: pid, reason: 'wrong tag' }))).toMatchObject({ proposal_id: pid, flags: 1 });
    expect(errorText(await call(client, 'flag_proposal', { proposal_id: pid }))).toMatch(/HTTP 409: You have already flagged/);
    const mine = await srv.get('/api/proposals', { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ ...proposal, title: 'Mine' }) });
    expect(errorText(await call(client, 'flag_proposal', { proposal_id: (await mine.json()).proposal_id }))).toMatch(/HTTP 403: You cannot flag your own proposal/);
  });

  it('reads and writes the person\'s notes once a note store is connected', async () => {
    const p = await person(srv, 'writer@example.org');
    expect(p.userId).toBe(userId);
    expect(await connectNotes(p)).toBe('/account?pk=connected');
    const created = ok(await call(client, 'write_note', { slug: 'mcp-note', content: '# From MCP\n', base_blob: null }));
    expect(created).toMatchObject({ action: 'create', pushed: true });
    expect(ok(await call(client, 'list_notes')).items.map((n: { slug: string }) => n.slug)).toContain('mcp-note');
    const note = ok(await call(client, 'read_note', { slug: 'mcp-note' }));
    expect(note).toMatchObject({ content: '# From MCP\n', blob: created.blob });
    const conflict = errorText(await call(client, 'write_note', { slug: 'mcp-note', content: 'again' }));
    expect(conflict).toMatch(/HTTP 428.*base_blob/);
    expect(ok(await call(client, 'write_note', { slug: 'mcp-note', content: '# Changed\n', base_blob: note.blob })).action).toBe('update');
  });
});

describe('the MCP SDK\'s own OAuth flow from the challenge', () => {
  it('discovers, registers, gets consent and a token when a tool needs one, then acts', async () => {
    const provider = new SdkOAuthProvider();
    const url = new URL(`${srv.url}/mcp`);
    // Connecting needs nothing, and the tool that acts is listed (a host offers only listed tools); its
    // call's 401 starts the sign-in, asking for the scope it named.
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    const anon = new Client({ name: 'sdk', version: '1' });
    await anon.connect(first);
    const listed = (await anon.listTools()).tools.find((t) => t.name === 'comment');
    expect(listed?._meta?.securitySchemes).toEqual([{ type: 'oauth2', scopes: ['read', 'write'] }]);
    expect(provider.saved).toBeUndefined();
    await expect(anon.callTool({ name: 'comment', arguments: { entity_type: 'video', entity_id: 'x', body: 'x' } })).rejects.toThrow(UnauthorizedError);
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.origin + authUrl.pathname).toBe(`${srv.url}/api/oauth/v2/authorize`);
    expect(authUrl.searchParams.get('scope')).toBe('read write');
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    const { browser } = await signedInBrowser(srv, 'sdk-user@example.org');
    const back = await consent(browser, authUrl.href);
    await first.finishAuth(back.searchParams.get('code')!);
    expect(provider.saved?.refresh_token).toMatch(/^ort_/);
    const client = await sdkClient(provider);
    const video = (await (await srv.get('/api/videos?limit=1')).json()).items[0];
    expect(ok(await call(client, 'comment', { entity_type: 'video', entity_id: video.video_id, body: 'After the step-up' })).body).toBe('After the step-up');
    await client.close();
    await anon.close();
  });
});

describe('limits are the routes\' own', () => {
  it('a write past the per-person rate is the route\'s 429 with its hint', async () => {
    const limited = await startTestServer({ ownOrigin: true, env: { WRITE_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const lAs = await discover(limited);
      const { tokens } = await fullFlow(limited, lAs, { email: 'fast@example.org', scope: 'read write' });
      const client = new Client({ name: 'kb-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${limited.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } } }));
      await client.listTools();
      const video = (await (await limited.get('/api/videos?limit=1')).json()).items[0];
      const args = { entity_type: 'video', entity_id: video.video_id, body: 'quick' };
      ok(await call(client, 'comment', args));
      ok(await call(client, 'comment', args));
      expect(errorText(await call(client, 'comment', args))).toMatch(/HTTP 429: .*Retry-After/);
      await client.close();
    } finally {
      await limited.stop();
    }
  });
});
