// Our side of the git host's OAuth 2 authorization (openid-client, plain OAuth 2 without OpenID): the
// authorization code flow with PKCE S256 and state, the code exchange, refresh, revocation, and the host
// account's login for the repository URL. Works with GitHub, GitLab, Gitea and Forgejo OAuth apps.
import * as oidc from 'openid-client';
import type { VcsHostConfig } from '../../src/lib/config.ts';
import type { HostTokens } from '../../src/lib/data/personal-knowledge/store.ts';
import { HostError } from './git.ts';

/** Why a connect attempt failed, as the short `reason` the account page receives. */
export class ConnectError extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

function tokensFrom(r: oidc.TokenEndpointResponse, previous?: HostTokens): HostTokens {
  return {
    access_token: r.access_token,
    // Hosts that do not rotate refresh tokens answer without one: keep the one we have.
    refresh_token: r.refresh_token ?? previous?.refresh_token,
    expires_at: typeof r.expires_in === 'number' ? new Date(Date.now() + r.expires_in * 1000).toISOString() : undefined,
    scope: r.scope ?? previous?.scope,
  };
}

function hostFailure(err: unknown, what: string): Error {
  if (err instanceof oidc.ResponseBodyError) {
    // invalid_grant: the refresh token (or code) was revoked, expired or already used.
    const kind = err.error === 'invalid_grant' || err.error === 'invalid_client' || err.error === 'unauthorized_client' ? 'unauthorized' : 'failed';
    return new HostError(kind, `${what}: the host answered ${err.error}${err.error_description ? ` (${err.error_description})` : ''}`);
  }
  const e = err as { name?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.cause?.code || err instanceof TypeError) return new HostError('unreachable', `${what}: the host is unreachable`);
  return new HostError('failed', `${what}: ${(err as Error).message}`);
}

export interface HostOAuth {
  authorizationUrl(input: { redirectUri: string; state: string; codeVerifier: string }): Promise<string>;
  /** Exchanges the code of a callback request (its query) for tokens; checks state and the `iss` of RFC 9207. */
  exchange(input: { callbackQuery: string; redirectUri: string; state: string; codeVerifier: string }): Promise<HostTokens>;
  refresh(tokens: HostTokens): Promise<HostTokens>;
  /** Best effort: tells the host to forget the token (RFC 7009) when it has a revocation endpoint. */
  revoke(tokens: HostTokens): Promise<void>;
  /** The host account's login (for {login} in the repository URL). */
  login(accessToken: string): Promise<string>;
}

export function createHostOAuth(host: VcsHostConfig, opts: { timeoutSeconds: number; userAgent: string }): HostOAuth {
  const server: oidc.ServerMetadata = {
    issuer: host.issuer,
    authorization_endpoint: host.authorizeUrl,
    token_endpoint: host.tokenUrl,
    ...(host.revokeUrl ? { revocation_endpoint: host.revokeUrl } : {}),
  };
  const auth =
    host.tokenAuthMethod === 'none' || !host.clientSecret
      ? oidc.None()
      : host.tokenAuthMethod === 'client_secret_basic'
        ? oidc.ClientSecretBasic(host.clientSecret)
        : oidc.ClientSecretPost(host.clientSecret);
  const config = new oidc.Configuration(server, host.clientId, undefined, auth);
  config.timeout = opts.timeoutSeconds;
  // config.ts allows plain http for loopback hosts only.
  if (new URL(host.tokenUrl).protocol === 'http:') oidc.allowInsecureRequests(config);

  return {
    async authorizationUrl({ redirectUri, state, codeVerifier }) {
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        ...(host.scopes ? { scope: host.scopes } : {}),
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      });
      return url.href;
    },

    async exchange({ callbackQuery, redirectUri, state, codeVerifier }) {
      // The code is redeemed for the redirect_uri it was issued to, whatever address the callback came in on.
      const current = new URL(redirectUri);
      current.search = callbackQuery;
      try {
        const r = await oidc.authorizationCodeGrant(config, current, { pkceCodeVerifier: codeVerifier, expectedState: state, idTokenExpected: false });
        return tokensFrom(r);
      } catch (err) {
        const failure = hostFailure(err, 'token exchange');
        throw new ConnectError(failure instanceof HostError && failure.kind === 'unreachable' ? 'host_unreachable' : 'token_exchange_failed', failure.message);
      }
    },

    async refresh(tokens) {
      if (!tokens.refresh_token) throw new HostError('unauthorized', 'the access token expired and the host gave no refresh token');
      try {
        return tokensFrom(await oidc.refreshTokenGrant(config, tokens.refresh_token), tokens);
      } catch (err) {
        throw hostFailure(err, 'token refresh');
      }
    },

    async revoke(tokens) {
      if (!host.revokeUrl) return;
      for (const [token, hint] of [[tokens.refresh_token, 'refresh_token'], [tokens.access_token, 'access_token']] as const) {
        if (token) await oidc.tokenRevocation(config, token, { token_type_hint: hint }).catch(() => {});
      }
    },

    async login(accessToken) {
      if (!host.userinfoUrl) throw new ConnectError('configuration', 'VCS_USERINFO_URL is not set');
      let body: Record<string, unknown>;
      try {
        const res = await fetch(host.userinfoUrl, {
          headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json', 'User-Agent': opts.userAgent },
          signal: AbortSignal.timeout(opts.timeoutSeconds * 1000),
        });
        if (!res.ok) throw new ConnectError('userinfo_failed', `the host's user endpoint answered ${res.status}`);
        body = (await res.json()) as Record<string, unknown>;
      } catch (err) {
        if (err instanceof ConnectError) throw err;
        throw new ConnectError('host_unreachable', `the host's user endpoint is unreachable (${(err as Error).message})`);
      }
      // GitHub and Gitea say `login`, GitLab `username`, OpenID providers `preferred_username`.
      const login = [body.login, body.username, body.preferred_username, body.nickname].find((v): v is string => typeof v === 'string');
      if (!login || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(login)) throw new ConnectError('userinfo_failed', 'the host did not name the account');
      return login;
    },
  };
}
