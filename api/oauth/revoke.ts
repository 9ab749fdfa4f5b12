// POST /api/oauth/v2/revoke (RFC 7009). Always 200, for unknown, foreign and already revoked tokens too,
// so the endpoint tells nobody whether a token exists. Holding a token is enough to give it up; a request
// that names a client (Basic or client_id) revokes only that client's tokens. Wrong Basic credentials are
// the one 401 (invalid_client), so a confidential client learns its secret is wrong.
// A refresh token's revocation revokes its whole grant; an access token's revokes that token alone.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { hashSecret } from '../../src/lib/data/secrets.ts';
import { authenticateClient } from './check_client.ts';
import { iso, type OAuthContext } from './context.ts';
import { oauthEndpoint, oauthJson } from './endpoint.ts';
import { singleValued } from './form.ts';
import { ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX } from './issue.ts';
import { OAuthErrorBody } from './schemas.ts';

const RevokeForm = z.object({
  token: z.string(),
  token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
  client_id: z.string().optional(),
});

/** The request's parameters, form-encoded as RFC 7009 says (JSON accepted too); never an error. */
async function revocationParams(c: Context): Promise<Map<string, string>> {
  const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const text = await c.req.text();
  try {
    if (type === 'application/json') {
      const body = JSON.parse(text) as Record<string, unknown>;
      return new Map(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'));
    }
    return singleValued(new URLSearchParams(text));
  } catch {
    return new Map();
  }
}

/** The client the request names, if any: HTTP Basic (checked; wrong credentials are the one error), or client_id. */
async function namedClient(c: Context, params: Map<string, string>, ctx: OAuthContext): Promise<string | null> {
  if (/^Basic\s/i.test(c.req.header('authorization') ?? '')) return (await authenticateClient(c, params, ctx.store)).client_id;
  return params.get('client_id') ?? null;
}

export function registerRevokeEndpoint(app: OpenAPIHono, ctx: OAuthContext): void {
  oauthEndpoint(
    app,
    createRoute({
      method: 'post',
      path: '/api/oauth/v2/revoke',
      tags: ['oauth'],
      summary: 'Token revocation (RFC 7009); always 200, also for unknown or already revoked tokens',
      request: { body: { content: { 'application/x-www-form-urlencoded': { schema: RevokeForm } }, required: true } },
      responses: {
        200: { description: 'Revoked, or nothing to revoke', content: { 'application/json': { schema: z.object({}) } } },
        401: { description: 'Wrong client credentials', content: { 'application/json': { schema: OAuthErrorBody } } },
      },
    }),
    ctx.issuer,
    async (c) => {
      const params = await revocationParams(c);
      const clientId = await namedClient(c, params, ctx);
      const token = params.get('token') ?? '';
      if (token.startsWith(ACCESS_TOKEN_PREFIX) || token.startsWith(REFRESH_TOKEN_PREFIX)) await revoke(ctx, token, clientId);
      return oauthJson({});
    },
  );
}

/** Revokes the token (a refresh token: its whole grant); each revocation conditional, so it is written and logged once. */
async function revoke(ctx: OAuthContext, token: string, clientId: string | null): Promise<void> {
  const hash = hashSecret(token);
  const row = await ctx.store.getToken(hash);
  if (!row || (clientId !== null && row.client_id !== clientId)) return;
  await ctx.db.transaction(async () => {
    const now = iso(ctx.now());
    const actor = { userId: row.user_id };
    if (row.kind === 'refresh') {
      if (await ctx.store.revokeGrant(row.grant_id, 'revoked_by_client', now)) {
        await ctx.audit.append({ kind: 'oauth.grant.revoke', subjectType: 'oauth_grant', subjectId: row.grant_id, actor, data: { client_id: row.client_id, reason: 'revoked_by_client' } });
      }
    } else if (await ctx.store.revokeToken(hash, now)) {
      await ctx.audit.append({ kind: 'oauth.token.revoke', subjectType: 'oauth_grant', subjectId: row.grant_id, actor, data: { client_id: row.client_id, token: 'access' } });
    }
  });
}
