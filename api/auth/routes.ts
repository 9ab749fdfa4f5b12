// Account and session endpoints: /api/auth/me, /api/auth/logout, /api/account/me, the person's browser
// sessions, API keys, and public user profiles. None of them ever shows another person's e-mail.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import { addRoute } from '../validation/route.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, HTTPValidationError, jsonContent as json } from '../openapi/schemas.ts';
import type { Identity, User } from '../../src/lib/data/identity/index.ts';
import { SESSION_COOKIE, hasInvalidToken, principal, requireAccountAccess, requireSession } from './middleware.ts';
import { describeUserAgent } from './user-agent.ts';

const E401 = { 401: json(ErrorDetail, 'Not authenticated') };
const E422 = { 422: json(HTTPValidationError, 'Validation error') };
const E403 = { 403: json(ErrorDetail, 'Not a browser session: API keys and OAuth tokens cannot manage keys') };

export const UserPublicOut = z
  .object({ id: z.string(), display_name: z.string(), handle: z.string(), bio: z.string(), role: z.enum(['user', 'moderator', 'admin']), created_at: z.string() })
  .openapi('UserPublicOut');
const UserOut = UserPublicOut.extend({ email: z.string(), updated_at: z.string(), last_login_at: z.string().nullable() }).openapi('UserOut');
const UserUpdate = z
  .strictObject({
    display_name: z.string().trim().min(1).max(100).optional(),
    bio: z.string().max(1000).optional(),
    handle: z.string().regex(/^[a-z0-9_]{3,30}$/, 'lower-case letters, digits and _; 3 to 30 characters').optional(),
  })
  .openapi('UserUpdate');
const ApiKeyOut = z
  .object({ id: z.string(), name: z.string(), hint: z.string(), source: z.enum(['account', 'device']), created_at: z.string(), last_used_at: z.string().nullable(), expires_at: z.string().nullable() })
  .openapi('ApiKeyOut');
const ApiKeyCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    expires_in_days: z.number().int().min(1).max(3650).optional().openapi({ description: 'Omit for a key that does not expire.' }),
  })
  .openapi('ApiKeyCreate');
const ApiKeyCreateResponse = ApiKeyOut.extend({ key: z.string().openapi({ description: 'The secret. Shown once; store it now.' }) }).openapi('ApiKeyCreateResponse');
const SessionOut = z
  .object({
    id: z.string(),
    device: z.string().openapi({ description: 'The browser and system, read from its User-Agent, e.g. "Firefox on Windows".' }),
    user_agent: z.string().nullable(),
    created_at: z.string().openapi({ description: 'When it signed in.' }),
    last_seen_at: z.string().openapi({ description: 'Last used (to the minute); unused for SESSION_IDLE_HOURS, it ends.' }),
    expires_at: z.string(),
    current: z.boolean().openapi({ description: 'The session making this call.' }),
  })
  .openapi('SessionOut');
const LogoutOut = z
  .object({
    ok: z.boolean(),
    end_session_url: z.string().nullable().openapi({
      description: "Where to send the browser next to end its session at the identity provider too (OpenID Connect RP-Initiated Logout), or null. Without it the provider would sign the person back in without asking.",
    }),
  })
  .openapi('LogoutOut');

export const publicUser = (u: User) => ({ id: u.id, display_name: u.display_name, handle: u.handle, bio: u.bio, role: u.role, created_at: u.created_at });
const fullUser = (u: User) => ({ ...publicUser(u), email: u.email, updated_at: u.updated_at, last_login_at: u.last_login_at });
const keyOut = (k: { id: string; name: string; hint: string; source: 'account' | 'device'; created_at: string; last_used_at: string | null; expires_at: string | null }) => ({
  id: k.id, name: k.name, hint: k.hint, source: k.source, created_at: k.created_at, last_used_at: k.last_used_at, expires_at: k.expires_at,
});

const noStore = { 'Cache-Control': 'no-store' };

type AccountRouteOptions = { secureCookies: boolean; endSessionUrl?: (idToken: string | null) => Promise<string | null> };

/**
 * @param opts.endSessionUrl the identity provider's sign-out URL for a session's ID token (api/auth/oidc.ts)
 */
export function registerAccountRoutes(app: OpenAPIHono, identity: Identity, opts: AccountRouteOptions) {
  const clearCookie = (c: Context) => deleteCookie(c, SESSION_COOKIE, { path: '/', secure: opts.secureCookies, httpOnly: true, sameSite: 'Lax' });
  registerAuthRoutes(app, identity, opts, clearCookie);
  registerSessionRoutes(app, identity, clearCookie);
  registerProfileRoutes(app, identity);
  registerApiKeyRoutes(app, identity);
  registerPublicProfileRoutes(app, identity);
}

/** GET /api/auth/me and POST /api/auth/logout: who is calling, and signing out (here and at the provider). */
function registerAuthRoutes(app: OpenAPIHono, identity: Identity, opts: AccountRouteOptions, clearCookie: (c: Context) => void) {
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/auth/me',
      tags: ['auth'],
      summary: 'Who the credentials belong to (session, API key or OAuth token); never e-mail or personal data',
      responses: { 200: json(z.object({ authenticated: z.boolean() }).passthrough(), 'Identity'), ...E401 },
    }),
    (c) => {
      const p = principal(c);
      if (hasInvalidToken(c)) throw new ApiError(401, 'Invalid or expired token', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
      if (!p) return c.json({ authenticated: false }, 200, noStore);
      return c.json(
        { authenticated: true, via: p.via, user: { id: p.user.id, display_name: p.user.display_name, handle: p.user.handle, role: p.user.role }, scopes: p.scopes, audience: p.audience },
        200,
        noStore,
      );
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/auth/logout',
      tags: ['auth'],
      summary: 'Ends the browser session (with everywhere=true every session of its person)',
      request: {
        query: z.object({
          everywhere: z.enum(['true', 'false']).optional().openapi({ description: 'true: sign out everywhere, ending every browser session of this person.' }),
        }),
      },
      responses: { 200: json(LogoutOut, 'Signed out'), ...E422 },
    }),
    async (c, { query }) => {
      const p = principal(c);
      const secret = getCookie(c, SESSION_COOKIE);
      // Read before the session ends, which forgets it: the hint of the provider's sign-out below.
      const idToken = secret && (!p || p.via === 'session') ? await identity.sessionIdToken(secret) : undefined;
      if (p?.via === 'session' && secret) {
        if (query.everywhere === 'true') await identity.endAllSessions(p.user.id);
        else await identity.revokeSession(secret, p.user.id);
      }
      clearCookie(c);
      // The browser's session at the provider ends too, or the next sign-in would pass without a question.
      const endSessionUrl = idToken !== undefined && opts.endSessionUrl ? await opts.endSessionUrl(idToken) : null;
      return c.json({ ok: true, end_session_url: endSessionUrl }, 200, noStore);
    },
  );
}

/** The person's browser sessions: the list, and ending one. */
function registerSessionRoutes(app: OpenAPIHono, identity: Identity, clearCookie: (c: Context) => void) {
  addRoute(
    app,
    createRoute({ method: 'get', path: '/api/account/sessions', tags: ['account'], summary: 'Your open browser sessions, the most recently used first (browser session only)', responses: { 200: json(z.array(SessionOut), 'Sessions'), ...E401, ...E403 } }),
    async (c) => {
      const p = requireAccountAccess(c);
      const out = (await identity.listSessions(p.user.id)).map((s) => ({
        id: s.id,
        device: describeUserAgent(s.userAgent),
        user_agent: s.userAgent,
        created_at: s.createdAt,
        last_seen_at: s.lastSeenAt,
        expires_at: s.expiresAt,
        current: s.id === p.credentialId,
      }));
      return c.json(out, 200, noStore);
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'delete',
      path: '/api/account/sessions/{session_id}',
      tags: ['account'],
      summary: 'End one of your browser sessions (browser session only); ending this one signs this browser out',
      request: { params: z.object({ session_id: z.string().max(100) }) },
      responses: { 204: { description: 'Ended' }, ...E401, ...E403, 404: json(ErrorDetail, 'No such open session of yours') },
    }),
    async (c, { params }) => {
      const p = requireAccountAccess(c);
      if (!(await identity.endSession(p.user.id, params.session_id))) throw new ApiError(404, 'Session not found');
      if (params.session_id === p.credentialId) clearCookie(c);
      return c.body(null, 204, noStore);
    },
  );
}

/** The person's own full profile: read and update (session cookie only). */
function registerProfileRoutes(app: OpenAPIHono, identity: Identity) {
  addRoute(
    app,
    createRoute({ method: 'get', path: '/api/account/me', tags: ['account'], summary: 'The full profile (session cookie only)', responses: { 200: json(UserOut, 'Profile'), ...E401 } }),
    (c) => c.json(fullUser(requireSession(c).user), 200, noStore),
  );

  addRoute(
    app,
    createRoute({
      method: 'patch',
      path: '/api/account/me',
      tags: ['account'],
      summary: 'Update the profile (session cookie only)',
      request: { body: { content: { 'application/json': { schema: UserUpdate } }, required: true } },
      responses: { 200: json(UserOut, 'Profile'), ...E401, 409: json(ErrorDetail, 'Handle taken'), ...E422 },
    }),
    async (c, { body }) => {
      const p = requireSession(c);
      if (body.handle && (await identity.isHandleTaken(body.handle, p.user.id))) throw new ApiError(409, `The handle @${body.handle} is taken`);
      return c.json(fullUser(await identity.updateProfile(p.user.id, body)), 200, noStore);
    },
  );
}

/** The person's API keys: list, create, revoke (browser session only). */
function registerApiKeyRoutes(app: OpenAPIHono, identity: Identity) {
  addRoute(
    app,
    createRoute({ method: 'get', path: '/api/account/api-keys', tags: ['account'], summary: 'Your live API keys (never their secrets); browser session only', responses: { 200: json(z.array(ApiKeyOut), 'Keys'), ...E401, ...E403 } }),
    async (c) => c.json((await identity.listApiKeys(requireAccountAccess(c).user.id)).map(keyOut), 200, noStore),
  );

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/account/api-keys',
      tags: ['account'],
      summary: 'Create an API key; the secret is in this response only (browser session only)',
      request: { body: { content: { 'application/json': { schema: ApiKeyCreate } }, required: true } },
      responses: { 201: json(ApiKeyCreateResponse, 'Created'), ...E401, ...E403, ...E422 },
    }),
    async (c, { body }) => {
      const p = requireAccountAccess(c);
      const expiresAt = body.expires_in_days ? new Date(Date.now() + body.expires_in_days * 86_400_000).toISOString() : null;
      const { key, secret } = await identity.createApiKey(p.user.id, { name: body.name, expiresAt });
      return c.json({ ...keyOut(key), key: secret }, 201, noStore);
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'delete',
      path: '/api/account/api-keys/{key_id}',
      tags: ['account'],
      summary: 'Revoke an API key (browser session only)',
      request: { params: z.object({ key_id: z.string().max(100) }) },
      responses: { 204: { description: 'Revoked' }, ...E401, ...E403, 404: json(ErrorDetail, 'No such key') },
    }),
    async (c, { params }) => {
      const p = requireAccountAccess(c);
      if (!(await identity.revokeApiKey(p.user.id, params.key_id))) throw new ApiError(404, 'API key not found');
      return c.body(null, 204);
    },
  );
}

/** GET /api/users/{user_id}: anyone's public profile, never the e-mail. */
function registerPublicProfileRoutes(app: OpenAPIHono, identity: Identity) {
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/users/{user_id}',
      tags: ['account'],
      summary: 'A public profile (no e-mail)',
      request: { params: z.object({ user_id: z.string().max(100) }) },
      responses: { 200: json(UserPublicOut, 'Profile'), 404: json(ErrorDetail, 'No such user') },
    }),
    async (c, { params }) => {
      const u = await identity.getUser(params.user_id);
      if (!u) throw new ApiError(404, 'User not found');
      return c.json(publicUser(u), 200, { 'Cache-Control': 'public, max-age=60' });
    },
  );
}
