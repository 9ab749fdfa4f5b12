// Who calls the MCP resource. Without an Authorization header: anyone, for the read tools, as the same
// reads are anonymous over HTTP. With one: an OAuth access token issued for this resource (audience
// {BASE_URL}/mcp), whose scopes decide which tools may be called (`write`: the tools that act). A bad
// token, and an API key (not audience-bound; the spec protects this resource with OAuth 2.1), get the
// RFC 6750 challenge pointing at the protected resource metadata (RFC 9728 §5.1), which is how MCP
// clients discover where to sign in; so does a call of a tool that needs a scope the caller lacks.
import type { Context } from 'hono';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { AccessTokenVerifier } from '../oauth/index.ts';
import { challengeHeader } from '../oauth/errors.ts';

export interface McpAuthOptions {
  verify: AccessTokenVerifier;
  resource: string;
  metadataUrl: string;
  keyPrefix: string;
}

/** What to do to get in, for the humans and agents reading the error body. */
const SIGN_IN =
  'Sign in with OAuth 2.1 for this resource: the protected resource metadata in WWW-Authenticate names the authorization server; ' +
  'or run the device flow with resource=<this /mcp URL> and scope "read write" (POST /api/oauth/device). Read tools also work without a token.';

/** The 401 or 403 challenge (RFC 6750 §3) asking for `scope`. */
export function challenge(status: 401 | 403, opts: McpAuthOptions, scope: string, error?: string, description?: string): Response {
  // Quoted-strings that stay valid (RFC 9110 §5.6.4, RFC 6750 §3) whatever the description says.
  const header = challengeHeader('Bearer', { error, error_description: error ? description : undefined, scope, resource_metadata: opts.metadataUrl });
  const body = error ? { error, error_description: description, hint: SIGN_IN } : { error: 'unauthorized', error_description: 'This needs an OAuth 2.1 access token for this resource', hint: SIGN_IN };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'WWW-Authenticate': header },
  });
}

/** The caller's token as the MCP SDK's AuthInfo, null for an anonymous caller, or the 401 to send instead. */
export async function authenticateMcp(c: Context, opts: McpAuthOptions): Promise<AuthInfo | null | Response> {
  const header = c.req.header('authorization');
  if (header === undefined) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return challenge(401, opts, 'read', 'invalid_request', 'Send the access token as Authorization: Bearer <token>');
  const token = m[1];
  if (token.startsWith(opts.keyPrefix)) {
    return challenge(401, opts, 'read', 'invalid_token', 'API keys are not accepted here: get an OAuth access token for this resource (the device flow gives one when asked with resource), or call without a token to read');
  }
  const info = await opts.verify(token);
  if (!info) return challenge(401, opts, 'read', 'invalid_token', 'The access token is unknown, expired, revoked, or for another resource');
  return {
    token,
    clientId: info.clientId,
    scopes: info.principal.scopes ?? [],
    expiresAt: info.expiresAt,
    resource: new URL(opts.resource),
    extra: { userId: info.principal.user.id },
  };
}
