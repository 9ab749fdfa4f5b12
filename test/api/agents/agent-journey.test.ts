// Issue 16's "Done when" for agents, end to end: an agent that knows only the base URL reads /llms.txt and
// /api/latest, signs in once through the device flow (a person approves on the /device page in a browser),
// then with that one login comments over HTTP, calls read and write tools through the MCP SDK client and
// chats; every page_url it could cite to a person answers 200 as HTML. The agent finds every endpoint in
// the documents it reads; nothing but the base URL is written into the test.
//
// The server's public origin is http://kb.test (with the prerendered site); the agent's "DNS" sends that
// origin to the test server's address.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';
import { Browser } from '../../helpers/browser.ts';

const BASE_URL = 'http://kb.test';
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ env: { DEVICE_POLL_INTERVAL_SECONDS: '1' } });
});
afterAll(() => srv.stop());

/** The agent's view of the network: the public origin resolves to the test server. */
const resolve = (url: string) => url.replace(BASE_URL, srv.url);
const agentFetch = (url: string, init?: RequestInit) => fetch(resolve(url), init);
const links = (markdown: string) => [...markdown.matchAll(/\]\((https?:\/\/[^)\s]+)\)/g)].map((m) => m[1]);

describe('an agent that knows only the base URL', () => {
  it('reads, signs in once, comments, uses MCP tools and chats, citing pages that exist', async () => {
    const cited = new Set<string>();
    const cite = (url: unknown) => {
      expect(typeof url === 'string' && url.startsWith(`${BASE_URL}/`), String(url)).toBe(true);
      cited.add((url as string).replace(/#.*$/, ''));
    };

    // 1. Discovery: llms.txt names the briefing; the briefing says how to sign in.
    const llms = await (await agentFetch(`${BASE_URL}/llms.txt`)).text();
    const briefingUrl = links(llms).find((l) => l.endsWith('/api/latest'))!;
    const briefing = await (await agentFetch(briefingUrl)).json();
    for (const v of briefing.latest_videos) cite(v.page_url);
    cite(briefing.latest_digest.page_url);
    const login = briefing.access.agent_login.device_flow;
    expect(login.oauth_tokens).toMatchObject({ resource: `${BASE_URL}/mcp`, scope: 'read write' });

    // 2. One sign-in through the device flow, asking for OAuth tokens for every surface.
    const start = await agentFetch(`${BASE_URL}${login.start}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'journey-agent', client_host: 'test-box', resource: login.oauth_tokens.resource, scope: login.oauth_tokens.scope }),
    });
    expect(start.status).toBe(200);
    const device = await start.json();
    // The person opens the link the agent shows them, in a browser where they are signed in, and approves.
    const person = await sessionFor(srv, 'journey-person@example.org', 'Jo Person');
    const browser = new Browser(srv.url);
    browser.cookies.set('kb_session', person.cookie.slice('kb_session='.length));
    const pageUrl = resolve(device.verification_uri_complete);
    const page = await browser.request(pageUrl);
    const html = await page.text();
    expect(html).toContain('journey-agent');
    const approved = await browser.submit(html, pageUrl, /^\/device$/, { action: 'approve' });
    expect(approved.status).toBe(200);
    expect(await approved.text()).toMatch(/Device approved/);
    let tokens: Record<string, string> | undefined;
    for (let i = 0; i < 10 && !tokens; i++) {
      const poll = await agentFetch(`${BASE_URL}${login.token}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: login.grant_type, device_code: device.device_code }) });
      if (poll.status === 200) tokens = await poll.json();
      else {
        expect((await poll.json()).error).toMatch(/authorization_pending|slow_down/);
        await new Promise((r) => setTimeout(r, device.interval * 1000));
      }
    }
    expect(tokens?.access_token).toMatch(/^oat_/);
    const auth = { Authorization: `Bearer ${tokens!.access_token}` };

    // 3. Comment through HTTP with that login.
    const video = briefing.latest_videos[0];
    const comment = await agentFetch(`${BASE_URL}/api/comments`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ entity_type: 'video', entity_id: video.video_id, body: 'Noted by an agent over HTTP.' }),
    });
    expect(comment.status).toBe(201);

    // 4. MCP through the SDK client, with the same token: read tools and a write tool.
    const mcp = new Client({ name: 'journey-agent', version: '1' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(resolve(briefing.agent.mcp)), { requestInit: { headers: auth } }));
    const tools = (await mcp.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['search', 'get_item', 'comment']));
    const found = (await mcp.callTool({ name: 'search', arguments: { query: 'governance', limit: 5 } })).structuredContent as { hits: { type: string; id: string; page_url: string }[] };
    expect(found.hits.length).toBeGreaterThan(0);
    for (const h of found.hits) cite(h.page_url);
    const item = (await mcp.callTool({ name: 'get_item', arguments: { type: found.hits[0].type, id: found.hits[0].id } })).structuredContent as { page_url: string };
    cite(item.page_url);
    const written = await mcp.callTool({ name: 'comment', arguments: { entity_type: found.hits[0].type, entity_id: found.hits[0].id, body: 'Noted by an agent through MCP.' } });
    expect(written.isError).toBeFalsy();
    cite((written.structuredContent as { page_url: string }).page_url);
    await mcp.close();

    // 5. Chat with the same token: the agent card names the endpoint, the persona list who answers.
    const card = await (await agentFetch(links(llms).find((l) => l.endsWith('/.well-known/agent.json'))!)).json();
    const personas = await (await agentFetch(links(llms).find((l) => l.endsWith('/api/personas'))!)).json();
    const chat = await agentFetch(card.endpoints.chat, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ persona_id: personas.items[0].persona_id, lang: 'en', messages: [{ role: 'user', content: 'What does AI governance ask of a company?' }] }),
    });
    expect(chat.status).toBe(200);
    const answer = await chat.json();
    expect(answer.sources.length).toBeGreaterThan(0);
    for (const s of answer.sources) cite(s.page_url);

    // 6. Everything it would cite is a page a person can open.
    expect(cited.size).toBeGreaterThan(10);
    const broken: string[] = [];
    for (const url of cited) {
      const res = await agentFetch(url, { headers: { Accept: 'text/html' } });
      if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/html')) broken.push(`${url}: ${res.status} ${res.headers.get('content-type')}`);
    }
    expect(broken).toEqual([]);
  });
});
