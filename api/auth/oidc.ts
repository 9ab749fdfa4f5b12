// Browser sign-in as an OpenID Connect relying party (openid-client): authorization code flow with PKCE,
// state and nonce, against OIDC_ISSUER or, in dev mode, the embedded provider at /idp.
// GET /api/auth/idp/login starts it; GET /api/auth/idp/callback finishes it and sets the session cookie.
import * as oidc from 'openid-client';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import type { Db } from '../../src/lib/data/db/index.ts';
import { loginFlows } from '../../src/lib/data/identity/login-flows.ts';
import { addRoute } from '../validation/route.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail } from '../openapi/schemas.ts';
import { RateLimiter, clientAddress, enforceRate } from '../rate-limit/index.ts';
import { SignInRefused, type Identity } from '../../src/lib/data/identity/index.ts';
import { SESSION_COOKIE } from './middleware.ts';
import { hashSecret } from '../../src/lib/data/secrets.ts';
import { contextOnLoopback } from './loopback.ts';
import { REMOTE_REFUSED } from './embedded-idp/index.ts';
import { rememberNext, signInFailurePages } from './signin-page.ts';

const FLOW_COOKIE = 'kb_login';
const FLOW_TTL_MS = 10 * 60_000;
/**
 * The longest `next` a sign-in keeps, counted as stored (after normalising, which percent-encodes): every
 * anonymous call stores one for ten minutes. Room for an OAuth authorization request coming back.
 */
export const MAX_NEXT_LENGTH = 1024;

export interface OidcClientOptions {
  /** The site's name, for the page a browser gets when sign-in fails. */
  siteName: string;
  issuer: string;
  clientId: string;
  clientSecret?: string;
  baseUrl: string;
  sessionTtlHours: number;
  secureCookies: boolean;
  /** Where the server itself can reach the issuer, when that differs from its public URL (the embedded one). */
  localIssuerOrigin?: () => string | undefined;
  /** Sign-ins a client address may start per minute (each stores a row for ten minutes) before 429. */
  loginRateLimitPerMinute: number;
  /** Dev mode without ALLOW_DEV_IDP: sign-in answers only connections from this machine (403 otherwise). */
  loopbackOnly?: boolean;
}

/**
 * `next` may only lead back into this site: a path, or an absolute URL on our own origin. Anything else
 * (another host, `//host`, `javascript:`) falls back to the home page, so the login is no open redirect.
 * What is returned is the normalised path, and it must start with exactly one `/`: dot segments can leave
 * `//host` behind (`/.//host`, `/a/..//host`, `/%2e%2e//host`), and a browser reads a Location of
 * `//host/…` as another site.
 */
export function safeNext(next: string | undefined, baseUrl: string): string {
  if (!next) return '/';
  try {
    const base = new URL(baseUrl);
    const u = new URL(next, base);
    if (u.origin !== base.origin) return '/';
    // The parser has turned backslashes into slashes and dropped tabs and newlines by now.
    if (!/^\/(?![/\\])/.test(u.pathname)) return '/';
    return `${u.pathname}${u.search}${u.hash}`;
  } catch {
    return '/';
  }
}

/**
 * Registers GET /api/auth/idp/login and /api/auth/idp/callback, and returns what sign-out needs from the
 * provider (its end-session URL). The provider is discovered on first use, and again after a failure.
 */
export function registerOidcRoutes(app: OpenAPIHono, db: Db, identity: Identity, opts: OidcClientOptions) {
  const configuration = providerConfiguration(opts);
  /** The connection's own address, not a forwarded one: see api/auth/loopback.ts. */
  const refuseRemote = (c: Context) => {
    if (opts.loopbackOnly && !contextOnLoopback(c)) throw new ApiError(403, REMOTE_REFUSED);
  };
  const flows: FlowRoutes = { db, identity, opts, configuration, refuseRemote, redirectUri: `${opts.baseUrl}/api/auth/idp/callback` };
  app.use('/api/auth/idp/*', signInFailurePages(opts));
  registerLogin(app, flows);
  registerCallback(app, flows);

  return {
    /**
     * Where the browser ends its session at the identity provider after signing out here (OpenID Connect
     * RP-Initiated Logout): the provider's end_session_endpoint with the session's ID token as
     * id_token_hint (client_id alone when there is none) and post_logout_redirect_uri {BASE_URL}/. Null when
     * the provider has no such endpoint or cannot be reached: the sign-out here stands either way.
     */
    async endSessionUrl(idToken: string | null): Promise<string | null> {
      let config: oidc.Configuration;
      try {
        config = await configuration();
      } catch {
        return null;
      }
      if (!config.serverMetadata().end_session_endpoint) return null;
      return oidc.buildEndSessionUrl(config, { post_logout_redirect_uri: `${opts.baseUrl}/`, ...(idToken ? { id_token_hint: idToken } : {}) }).href;
    },
  };
}

/** What the sign-in routes share: the identity, the options, the provider's configuration, the loopback check. */
interface FlowRoutes {
  db: Db;
  identity: Identity;
  opts: OidcClientOptions;
  configuration: () => Promise<oidc.Configuration>;
  refuseRemote: (c: Context) => void;
  redirectUri: string;
}

/**
 * The provider's discovered configuration, fetched once (again after a failure). The embedded provider is
 * reached at its local address when there is one, under the public origin's name.
 */
function providerConfiguration(opts: OidcClientOptions): () => Promise<oidc.Configuration> {
  let discovered: Promise<oidc.Configuration> | undefined;
  return () => {
    discovered ??= (async () => {
      const local = opts.localIssuerOrigin?.();
      const publicOrigin = new URL(opts.issuer).origin;
      const execute = opts.issuer.startsWith('http://') ? [oidc.allowInsecureRequests] : [];
      // Reached through the local address, the embedded provider still names its endpoints after the public
      // origin (it trusts X-Forwarded-*): the browser meets it at BASE_URL, where its session cookie lives and
      // where sign-out sends the browser back (endSessionUrl, a same-origin redirect).
      const forwarded = { 'X-Forwarded-Host': new URL(publicOrigin).host, 'X-Forwarded-Proto': new URL(publicOrigin).protocol.slice(0, -1) };
      const fetchVia: oidc.CustomFetch | undefined = local
        ? (url, init) => {
            if (!url.startsWith(publicOrigin)) return fetch(url, init as RequestInit);
            const headers = new Headers(init.headers as HeadersInit);
            for (const [k, v] of Object.entries(forwarded)) headers.set(k, v);
            return fetch(local + url.slice(publicOrigin.length), { ...(init as RequestInit), headers });
          }
        : undefined;
      return oidc.discovery(new URL(opts.issuer), opts.clientId, undefined, opts.clientSecret ? oidc.ClientSecretBasic(opts.clientSecret) : oidc.None(), {
        execute,
        ...(fetchVia ? { [oidc.customFetch]: fetchVia } : {}),
      });
    })().catch((err) => {
      discovered = undefined; // try again on the next sign-in
      throw err;
    });
    return discovered;
  };
}


/** GET /api/auth/idp/login: stores a flow (PKCE verifier, nonce, next) under its state and redirects to the provider. */
function registerLogin(app: OpenAPIHono, { db, opts, configuration, refuseRemote, redirectUri }: FlowRoutes) {
  const flows = loginFlows(db);
  const loginLimiter = new RateLimiter({ name: 'login', limit: opts.loginRateLimitPerMinute, windowMs: 60_000, db });
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/auth/idp/login',
      tags: ['auth'],
      summary: 'Start browser sign-in at the identity provider',
      request: {
        query: z.object({
          next: z
            .string()
            .max(MAX_NEXT_LENGTH)
            .refine((v) => safeNext(v, opts.baseUrl).length <= MAX_NEXT_LENGTH, `at most ${MAX_NEXT_LENGTH} characters once percent-encoded`)
            .optional()
            .openapi({ description: `Where to return afterwards (this site only; at most ${MAX_NEXT_LENGTH} characters).` }),
          next_user_code: z.string().max(24).optional().openapi({ description: 'A device-flow code to approve after signing in.' }),
        }),
      },
      responses: {
        302: { description: 'To the identity provider' },
        403: { description: 'Dev mode: the request did not come from this machine (see ALLOW_DEV_IDP)', content: { 'application/json': { schema: ErrorDetail } } },
        429: { description: 'Too many sign-ins started from this address', content: { 'application/json': { schema: ErrorDetail } } },
        503: { description: 'Identity provider unreachable', content: { 'application/json': { schema: ErrorDetail } } },
      },
    }),
    async (c, { query }) => {
      refuseRemote(c);
      await enforceRate(loginLimiter, `addr:${clientAddress(c)}`);
      let config: oidc.Configuration;
      try {
        config = await configuration();
      } catch (err) {
        throw new ApiError(503, `The identity provider is unreachable: ${(err as Error).message}`);
      }
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      let next = safeNext(query.next, opts.baseUrl);
      const userCode = query.next_user_code?.trim() || null;
      if (userCode && next === '/') next = `/device?user_code=${encodeURIComponent(userCode)}`;
      await flows.start(hashSecret(state), { code_verifier: codeVerifier, nonce, next, next_user_code: userCode }, Date.now(), FLOW_TTL_MS);
      // The state also lives in a cookie of this browser: a callback carrying someone else's state is refused.
      setCookie(c, FLOW_COOKIE, state, { httpOnly: true, sameSite: 'Lax', secure: opts.secureCookies, path: '/api/auth/idp', maxAge: FLOW_TTL_MS / 1000 });
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return c.redirect(url.href, 302);
    },
  );
}

/** GET /api/auth/idp/callback: takes the flow, exchanges the code, signs the person in and sets the session cookie. */
function registerCallback(app: OpenAPIHono, { db, identity, opts, configuration, refuseRemote, redirectUri }: FlowRoutes) {
  const flows = loginFlows(db);
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/auth/idp/callback',
      tags: ['auth'],
      summary: 'Finish browser sign-in (the identity provider redirects here)',
      request: {
        query: z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional(), error_description: z.string().optional() }).passthrough(),
      },
      responses: {
        302: { description: 'Signed in; back to `next`' },
        400: { description: 'Sign-in failed or cancelled; a browser (Accept: text/html) gets a page saying why, with a link to sign in again', content: { 'application/json': { schema: ErrorDetail }, 'text/html': { schema: z.string() } } },
        403: { description: 'Dev mode: the request did not come from this machine (see ALLOW_DEV_IDP)', content: { 'application/json': { schema: ErrorDetail } } },
      },
    }),
    async (c, { query }) => {
      refuseRemote(c);
      const cookieState = getCookie(c, FLOW_COOKIE);
      deleteCookie(c, FLOW_COOKIE, { path: '/api/auth/idp', secure: opts.secureCookies });
      if (!query.state) throw new ApiError(400, 'Sign-in failed: the identity provider sent no state');
      const flow = await flows.take(hashSecret(query.state));
      if (flow) rememberNext(c, flow.next);
      if (!flow || flow.expires_at < new Date().toISOString()) throw new ApiError(400, 'Sign-in failed: this sign-in has expired or was already used; start again');
      if (cookieState !== query.state) throw new ApiError(400, 'Sign-in failed: it was started in another browser');
      if (query.error) throw new ApiError(400, `Sign-in failed: ${query.error_description ?? query.error}`);
      const config = await configuration();
      const { claims, idToken } = await exchangeCode(config, new URL(c.req.url.replace(/^[^?]*/, redirectUri)), query.state, flow);
      const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : '';
      if (!email) throw new ApiError(400, 'Sign-in failed: the identity provider did not share an e-mail address');
      let sessionSecret: string;
      try {
        // Only a literal `true` counts: a missing claim is not a verification.
        ({ sessionSecret } = await identity.signIn({
          issuer: claims.iss,
          subject: claims.sub,
          email,
          emailVerified: claims.email_verified === true,
          name: typeof claims.name === 'string' ? claims.name : undefined,
        }, { userAgent: c.req.header('user-agent'), idToken }));
      } catch (err) {
        if (err instanceof SignInRefused) throw new ApiError(400, `Sign-in failed: ${err.message}`);
        throw err;
      }
      setCookie(c, SESSION_COOKIE, sessionSecret, {
        httpOnly: true,
        sameSite: 'Lax',
        secure: opts.secureCookies,
        path: '/',
        maxAge: Math.round(opts.sessionTtlHours * 3600),
      });
      return c.redirect(flow.next ?? '/', 302);
    },
  );
}

/**
 * The ID token's claims and the ID token for a callback, with the e-mail (and whether it is verified)
 * from userinfo when the ID token lacks them. Any failure is a 400.
 */
async function exchangeCode(
  config: oidc.Configuration,
  callbackUrl: URL,
  state: string,
  flow: { code_verifier: string; nonce: string },
): Promise<{ claims: oidc.IDToken; idToken: string | undefined }> {
  let claims: oidc.IDToken;
  let idToken: string | undefined;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: flow.code_verifier,
      expectedState: state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims()!;
    idToken = tokens.id_token;
    // Many providers keep profile claims out of the ID token: ask the userinfo endpoint for them. The
    // e-mail and whether it is verified are taken as a pair, from one source.
    const needEmail = typeof claims.email !== 'string';
    if ((needEmail || typeof claims.email_verified !== 'boolean') && tokens.access_token) {
      // Only asked to learn whether the address is verified: a failing userinfo leaves it unverified.
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub).catch((err: unknown) => {
        if (needEmail) throw err;
        return null;
      });
      if (typeof info?.email === 'string') claims = { ...claims, email: info.email, email_verified: info.email_verified, name: info.name ?? claims.name };
    }
  } catch (err) {
    throw new ApiError(400, `Sign-in failed: ${(err as Error).message}`);
  }
  return { claims, idToken };
}
