// /mcp answers as the MCP and JSON-RPC specs say (issue 42, item 8), driven by the MCP SDK's own client where
// a client notices: an unknown resource is -32002 (Resource not found) with the URI in its data, JSON that
// is not a JSON-RPC message is -32600 (Invalid Request), an unknown tool a JSON-RPC error rather than a tool
// result; and the transport's Origin rule (DNS rebinding): a page of another origin gets 403, while
// BASE_URL's origin, the origins MCP_ALLOWED_ORIGINS names, and clients that send no Origin are served.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';
import { loadConfig } from '../../../src/lib/config.ts';

const ALLOWED = 'http://inspector.localhost:6274';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { MCP_ALLOWED_ORIGINS: `${ALLOWED}, https://tools.example.org` } });
});
afterAll(() => srv.stop());

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'kb-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers } }));
  return client;
}

/** The JSON-RPC error a call was answered with (through the SDK client). */
async function rpcErrorOf(p: Promise<unknown>): Promise<McpError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
}

const post = (body: string, headers: Record<string, string> = {}) =>
  srv.get('/mcp', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body });
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

describe('errors as the MCP spec has them', () => {
  it('an unknown resource is -32002 Resource not found, with its URI', async () => {
    const client = await connect();
    for (const uri of ['kb://knowledge/no-such-page', 'kb://digests/1999-01-01', 'kb://planets/mars', 'https://elsewhere.example/x']) {
      const err = await rpcErrorOf(client.readResource({ uri }));
      expect(err.code, uri).toBe(-32002);
      expect(err.data, uri).toEqual({ uri });
      expect(err.message, uri).toMatch(/resources\/list/);
    }
    // A known one still reads.
    expect((await client.readResource({ uri: 'kb://knowledge/agentic-workflow' })).contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    await client.close();
  });

  it('an unknown tool is a JSON-RPC error naming the tools, not a tool result', async () => {
    const client = await connect();
    const err = await rpcErrorOf(client.callTool({ name: 'delete_everything', arguments: {} }));
    expect(err.code).toBe(-32602);
    expect(err.message).toMatch(/Unknown tool: delete_everything\. tools\/list gives the tools: search, /);
    await client.close();
    // In a batch, only that message is the error; the others are answered.
    const res = await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope', arguments: {} } },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search', arguments: { query: 'agentic workflow' } } },
      ]),
    );
    expect(res.status).toBe(200);
    const answers = (await res.json()) as { id: number; error?: { code: number }; result?: { isError?: boolean } }[];
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get(1)!.result).toBeDefined();
    expect(byId.get(2)!.error?.code).toBe(-32602);
    expect(byId.get(3)!.result?.isError).toBeFalsy();
  });

  it('JSON that is not a JSON-RPC message is -32600 Invalid Request; what is not JSON stays -32700', async () => {
    for (const body of ['{"jsonrpc":"2.0","id":1}', '{"jsonrpc":"1.0","id":1,"method":"tools/list"}', '{"method":"tools/list","id":1}', '[]', '42', '[{"jsonrpc":"2.0","id":1,"method":7}]']) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      const answer = await res.json();
      expect(answer, body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      expect(answer.error.message, body).toMatch(/^Invalid Request: send a JSON-RPC 2\.0 message/);
    }
    expect((await post('{"jsonrpc":"2.0","id":1}')).status).toBe(400);
    expect(await (await post('{not json')).json()).toMatchObject({ error: { code: -32700 } });
  });
});

describe('Origin (DNS rebinding)', () => {
  it('refuses a page of another origin with 403 before anything else, with or without a token or cookie', async () => {
    const person = await sessionFor(srv, 'origin@example.org');
    // With a session cookie, the site's own cross-site guard answers the 403 first (REST-shaped).
    const withCookie = await post(INITIALIZE, { Origin: 'http://evil.example', Cookie: person.cookie });
    expect(withCookie.status).toBe(403);
    expect(withCookie.headers.get('access-control-allow-origin')).toBeNull();
    for (const headers of [{ Origin: 'http://evil.example' }, { Origin: 'null' }, { Origin: `${srv.url}.evil.example` }]) {
      const res = await post(INITIALIZE, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.headers.get('access-control-allow-origin'), JSON.stringify(headers)).toBeNull();
      const answer = await res.json();
      expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
      expect(answer.error.message).toMatch(/MCP_ALLOWED_ORIGINS/);
    }
    // A tool that needs a token: still the 403, not the 401 challenge.
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'comment', arguments: {} } });
    expect((await post(call, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(call)).status).toBe(401);
    // GET and DELETE too.
    expect((await srv.get('/mcp', { headers: { Origin: 'http://evil.example', Accept: 'text/event-stream' } })).status).toBe(403);
    // The SDK client in a page of that origin cannot connect.
    await expect(connect({ Origin: 'http://evil.example' })).rejects.toThrow();
    // A preflight from there gets no CORS grant, so a browser would not even send the POST.
    const preflight = await srv.get('/mcp', { method: 'OPTIONS', headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the service\'s own origin, the configured ones (with CORS), and clients that send no Origin', async () => {
    for (const origin of [srv.url, ALLOWED, 'https://tools.example.org']) {
      const res = await post(INITIALIZE, { Origin: origin });
      expect(res.status, origin).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), origin).toBe(origin);
      const preflight = await srv.get('/mcp', { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' } });
      expect(preflight.headers.get('access-control-allow-origin'), origin).toBe(origin);
    }
    const page = await connect({ Origin: ALLOWED });
    expect((await page.listTools()).tools.length).toBeGreaterThan(0);
    await page.close();
    const cli = await connect();
    expect((await cli.callTool({ name: 'search', arguments: { query: 'agentic workflow' } })).isError).toBeFalsy();
    await cli.close();
  });

  it('MCP_ALLOWED_ORIGINS takes origins only, and says so', () => {
    const base = { BASE_URL: 'http://localhost:4321', DATA_DIR: '/tmp/unused' };
    expect(loadConfig({ ...base, MCP_ALLOWED_ORIGINS: 'https://A.example.org:443, http://localhost:6274/' }).mcpAllowedOrigins).toEqual(['https://a.example.org', 'http://localhost:6274']);
    expect(loadConfig(base).mcpAllowedOrigins).toEqual([]);
    for (const bad of ['https://a.example.org/path', 'inspector.example.org', 'ftp://a.example.org', 'https://a.example.org?x=1']) {
      expect(() => loadConfig({ ...base, MCP_ALLOWED_ORIGINS: bad }), bad).toThrow(/MCP_ALLOWED_ORIGINS: a comma-separated list of origins/);
    }
  });
});
