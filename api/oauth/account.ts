// The account's connected apps: GET /api/account/oauth-clients lists the clients holding live
// credentials of this person (an unexpired code or token), DELETE /api/account/oauth-clients/{client_id}
// revokes every grant this person gave that client. A browser session only: neither an API key nor an
// OAuth token can list or revoke apps (requireAccountAccess).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { requireAccountAccess } from '../auth/middleware.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, jsonContent as json } from '../openapi/schemas.ts';
import { addRoute } from '../validation/route.ts';
import { iso, type OAuthContext } from './context.ts';
import { OAUTH_SCOPES } from '../../src/lib/read/discovery/shared.ts';

const OAuthClientOut = z
  .object({
    client_id: z.string(),
    client_name: z.string(),
    client_uri: z.string().nullable(),
    scopes: z.array(z.string()),
    authorized_at: z.string().openapi({ description: 'When the oldest live grant was given' }),
    last_used_at: z.string().nullable().openapi({ description: 'When a token was last issued to it' }),
  })
  .openapi('OAuthClientOut');

export function registerAccountOAuthRoutes(app: OpenAPIHono, ctx: OAuthContext): void {
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/account/oauth-clients',
      tags: ['account'],
      summary: 'Apps with active OAuth grants for you',
      responses: { 200: json(z.array(OAuthClientOut), 'Connected apps'), 401: json(ErrorDetail, 'Not authenticated'), 403: json(ErrorDetail, 'Not a browser session: API keys and OAuth tokens cannot manage the account') },
    }),
    async (c) => {
      const who = requireAccountAccess(c);
      const rows = await ctx.store.activeClients(who.user.id, iso(ctx.now()));
      const out = rows.map((r) => {
        const held = new Set(r.scopes.split(' '));
        const metadata = JSON.parse(r.metadata) as { client_uri?: string };
        return {
          client_id: r.client_id,
          client_name: r.client_name || 'An unnamed app',
          client_uri: metadata.client_uri ?? null,
          scopes: OAUTH_SCOPES.filter((s) => held.has(s)),
          authorized_at: r.authorized_at,
          last_used_at: r.last_used_at,
        };
      });
      return c.json(out, 200, { 'Cache-Control': 'no-store' });
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'delete',
      path: '/api/account/oauth-clients/{client_id}',
      tags: ['account'],
      summary: "Revoke every grant you gave this app (its tokens stop working at once)",
      request: { params: z.object({ client_id: z.string().max(100) }) },
      responses: { 204: { description: 'Revoked' }, 401: json(ErrorDetail, 'Not authenticated'), 403: json(ErrorDetail, 'Not a browser session'), 404: json(ErrorDetail, 'No active grant for this app') },
    }),
    async (c, { params }) => {
      const who = requireAccountAccess(c);
      // Each revocation is conditional (and logged only when it revoked): no lock needed.
      const revoked = await ctx.db.transaction(async () => {
        const now = iso(ctx.now());
        const { ids, live } = await ctx.store.grantsOf(who.user.id, params.client_id, now);
        if (!live) return false;
        for (const id of ids) {
          if (await ctx.store.revokeGrant(id, 'revoked_by_user', now)) {
            await ctx.audit.append({ kind: 'oauth.grant.revoke', subjectType: 'oauth_grant', subjectId: id, actor: { userId: who.user.id }, data: { client_id: params.client_id, reason: 'revoked_by_user' } });
          }
        }
        return true;
      });
      if (!revoked) throw new ApiError(404, 'No active grant for this app');
      return c.body(null, 204);
    },
  );
}
