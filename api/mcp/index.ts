// The Model Context Protocol server at /mcp: Streamable HTTP through the SDK's web-standard transport,
// stateless (a fresh server and transport per POST, JSON answers, no session to keep or steal). Read tools,
// resources and persona prompts for everyone; with an OAuth access token issued for this resource, the
// person's notes, and with its `write` scope the tools that act. Tools in tools.ts (through the HTTP API,
// api.ts), resources in resources.ts, prompts in prompts.ts, who may call in auth.ts.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { cors } from 'hono/cors';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { AppDeps } from '../app.ts';
import { API_VERSION } from '../../src/lib/read/discovery.ts';
import { accessTokenVerifier, mcpResource } from '../oauth/index.ts';
import { authenticateMcp, challenge, type McpAuthOptions } from './auth.ts';
import { registerTools, TOOL_NEEDS, TOOLS } from './tools.ts';
import { registerResources } from './resources.ts';
import { registerPrompts } from './prompts.ts';
import { mcpApiCaller } from './api.ts';
import { nulPath } from '../validation/nul.ts';

/** The id of a single JSON-RPC request, for an error answered before the SDK reads it (null for a batch). */
const jsonRpcId = (body: unknown): string | number | null => {
  const id = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

const writeTools = TOOLS.filter((t) => t.needs === 'write').map((t) => t.name);

export const INSTRUCTIONS =
  'A curated knowledge base on AI transformation (videos, essays, daily digests, knowledge concepts, personas, posts), in English and Slovenian. ' +
  'Start with latest_briefing; search finds items of every kind, get_item reads one in full, related finds neighbours, list_comments reads what people said. ' +
  'Cite items to people by their page_url (the page they can open); url is the JSON for you. ' +
  'Each persona is a prompt (<persona>-<mode>-<lang>). ' +
  `Signed in with an OAuth token you also get list_notes and read_note, and with the write scope the tools that act: ${writeTools.join(', ')}. ` +
  'Calling one of those without the scope answers 401/403 with the OAuth challenge (scope "read write"); a device-flow login with resource=<this /mcp URL> gives such a token too.';

/**
 * @example registerMcp(app, deps) // in createApp
 */
export function registerMcp(app: OpenAPIHono, deps: Pick<AppDeps, 'config' | 'db' | 'identity' | 'content' | 'search'>): void {
  const resource = mcpResource(deps.config.baseUrl);
  const auth: McpAuthOptions = {
    verify: accessTokenVerifier(deps.db, deps.identity, resource),
    resource,
    metadataUrl: `${deps.config.baseUrl}/.well-known/oauth-protected-resource`,
    keyPrefix: deps.identity.keyPrefix,
  };

  function createServer(c: Context, authInfo: AuthInfo | null): McpServer {
    const server = new McpServer({ name: deps.config.siteName, version: API_VERSION }, { instructions: INSTRUCTIONS });
    const call = mcpApiCaller(app, new URL(c.req.url).origin, authInfo?.token, (c.env as { incoming?: unknown } | undefined)?.incoming);
    registerTools(server, { state: deps.content, call }, authInfo ? authInfo.scopes : null);
    registerResources(server, deps.content);
    registerPrompts(server, deps.content);
    return server;
  }

  /**
   * A tool the caller may not use gets the HTTP challenge for the scope it needs (401 without a token, 403
   * insufficient_scope with one), so MCP clients run (or widen) their OAuth sign-in and retry: the MCP
   * authorization spec's step-up. Everything else is for the MCP server.
   */
  function stepUp(body: unknown, authInfo: AuthInfo | null): Response | null {
    for (const msg of Array.isArray(body) ? body : [body]) {
      if (!msg || typeof msg !== 'object' || (msg as { method?: unknown }).method !== 'tools/call') continue;
      const name = (msg as { params?: { name?: unknown } }).params?.name;
      const needs = typeof name === 'string' ? TOOL_NEEDS.get(name) : undefined;
      if (!needs || needs === 'none') continue;
      if (!authInfo) return challenge(401, auth, needs === 'write' ? 'read write' : 'read', undefined, undefined);
      if (!authInfo.scopes.includes(needs)) {
        return challenge(403, auth, `read ${needs}`, 'insufficient_scope', `The tool ${name} needs the ${needs} scope; sign in again asking for scope "read ${needs}"`);
      }
    }
    return null;
  }

  // Browser-based MCP clients call from other origins with a bearer token; there are no cookies to abuse.
  app.use(
    '/mcp',
    cors({
      origin: '*',
      allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Last-Event-ID'],
      exposeHeaders: ['WWW-Authenticate', 'Mcp-Session-Id', 'Mcp-Protocol-Version'],
      maxAge: 86_400,
    }),
  );

  app.openAPIRegistry.registerPath(
    createRoute({
      method: 'post',
      path: '/mcp',
      tags: ['mcp'],
      summary: 'Model Context Protocol (Streamable HTTP, stateless, JSON-RPC); read tools without a token, the rest with an OAuth 2.1 bearer token for this resource',
      request: { body: { content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } } },
      responses: {
        200: { description: 'JSON-RPC response', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
        202: { description: 'Notification accepted' },
        400: { description: 'Not a JSON-RPC message' },
        401: { description: 'An invalid token or an API key, or a tool that needs a token called without one; WWW-Authenticate names the protected resource metadata' },
        403: { description: 'A tool that needs a scope the token lacks (insufficient_scope, with the scope to ask for)' },
        406: { description: 'Accept must name both application/json and text/event-stream (Streamable HTTP)' },
        415: { description: 'Content-Type must be application/json' },
      },
    }),
  );

  app.on(['GET', 'POST', 'DELETE'], '/mcp', async (c) => {
    const authInfo = authenticateMcp(c, auth);
    if (authInfo instanceof Response) return authInfo;
    if (c.req.method !== 'POST') {
      // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
      return c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless; POST JSON-RPC messages' }, id: null }, 405, { Allow: 'POST' });
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: send one JSON-RPC message (or a batch) as JSON with Content-Type: application/json' }, id: null }, 400);
    }
    // Tool arguments reach the stores: no string of them may hold a NUL character (api/validation/nul.ts).
    const nul = nulPath(body);
    if (nul) return c.json({ jsonrpc: '2.0', error: { code: -32602, message: `Invalid params: the text at ${nul.join('.')} contains a NUL character (\\u0000); remove it` }, id: jsonRpcId(body) }, 400);
    const refused = stepUp(body, authInfo);
    if (refused) return refused;
    const server = createServer(c, authInfo);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, { authInfo: authInfo ?? undefined, parsedBody: body });
    } finally {
      // The answer is complete (JSON mode), so the per-request pair can go.
      void transport.close();
      void server.close();
    }
  });
}
