// What a tool needs, told to clients and models reading tools/list: every tool is listed to everyone, so
// each says whether it needs sign-in, with which OAuth scope, and what a call without it answers.
import type { ToolNeed } from './shared.ts';

/** The OAuth scope a token needs for a tool, as the authorization server's scope parameter asks for it. */
const SCOPE_OF: Record<Exclude<ToolNeed, 'none'>, string> = { read: 'read', write: 'read write' };

/**
 * What a tool needs, for clients and models reading tools/list: `securitySchemes` in `_meta` (the shape
 * OpenAI's Apps SDK reads: noauth, or oauth2 with its scopes) and a sentence at the end of the description.
 */
export function needsNotice(needs: ToolNeed): { sentence: string; meta: Record<string, unknown> } {
  if (needs === 'none') return { sentence: '', meta: { securitySchemes: [{ type: 'noauth' }] } };
  const scope = SCOPE_OF[needs];
  return {
    sentence:
      ` Needs sign-in: an OAuth access token for this MCP server with scope "${scope}" (${needs === 'write' ? 'it acts as you' : 'your own data'}). ` +
      `Called without one it answers HTTP ${needs === 'write' ? '401 (or 403 insufficient_scope with a read-only token)' : '401'} and the WWW-Authenticate challenge your client's OAuth sign-in follows.`,
    meta: { securitySchemes: [{ type: 'oauth2', scopes: scope.split(' ') }] },
  };
}
