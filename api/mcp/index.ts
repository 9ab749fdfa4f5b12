// The Model Context Protocol server at /mcp: Streamable HTTP through the SDK's web-standard transport,
// stateless (a fresh server and transport per POST, JSON answers, no session to keep or steal). Every tool
// is listed to everyone, each saying what it needs; the read tools, resources and persona prompts work for
// everyone, the person's notes with an OAuth access token issued for this resource, and the tools that
// act with its `write` scope (a call without them gets the HTTP challenge that starts the client's OAuth).
// Browser pages of other origins are refused (the transport spec's DNS-rebinding defence). Tools in
// tools/ (through the HTTP API, api.ts), resources in resources.ts, prompts in prompts.ts, who may call
// in auth.ts.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { cors } from 'hono/cors';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { ErrorCode, isJSONRPCRequest, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AppDeps } from '../deps.ts';
import { API_VERSION } from '../../src/lib/read/discovery/shared.ts';
import { accessTokenVerifier, mcpResource } from '../oauth/index.ts';
import { authenticateMcp, challenge, type McpAuthOptions } from './auth.ts';
import { registerTools, TOOL_NEEDS, TOOLS } from './tools/index.ts';
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

/** A JSON-RPC error answered before the SDK reads the message (`id` null when it could not be read). */
const rpcError = (code: number, message: string, id: string | number | null = null) => ({ jsonrpc: '2.0' as const, error: { code, message }, id });

/** The body is one JSON-RPC 2.0 message, or a non-empty batch of them. */
function isJsonRpc(body: unknown): boolean {
  const list = Array.isArray(body) ? body : [body];
  return list.length > 0 && list.every((m) => JSONRPCMessageSchema.safeParse(m).success);
}

export const INSTRUCTIONS =
  'A curated knowledge base on AI transformation (videos, essays, daily digests, knowledge concepts, personas, posts), in English and Slovenian. ' +
  'Start with latest_briefing; search finds items of every kind, get_item reads one in full, related finds neighbours, list_comments reads what people said. ' +
  'Cite items to people by their page_url (the page they can open); url is the JSON for you. ' +
  'Each persona is a prompt (<persona>-<mode>-<lang>). ' +
  `Every tool is listed to everyone; list_notes and read_note need an OAuth token for this resource (scope read), and the tools that act its write scope: ${writeTools.join(', ')} ` +
  '(each says so in its description and in _meta.securitySchemes). ' +
  'Calling one of those without the scope answers HTTP 401/403 with the OAuth challenge (scope "read write"); a device-flow login with resource=<this /mcp URL> gives such a token too.';

type McpDeps = Pick<AppDeps, 'config' | 'db' | 'identity' | 'content' | 'search'>;

/**
 * @example registerMcp(app, deps) // in createApp
 */
export function registerMcp(app: OpenAPIHono, deps: McpDeps): void {
  const resource = mcpResource(deps.config.baseUrl);
  const auth: McpAuthOptions = {
    verify: accessTokenVerifier(deps.db, deps.identity, resource),
    resource,
    metadataUrl: `${deps.config.baseUrl}/.well-known/oauth-protected-resource`,
    keyPrefix: deps.identity.keyPrefix,
  };

  /** Pages of these origins may call; any other Origin is refused. Non-browser clients send none. */
  const allowedOrigins = new Set([new URL(deps.config.baseUrl).origin, ...deps.config.mcpAllowedOrigins]);

  // Browser pages call /mcp only from this site's origin or one MCP_ALLOWED_ORIGINS names (the handler
  // refuses the others); they send a bearer token, never a cookie.
  app.use(
    '/mcp',
    cors({
      origin: (origin) => (allowedOrigins.has(origin) ? origin : null),
      allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Last-Event-ID'],
      exposeHeaders: ['WWW-Authenticate', 'Mcp-Session-Id', 'Mcp-Protocol-Version'],
      maxAge: 86_400,
    }),
  );

  describeMcp(app);
  app.on(['GET', 'POST', 'DELETE'], '/mcp', (c) => handleMcp(c, { app, deps, auth, allowedOrigins }));
}

/** /mcp in the OpenAPI document: the endpoint is the SDK's, not a validated route. */
function describeMcp(app: OpenAPIHono): void {
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
        400: { description: 'Not JSON (-32700) or not a JSON-RPC 2.0 message (-32600 Invalid Request)' },
        401: { description: 'An invalid token or an API key, or a tool that needs a token called without one; WWW-Authenticate names the protected resource metadata' },
        403: {
          description:
            'A tool that needs a scope the token lacks (insufficient_scope, with the scope to ask for); or an Origin header that is neither BASE_URL\'s nor in MCP_ALLOWED_ORIGINS (a JSON-RPC error, DNS-rebinding defence)',
        },
        406: { description: 'Accept must name both application/json and text/event-stream (Streamable HTTP)' },
        415: { description: 'Content-Type must be application/json' },
      },
    }),
  );
}

/**
 * One request to /mcp: the Origin and credential checks, the JSON-RPC checks answered before the SDK, the
 * scope step-up, then a fresh server and transport for this request alone.
 */
async function handleMcp(
  c: Context,
  { app, deps, auth, allowedOrigins }: { app: OpenAPIHono; deps: McpDeps; auth: McpAuthOptions; allowedOrigins: Set<string> },
): Promise<Response> {
  // The transport spec: servers MUST validate Origin, against DNS rebinding (a page of another site
  // reaching a server on this machine or network). No Origin: not a browser page.
  const origin = c.req.header('origin');
  if (origin !== undefined && !allowedOrigins.has(origin)) {
    return c.json(
      rpcError(-32000, `Forbidden: pages of the origin ${origin} may not call this MCP server. Call it from ${[...allowedOrigins].join(' or ')}, or without an Origin header (any non-browser client); the operator can allow more origins with MCP_ALLOWED_ORIGINS`),
      403,
    );
  }
  const authInfo = await authenticateMcp(c, auth);
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
  // JSON that is not a JSON-RPC 2.0 message is an Invalid Request (JSON-RPC 2.0 §5.1), not a parse error.
  if (!isJsonRpc(body)) {
    return c.json(
      rpcError(ErrorCode.InvalidRequest, 'Invalid Request: send a JSON-RPC 2.0 message: {"jsonrpc":"2.0","id":1,"method":"tools/list"} (a request has a string method and a string or number id; a notification has no id)', jsonRpcId(body)),
      400,
    );
  }
  const refused = stepUp(body, authInfo, auth);
  if (refused) return refused;
  const server = createServer(app, deps, c, authInfo);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  refuseUnknownTools(transport);
  try {
    return await transport.handleRequest(c.req.raw, { authInfo: authInfo ?? undefined, parsedBody: body });
  } finally {
    // The answer is complete (JSON mode), so the per-request pair can go.
    void transport.close();
    void server.close();
  }
}

/** The MCP server for one request: its tools call the HTTP API with the caller's token. */
function createServer(app: OpenAPIHono, deps: McpDeps, c: Context, authInfo: AuthInfo | null): McpServer {
  const server = new McpServer({ name: deps.config.siteName, version: API_VERSION }, { instructions: INSTRUCTIONS });
  const call = mcpApiCaller(app, new URL(c.req.url).origin, authInfo?.token, (c.env as { incoming?: unknown } | undefined)?.incoming);
  registerTools(server, { state: deps.content, call });
  registerResources(server, deps.content);
  registerPrompts(server, deps.content);
  return server;
}

/**
 * A tool the caller may not use gets the HTTP challenge for the scope it needs (401 without a token, 403
 * insufficient_scope with one), so MCP clients run (or widen) their OAuth sign-in and retry: the MCP
 * authorization spec's step-up. Everything else is for the MCP server.
 */
function stepUp(body: unknown, authInfo: AuthInfo | null, auth: McpAuthOptions): Response | null {
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

/**
 * A call of a tool that does not exist is a JSON-RPC error (Invalid params), as the MCP tools spec has it,
 * not a tool result: the SDK's server would answer it as a failed call. Batches included.
 */
function refuseUnknownTools(transport: WebStandardStreamableHTTPServerTransport): void {
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message) && message.method === 'tools/call') {
      const name = (message.params as { name?: unknown } | undefined)?.name;
      if (typeof name === 'string' && !TOOL_NEEDS.has(name)) {
        const known = [...TOOL_NEEDS.keys()].join(', ');
        void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: `Unknown tool: ${name}. tools/list gives the tools: ${known}` } });
        return;
      }
    }
    deliver(message, extra);
  };
}
