// Who may call the MCP resource: holders of an OAuth access token issued for it (audience {BASE_URL}/mcp)
// with the `read` scope. Everything else gets the RFC 6750 challenge pointing at the protected resource
// metadata (RFC 9728 §5.1), which is how MCP clients discover where to sign in. API keys are refused
// here: they are not audience-bound, and the spec protects this resource with OAuth 2.1.
import type { Context } from 'hono';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { AccessTokenVerifier } from '../oauth/index.ts';

export const MCP_SCOPE = 'read';

export interface McpAuthOptions {
  verify: AccessTokenVerifier;
  resource: string;
  metadataUrl: string;
  keyPrefix: string;
}

function challenge(status: 401 | 403, opts: McpAuthOptions, error?: string, description?: string): Response {
  const params = [
    ...(error ? [`error="${error}"`, `error_description="${description}"`] : []),
    `scope="${MCP_SCOPE}"`,
    `resource_metadata="${opts.metadataUrl}"`,
  ];
  const body = error ? { error, error_description: description } : { error: 'unauthorized', error_description: 'This MCP server needs an OAuth 2.1 access token' };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'WWW-Authenticate': `Bearer ${params.join(', ')}` },
  });
}

/** The caller's token as the MCP SDK's AuthInfo, or the 401/403 response to send instead. */
export function authenticateMcp(c: Context, opts: McpAuthOptions): AuthInfo | Response {
  const header = c.req.header('authorization');
  if (header === undefined) return challenge(401, opts);
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return challenge(401, opts, 'invalid_request', 'Send the access token as Authorization: Bearer <token>');
  const token = m[1];
  if (token.startsWith(opts.keyPrefix)) return challenge(401, opts, 'invalid_token', 'API keys are not accepted here: get an OAuth access token for this resource');
  const info = opts.verify(token);
  if (!info) return challenge(401, opts, 'invalid_token', 'The access token is unknown, expired, revoked, or for another resource');
  if (!info.principal.scopes?.includes(MCP_SCOPE)) return challenge(403, opts, 'insufficient_scope', `The token needs the ${MCP_SCOPE} scope`);
  return {
    token,
    clientId: info.clientId,
    scopes: info.principal.scopes,
    expiresAt: info.expiresAt,
    resource: new URL(opts.resource),
    extra: { userId: info.principal.user.id },
  };
}
