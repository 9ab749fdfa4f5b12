// The OAuth 2.1 authorization server for the /mcp resource: registration (RFC 7591), authorize and consent,
// token (PKCE, rotating refresh tokens, reuse detection; and the device flow's grant, RFC 8628), revocation
// (RFC 7009). Each rule is a small step
// (check_*.ts), errors are typed (errors.ts); access tokens reach routes through identity.addBearerResolver.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { AppDeps } from '../deps.ts';
import { oauthStore } from '../../src/lib/data/oauth/store.ts';
import { LIFETIMES, type Lifetimes, type OAuthContext } from './context.ts';
import { loadConsentKey } from './consent.ts';
import { mcpResource } from './check_resource.ts';
import { accessTokenVerifier } from './bearer.ts';
import { purgeUnusedClients, registerRegistrationEndpoint } from './register.ts';
import { RateLimiter } from '../rate-limit/index.ts';
import { registerAuthorizeEndpoint } from './authorize.ts';
import { registerTokenEndpoint } from './token.ts';
import { registerRevokeEndpoint } from './revoke.ts';
import { registerAccountOAuthRoutes } from './account.ts';
import { InvalidRequest, oauthErrorResponse } from './errors.ts';
import { deviceFlowFor } from '../device/index.ts';

export { accessTokenVerifier, type AccessTokenVerifier } from './bearer.ts';
export { mcpResource } from './check_resource.ts';

/**
 * @example registerOAuthRoutes(app, deps) // in createApp, after authenticate()
 */
export function registerOAuthRoutes(
  app: OpenAPIHono,
  deps: Pick<AppDeps, 'config' | 'db' | 'audit' | 'identity' | 'log'>,
  opts: { lifetimes?: Partial<Lifetimes>; now?: () => Date } = {},
): OAuthContext {
  const now = opts.now ?? (() => new Date());
  const ctx: OAuthContext = {
    db: deps.db,
    audit: deps.audit,
    identity: deps.identity,
    store: oauthStore(deps.db),
    issuer: deps.config.baseUrl,
    resource: mcpResource(deps.config.baseUrl),
    lifetimes: { ...LIFETIMES, ...opts.lifetimes },
    siteName: deps.config.siteName,
    consentKey: loadConsentKey(deps.config.dataDir),
    registrationLimiter: new RateLimiter({ name: 'oauth-registration', limit: deps.config.oauth.registrationsPerHour, windowMs: 3_600_000, now: () => now().getTime(), db: deps.db }),
    unusedClientTtlHours: deps.config.oauth.unusedClientTtlHours,
    deviceFlow: deviceFlowFor({ ...deps, now }),
    now,
  };
  // At start, in the background: a database that cannot be reached now must not stop the routes' registration.
  purgeUnusedClients(ctx).catch((err: Error) => deps.log?.(`oauth: removing unused clients failed (${err.message}); the next registration tries again`));
  const verify = accessTokenVerifier(deps.db, deps.identity, ctx.resource, now);
  deps.identity.addBearerResolver(async (token) => (await verify(token))?.principal ?? null);

  // Browser-based clients register, exchange and revoke from other origins; no cookies are involved.
  const api = ['/api/oauth/v2/register', '/api/oauth/v2/token', '/api/oauth/v2/revoke'];
  for (const path of api) {
    app.use(path, cors({ origin: '*', allowMethods: ['POST', 'OPTIONS'], allowHeaders: ['Authorization', 'Content-Type'], exposeHeaders: ['WWW-Authenticate'], maxAge: 86_400 }));
    app.use(path, bodyLimit({ maxSize: 64 * 1024, onError: () => oauthErrorResponse(new InvalidRequest('request body too large'), ctx.issuer) }));
  }
  registerRegistrationEndpoint(app, ctx);
  registerAuthorizeEndpoint(app, ctx);
  registerTokenEndpoint(app, ctx);
  registerRevokeEndpoint(app, ctx);
  registerAccountOAuthRoutes(app, ctx);
  return ctx;
}
