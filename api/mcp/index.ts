// The Model Context Protocol server at /mcp: Streamable HTTP through the SDK's web-standard transport,
// stateless (a fresh server and transport per POST, JSON answers, no session to keep or steal), behind
// OAuth 2.1 bearer tokens issued for this resource. Tools in tools.ts, resources in resources.ts.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createRoute, z } from '@hono/zod-openapi';
import { cors } from 'hono/cors';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AppDeps } from '../app.ts';
import { API_VERSION } from '../../src/lib/read/discovery.ts';
import { accessTokenVerifier, mcpResource } from '../oauth/index.ts';
import { authenticateMcp, type McpAuthOptions } from './auth.ts';
import { registerTools } from './tools.ts';
import { registerResources } from './resources.ts';

const INSTRUCTIONS =
  'A curated knowledge base on AI transformation. Start with latest_briefing, use search to find videos, ' +
  'essays, digests and knowledge concepts, and get_item for the full text. Cite items by their url.';

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

  function createServer(): McpServer {
    const server = new McpServer({ name: deps.config.siteName, version: API_VERSION }, { instructions: INSTRUCTIONS });
    registerTools(server, deps.content, deps.search);
    registerResources(server, deps.content);
    return server;
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
      summary: 'Model Context Protocol (Streamable HTTP, stateless, JSON-RPC); OAuth 2.1 bearer token for this resource',
      request: { body: { content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } } },
      responses: {
        200: { description: 'JSON-RPC response', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
        202: { description: 'Notification accepted' },
        401: { description: 'No valid token; WWW-Authenticate names the protected resource metadata' },
        403: { description: 'The token lacks the read scope' },
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
    const server = createServer();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, { authInfo });
    } finally {
      // The answer is complete (JSON mode), so the per-request pair can go.
      void transport.close();
      void server.close();
    }
  });
}
