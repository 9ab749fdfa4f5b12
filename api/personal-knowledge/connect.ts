// The connect flow over HTTP: begin (the authorize URL, state bound to the browser session, PKCE), the
// embedded store's own authorize step when no git host is configured, and the callback that redeems the
// code, stores the token encrypted, clones the repository and sends the browser back to /account.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { addRoute } from '../validation/route.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail } from '../openapi/schemas.ts';
import { principal, requireSession } from '../auth/middleware.ts';
import { hashSecret, randomSecret } from '../../src/lib/data/secrets.ts';
import { enforceRate } from '../rate-limit/index.ts';
import { ConnectError } from './oauth-client.ts';
import { HostError } from './git.ts';
import type { PkRouteDeps } from './deps.ts';
import { BeginOut, E, json } from './schemas.ts';

const FLOW_TTL_MS = 10 * 60_000;
const EMBEDDED_CLIENT_ID = 'kb-embedded-notes';
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Why a clone failed, as the account page's reason. */
const CLONE_REASONS: Record<string, string> = {
  unauthorized: 'repository_access_denied',
  forbidden: 'repository_access_denied',
  not_found: 'repository_not_found',
  unreachable: 'host_unreachable',
};

const account = (params: Record<string, string>) => `/account?${new URLSearchParams(params)}`;

/** Registers the connect flow: begin, the embedded store's authorize step, and the callback. */
export function registerConnectRoutes(app: OpenAPIHono, deps: PkRouteDeps): void {
  registerBeginRoute(app, deps);
  registerEmbeddedAuthorizeRoute(app, deps);
  registerCallbackRoute(app, deps);
}

/** GET /api/auth/vcs/begin: a flow bound to the browser session, and the authorize URL to send it to. */
function registerBeginRoute(app: OpenAPIHono, deps: PkRouteDeps): void {
  const { config, store, oauth } = deps;
  const host = config.vcs.host;
  const publicOrigin = new URL(config.baseUrl).origin;
  const defaultRedirect = `${config.baseUrl}/api/auth/vcs/callback`;
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/auth/vcs/begin',
      tags: ['personal-knowledge'],
      summary: 'Start connecting your note repository: the host authorize URL to send the browser to',
      description:
        'Authorization code flow with PKCE (S256); `state` is bound to your browser session and lives ten minutes. ' +
        'With no git host configured, the URL leads to this server\'s own authorize step for the embedded store.',
      request: {
        query: z.object({
          redirect_uri: z
            .string()
            .max(2000)
            .refine((v) => URL.canParse(v) && new URL(v).origin === publicOrigin, { message: `must be a URL on ${publicOrigin}` })
            .optional()
            .openapi({ description: `Where the host sends the browser back; default ${defaultRedirect}. Must be on this site.` }),
        }),
      },
      responses: { 200: json(BeginOut, 'The URL to send the browser to'), ...E },
    }),
    async (c, { query }) => {
      const p = requireSession(c);
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      const state = randomSecret('', 32);
      const codeVerifier = randomSecret('', 48); // 64 base64url characters: a valid RFC 7636 verifier
      const redirectUri = query.redirect_uri ?? defaultRedirect;
      const mode = host ? 'remote' : 'embedded';
      await store.createFlow(hashSecret(state), { userId: p.user.id, sessionId: p.credentialId, mode, codeVerifier, redirectUri, ttlMs: FLOW_TTL_MS });
      let authorizeUrl: string;
      if (oauth) authorizeUrl = await oauth.authorizationUrl({ redirectUri, state, codeVerifier });
      else {
        const u = new URL(`${config.baseUrl}/api/auth/vcs/embedded/authorize`);
        u.search = new URLSearchParams({ response_type: 'code', client_id: EMBEDDED_CLIENT_ID, redirect_uri: redirectUri, state, code_challenge: s256(codeVerifier), code_challenge_method: 'S256' }).toString();
        authorizeUrl = u.href;
      }
      return c.json({ authorize_url: authorizeUrl, state, mode, host: host?.hostName ?? 'this server', expires_in: FLOW_TTL_MS / 1000 });
    },
  );

}

// The embedded store's authorization server: the store is on this server and belongs to the person signed
// in, so it approves at once, but only for the flow this very session began, and with the PKCE challenge
// that flow made. The callback then redeems the code as it would a host's.
function registerEmbeddedAuthorizeRoute(app: OpenAPIHono, deps: PkRouteDeps): void {
  const { config, store } = deps;
  const host = config.vcs.host;
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/auth/vcs/embedded/authorize',
      tags: ['personal-knowledge'],
      summary: 'The embedded note store\'s authorize step (only without a git host configured)',
      request: {
        query: z.object({
          response_type: z.string().optional(),
          client_id: z.string().optional(),
          redirect_uri: z.string().max(2000).optional(),
          state: z.string().max(200).optional(),
          code_challenge: z.string().max(200).optional(),
          code_challenge_method: z.string().optional(),
        }),
      },
      responses: { 302: { description: 'Back to redirect_uri with a code' }, 400: json(ErrorDetail, 'Not a flow this session began'), ...E },
    }),
    async (c, { query }) => {
      if (host) throw new ApiError(404, 'Not found');
      const p = requireSession(c);
      const stateHash = hashSecret(query.state ?? '');
      const flow = query.state ? await store.peekFlow(stateHash) : undefined;
      const valid =
        flow &&
        flow.expires_at > new Date().toISOString() &&
        flow.mode === 'embedded' &&
        flow.user_id === p.user.id &&
        flow.session_id === p.credentialId &&
        query.response_type === 'code' &&
        query.client_id === EMBEDDED_CLIENT_ID &&
        query.redirect_uri === flow.redirect_uri &&
        query.code_challenge_method === 'S256' &&
        query.code_challenge === s256(store.verifierOf(stateHash, flow));
      if (!valid) throw new ApiError(400, 'This connect link is not valid for your session or has expired: start again at GET /api/auth/vcs/begin');
      const code = randomSecret('', 32);
      if (!(await store.setFlowCode(stateHash, hashSecret(code)))) throw new ApiError(400, 'This connect link was already used: start again');
      const back = new URL(flow.redirect_uri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', query.state!);
      return c.redirect(back.href, 302);
    },
  );

}

/** GET /api/auth/vcs/callback: checks the flow against the session, redeems the code, connects the store. */
function registerCallbackRoute(app: OpenAPIHono, deps: PkRouteDeps): void {
  const { config, store, notes, oauth } = deps;
  const host = config.vcs.host;
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/auth/vcs/callback',
      tags: ['personal-knowledge'],
      summary: 'Finish connecting (the host sends the browser here)',
      description: 'Checks state against your session, exchanges the code, stores the token encrypted and clones the repository. Always redirects to /account with pk=connected, or pk=error and a reason.',
      request: {
        query: z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional(), error_description: z.string().optional() }).passthrough(),
      },
      responses: { 302: { description: 'To /account?pk=connected, or /account?pk=error&reason=…' } },
    }),
    async (c, { query }) => {
      const fail = (reason: string, why?: string) => {
        if (why) deps.log(`personal-knowledge: connect failed (${reason}): ${why}`);
        return c.redirect(account({ pk: 'error', reason }), 302);
      };
      if (!query.state) return fail('invalid_request');
      const stateHash = hashSecret(query.state);
      const flow = await store.takeFlow(stateHash);
      if (!flow || flow.expires_at < new Date().toISOString()) return fail('expired');
      // Only the session that began the flow may finish it: a link begun by someone else connects nothing.
      const p = principal(c);
      if (!p || p.via !== 'session' || p.user.id !== flow.user_id || p.credentialId !== flow.session_id) return fail('session_mismatch');
      if (query.error) return fail(query.error.replace(/[^a-z0-9_]/gi, '').slice(0, 64).toLowerCase() || 'host_error');
      if (!query.code) return fail('invalid_request');
      try {
        if (flow.mode === 'embedded') {
          if (host) return fail('configuration_changed');
          const expected = flow.local_code_hash;
          if (!expected || !timingSafeEqual(expected, hashSecret(query.code))) return fail('invalid_code');
          await notes.connectEmbedded(p.user.id);
          return c.redirect(account({ pk: 'connected' }), 302);
        }
        if (!host || !oauth) return fail('configuration_changed');
        const tokens = await oauth.exchange({ callbackQuery: new URL(c.req.url).search, redirectUri: flow.redirect_uri, state: query.state, codeVerifier: store.verifierOf(stateHash, flow) });
        try {
          const login = host.repoUrlTemplate.includes('{login}') ? await oauth.login(tokens.access_token) : '';
          const repository = host.repoUrlTemplate
            .replaceAll('{login}', encodeURIComponent(login))
            .replaceAll('{handle}', encodeURIComponent(p.user.handle))
            .replaceAll('{user_id}', encodeURIComponent(p.user.id));
          await notes.connectRemote(p.user.id, { host: host.hostName, repository, tokens });
        } catch (err) {
          await oauth.revoke(tokens).catch(() => {}); // we keep nothing, so the host should not either
          throw err;
        }
        return c.redirect(account({ pk: 'connected' }), 302);
      } catch (err) {
        if (err instanceof ConnectError) return fail(err.reason, err.message);
        if (err instanceof HostError) return fail(CLONE_REASONS[err.kind] ?? 'repository_unavailable', err.message);
        throw err;
      }
    },
  );
}
