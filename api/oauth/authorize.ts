// GET /api/oauth/v2/authorize and the consent form's POST back to it. Browser-facing: the checks of
// authorization_request.ts, then the session (none: off to the identity provider's login with `next` set
// to this very request), then the consent page; on approval one grant and one single-use code bound to
// client, redirect_uri, code_challenge, scope and resource, sent back with `state` and `iss`. Nothing is
// sent back to the client before the person has seen the consent page: until then every error is a page.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Principal } from '../../src/lib/data/identity/index.ts';
import { principal } from '../auth/middleware.ts';
import { MAX_NEXT_LENGTH } from '../auth/oidc.ts';
import { hashSecret, randomId, randomSecret } from '../../src/lib/data/secrets.ts';
import { addRoute } from '../validation/route.ts';
import {
  AUTHORIZE_PARAMS,
  checkRedirectTarget,
  checkRequest,
  clientRedirect,
  type AuthorizeParams,
  type CheckedRequest,
  type RedirectTarget,
} from './authorization_request.ts';
import { grantableScope } from './check_scope.ts';
import { checkConsentToken, consentPage } from './consent.ts';
import { iso, plusSeconds, type OAuthContext } from './context.ts';
import { AccessDenied, InvalidRequest, NonRedirectableError, OAuthError } from './errors.ts';
import { FORM_ENCODED, mediaType, singleValued } from './form.ts';
import { errorPage } from './html.ts';

const AUTHORIZE_PATH = '/api/oauth/v2/authorize';
const LOGIN_PATH = '/api/auth/idp/login';

const optional = (description: string) => z.string().default('').openapi({ description });
const AuthorizeQuery = z.object({
  response_type: optional('code'),
  client_id: optional('From registration'),
  redirect_uri: optional('Exactly as registered; may be omitted when only one is registered'),
  code_challenge: optional('base64url(SHA-256(code_verifier))'),
  code_challenge_method: z.string().default('S256').openapi({ description: 'S256 only' }),
  scope: optional('Space-separated: read, write, moderate, admin; default read'),
  state: optional('Echoed back'),
  resource: optional('RFC 8707; must be {BASE_URL}/mcp, the default'),
});
const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

function paramsFrom(get: (k: string) => string | undefined): AuthorizeParams {
  const p = {} as AuthorizeParams;
  for (const k of AUTHORIZE_PARAMS) p[k] = get(k) ?? '';
  if (p.code_challenge_method === '') p.code_challenge_method = 'S256';
  return p;
}

const redirect = (location: string, status: 302 | 303) => new Response(null, { status, headers: { Location: location, 'Cache-Control': 'no-store' } });

/** The login redirect for a person without a session; `next` (this request, relative) brings them back. */
function toLogin(next: string): Response {
  // The login endpoint takes a `next` of at most MAX_NEXT_LENGTH characters.
  if (next.length > MAX_NEXT_LENGTH) return errorPage(400, 'invalid_request', 'This authorization request is too long to sign in with.');
  return redirect(`${LOGIN_PATH}?${new URLSearchParams({ next })}`, 302);
}

/** The authorization request as a relative URL, rebuilt from its parameters (after a POST). */
const authorizeUrlOf = (p: AuthorizeParams) =>
  `${AUTHORIZE_PATH}?${new URLSearchParams(AUTHORIZE_PARAMS.filter((k) => p[k] !== '').map((k) => [k, p[k]]))}`;

const browserSession = (c: Context): Principal | null => {
  const who = principal(c);
  return who?.via === 'session' ? who : null;
};

/** Stage 1: the client and where it may be sent back to. A failure is a page: there is nothing to trust. */
async function checkTarget(ctx: OAuthContext, p: AuthorizeParams, repeated: string[]): Promise<RedirectTarget | Response> {
  try {
    return await checkRedirectTarget(ctx, p, repeated);
  } catch (err) {
    if (err instanceof NonRedirectableError) return errorPage(400, err.error, err.message);
    throw err;
  }
}

/**
 * Stage 2 before the person has seen the consent page: a failure is a page too (with a plain link to the
 * client's origin), never a redirect. With open registration anyone can register a redirect URI, so
 * redirecting a failing request would make this server an open redirector (RFC 9700 §4.11.2).
 */
function checkBeforeConsent(ctx: OAuthContext, p: AuthorizeParams, target: RedirectTarget, repeated: string[]): CheckedRequest | Response {
  try {
    return checkRequest(ctx, p, target, repeated);
  } catch (err) {
    if (err instanceof OAuthError) return errorPage(400, err.error, err.message, new URL(target.redirectUri).origin);
    throw err;
  }
}

export function registerAuthorizeEndpoint(app: OpenAPIHono, ctx: OAuthContext): void {
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: AUTHORIZE_PATH,
      tags: ['oauth'],
      summary: 'Authorization endpoint (browser): sign-in, then a consent page; redirects back with a code and state',
      request: { query: AuthorizeQuery },
      responses: {
        200: html('The consent page'),
        302: { description: 'To the identity-provider login (no session). Never back to the client: only the consent form\'s answer redirects there' },
        400: html('Any error in the request (unknown client, unregistered redirect_uri, bad PKCE, scope or resource): a page, not a redirect (RFC 9700 §4.11.2)'),
      },
    }),
    async (c) => {
      const url = new URL(c.req.url);
      const p = paramsFrom((k) => url.searchParams.get(k) ?? undefined);
      const repeated = [...new Set([...url.searchParams.keys()].filter((k) => url.searchParams.getAll(k).length > 1))];
      const target = await checkTarget(ctx, p, repeated);
      if (target instanceof Response) return target;
      const req = checkBeforeConsent(ctx, p, target, repeated);
      if (req instanceof Response) return req;
      const who = browserSession(c);
      if (!who) return toLogin(`${url.pathname}${url.search}`);
      const { granted, withheld } = grantableScope(req.scopes, who.user.role);
      return consentPage(ctx, who, p, target, req.scopes, granted, withheld);
    },
  );

  app.openAPIRegistry.registerPath(
    createRoute({
      method: 'post',
      path: AUTHORIZE_PATH,
      tags: ['oauth'],
      summary: "The consent form's answer (same-origin, session and CSRF token): approve or deny",
      request: { body: { content: { 'application/x-www-form-urlencoded': { schema: AuthorizeQuery.extend({ csrf: z.string(), decision: z.enum(['approve', 'deny']) }) } } } },
      responses: { 302: { description: 'To the identity-provider login (the session ended)' }, 303: { description: 'Back to the client with code and state, or with an error (access_denied, or a request error found after consent)' }, 400: html('Invalid form, unknown client or unregistered redirect_uri'), 403: html('Expired or foreign consent form') },
    }),
  );
  app.post(AUTHORIZE_PATH, async (c) => {
    let form: Map<string, string>;
    try {
      if (mediaType(c) !== FORM_ENCODED) throw new InvalidRequest('the consent form is form-encoded');
      form = singleValued(new URLSearchParams(await c.req.text()));
    } catch (err) {
      if (err instanceof OAuthError) return errorPage(400, err.error, err.message);
      throw err;
    }
    const p = paramsFrom((k) => form.get(k));
    const target = await checkTarget(ctx, p, []);
    if (target instanceof Response) return target;
    const who = browserSession(c);
    if (!who) return toLogin(authorizeUrlOf(p));
    if (!checkConsentToken(ctx, who, p, form.get('csrf') ?? '')) {
      return errorPage(403, 'invalid_request', 'This consent form has expired or was not shown to this session. Start again from the app.');
    }
    // From here on the person has seen who the client is (the token proves this session was shown this
    // very request), so errors go back to the client.
    const back = (params: Record<string, string>) => redirect(clientRedirect(ctx, target.redirectUri, params, p.state), 303);
    let req: CheckedRequest;
    try {
      req = checkRequest(ctx, p, target, []);
    } catch (err) {
      if (err instanceof OAuthError) return back({ error: err.error, error_description: err.message });
      throw err;
    }
    const decision = form.get('decision');
    if (decision === 'deny') {
      const denied = new AccessDenied('the person declined the request');
      return back({ error: denied.error, error_description: denied.message });
    }
    if (decision !== 'approve') return errorPage(400, 'invalid_request', 'decision must be approve or deny');
    const { granted } = grantableScope(req.scopes, who.user.role);
    return back({ code: await issueCode(ctx, who, target, req, granted.join(' ')) });
  });
}

/** One grant and its single-use code, with their audit events, in one transaction. */
async function issueCode(ctx: OAuthContext, who: Principal, target: RedirectTarget, req: CheckedRequest, scope: string): Promise<string> {
  const code = randomSecret('', 32);
  const t = ctx.now();
  const grantId = randomId('grant', 12);
  await ctx.db.transaction(async () => {
    await ctx.store.insertGrant({ id: grantId, user_id: who.user.id, client_id: target.client.client_id, scope, resource: req.resource, created_at: iso(t) });
    // The client's first appearance in the log (its registration wrote none): who it says it is.
    await ctx.audit.append({ kind: 'oauth.grant.create', subjectType: 'oauth_grant', subjectId: grantId, actor: { userId: who.user.id }, data: { client_id: target.client.client_id, client_name: target.client.client_name, scope } });
    await ctx.store.insertCode(
      hashSecret(code),
      {
        grant_id: grantId,
        client_id: target.client.client_id,
        redirect_uri: target.redirectUri,
        redirect_uri_given: target.redirectUriGiven ? 1 : 0,
        code_challenge: req.codeChallenge,
        scope,
        resource: req.resource,
        expires_at: iso(plusSeconds(t, ctx.lifetimes.code)),
      },
      iso(t),
    );
    await ctx.audit.append({ kind: 'oauth.code.issue', subjectType: 'oauth_grant', subjectId: grantId, actor: { userId: who.user.id }, data: { client_id: target.client.client_id } });
  });
  return code;
}
