// Who is calling: resolves the session cookie or the bearer token once per request, refuses cross-site
// cookie writes, and gives routes one permission check each (`requireUser`, `requireSession`, `requireRole`).
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { ApiError } from '../errors/index.ts';
import { enforceRate, type RateLimiter } from '../rate-limit/index.ts';
import type { Identity, Principal, Role } from '../../src/lib/data/identity/index.ts';

export const SESSION_COOKIE = 'kb_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ROLE_RANK: Record<Role, number> = { user: 0, moderator: 1, admin: 2 };

/**
 * Resolves credentials into `c.get('principal')`. A bearer header wins over a cookie. An invalid bearer
 * token is remembered, not refused here: anonymous reads still work, and any route that needs a user
 * answers 401 invalid_token. Cookie-authenticated writes must come from our own origin (Origin, or Referer
 * when Origin is absent): the CSRF defence for SameSite=Lax sessions.
 * @example app.use('*', authenticate(identity, { publicOrigin: new URL(config.baseUrl).origin }))
 */
export function authenticate(identity: Identity, opts: { publicOrigin: string }): MiddlewareHandler {
  return async (c, next) => {
    let principal: Principal | null = null;
    const header = c.req.header('authorization');
    if (header !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      principal = m ? await identity.resolveBearer(m[1]) : null;
      if (!principal) c.set('authError' as never, 'invalid_token' as never);
    } else {
      const secret = getCookie(c, SESSION_COOKIE);
      if (secret) principal = await identity.resolveSession(secret);
      if (principal && !SAFE_METHODS.has(c.req.method)) {
        const source = c.req.header('origin') ?? originOf(c.req.header('referer'));
        const own = new URL(c.req.url).origin;
        if (!source || (source !== opts.publicOrigin && source !== own)) {
          throw new ApiError(403, 'Cross-site request refused: send the Origin header of this site');
        }
      }
    }
    c.set('principal' as never, principal as never);
    await next();
    // An answer to a caller's credential must not be kept by a shared cache and handed to the next caller:
    // one whose route looked at the caller (principal()), any other answer to a signed-in caller unless it
    // says it is public (the same for everyone), and any answer that sets a cookie.
    const cc = c.res.headers.get('Cache-Control');
    if (c.get(CREDENTIAL_READ as never) || (principal && !/(^|,)\s*public\s*(,|$)/i.test(cc ?? '')) || c.res.headers.has('Set-Cookie')) {
      const wanted = privateCacheControl(cc, c.res.headers.get('Vary'));
      if (wanted !== cc) setHeader(c, 'Cache-Control', wanted);
    }
  };
}

/** Set in the context when a route looked at the caller's identity and there was one (see `principal`). */
const CREDENTIAL_READ = 'kbCredentialRead';

/**
 * The Cache-Control of a response that depends on the caller's credential: kept when it already says
 * `private` with `no-store`, or `private, no-cache` with a Vary on the credential (Cookie or Authorization);
 * otherwise `private, no-store` (`public` or a max-age would let a shared cache hand the answer to the next
 * caller).
 */
export function privateCacheControl(cacheControl: string | null, vary: string | null): string {
  const directives = new Set((cacheControl ?? '').toLowerCase().split(',').map((d) => d.trim().split('=')[0]).filter(Boolean));
  const varies = /(^|,)\s*(cookie|authorization|\*)\s*(,|$)/i.test(vary ?? '');
  if (directives.has('private') && (directives.has('no-store') || (directives.has('no-cache') && varies))) return cacheControl!;
  return 'private, no-store';
}

/** Sets a header on the context's response (a Response whose headers are immutable is copied first). */
function setHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(name, value);
  }
}

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * The caller, or null when anonymous. Whatever answers after asking this with a caller present depends on
 * the credential: the response is marked `private, no-store` on its way out (authenticate).
 */
export function principal(c: Context): Principal | null {
  const p = (c.get('principal' as never) as Principal | null | undefined) ?? null;
  if (p) c.set(CREDENTIAL_READ as never, true as never);
  return p;
}

/** True when the request carried a bearer token that is unknown, expired or revoked. */
export function hasInvalidToken(c: Context): boolean {
  return c.get('authError' as never) === 'invalid_token';
}

/**
 * The signed-in caller, by any credential; 401 otherwise. OAuth access tokens act within their scope:
 * `read` for GET and HEAD, `write` for every other method (403 insufficient_scope).
 */
export function requireUser(c: Context): Principal {
  const p = principal(c);
  if (hasInvalidToken(c)) throw new ApiError(401, 'Invalid or expired token', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  if (!p) throw new ApiError(401, 'Not authenticated', { 'WWW-Authenticate': 'Bearer' });
  requireScope(c, SAFE_METHODS.has(c.req.method) ? 'read' : 'write');
  return p;
}

/** An OAuth caller's token must carry `scope` (sessions and API keys act with the user's full rights). */
export function requireScope(c: Context, scope: 'read' | 'write'): void {
  const p = principal(c);
  if (p?.scopes && !p.scopes.includes(scope)) {
    throw new ApiError(403, `This access token lacks the ${scope} scope`, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` });
  }
}

/** The caller signed in with a browser session (account pages); 401 otherwise. */
export function requireSession(c: Context): Principal {
  const p = requireUser(c);
  if (p.via !== 'session') throw new ApiError(401, 'This endpoint needs a browser session (sign in at /api/auth/idp/login)');
  return p;
}

/**
 * Whether the caller acts with at least `role`: holds the role and, with an OAuth token, its scope too
 * (`moderate` for moderator powers, `admin` for both). The one check behind every moderator power, so a
 * moderator's token granted only `read write` never reads drafts or hides comments.
 */
export function actsAs(p: Principal | null, role: Role): boolean {
  if (!p || ROLE_RANK[p.user.role] < ROLE_RANK[role]) return false;
  if (p.scopes === null || role === 'user') return true;
  return p.scopes.includes('admin') || (role === 'moderator' && p.scopes.includes('moderate'));
}

/** The caller holds at least `role`; 403 otherwise. OAuth tokens also need the matching scope. */
export function requireRole(c: Context, role: Role): Principal {
  const p = requireUser(c);
  if (!actsAs(p, role)) throw new ApiError(403, `Requires the ${role} role`);
  return p;
}

/**
 * Managing the account's credentials (API keys, connected apps, the note store's connection) is for the
 * person in a browser session; 403 for API keys and OAuth tokens. A key that could manage keys would let
 * any key, the one-hour sandbox key of the device flow included, mint a key that never expires.
 */
export function requireAccountAccess(c: Context): Principal {
  const p = requireUser(c);
  if (p.via !== 'session') {
    throw new ApiError(403, 'Only a browser session manages the account (API keys, connected apps, the note store); API keys and OAuth access tokens cannot');
  }
  return p;
}

/**
 * The signed-in caller of a write, within their write rate (429 with Retry-After beyond it): the check every
 * write route opens with.
 * @example const p = await requireWriter(c, deps.writeLimiter)
 */
export async function requireWriter(c: Context, limiter: RateLimiter): Promise<Principal> {
  const p = requireUser(c);
  await enforceRate(limiter, `user:${p.user.id}`);
  return p;
}
