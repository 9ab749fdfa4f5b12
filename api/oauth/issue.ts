// Token issuance: an opaque access token bound to the grant's resource (the audience) and, for clients
// registered for it, a refresh token. Both are random 256-bit values with a readable prefix (so a leaked
// one is recognisable); only their SHA-256 is stored.
import { hashSecret, randomSecret } from '../../src/lib/data/secrets.ts';
import { iso, plusSeconds, type Lifetimes } from './lifetimes.ts';
import type { Client, Grant, OAuthStore } from '../../src/lib/data/oauth/store.ts';

export const ACCESS_TOKEN_PREFIX = 'oat_';
export const REFRESH_TOKEN_PREFIX = 'ort_';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

/** What issuing takes from the authorization server's context (api/oauth/context.ts) or the device flow. */
export interface TokenIssuing {
  now: () => Date;
  store: OAuthStore;
  lifetimes: Lifetimes;
}

/** Issues an access token and, when the client may refresh, a refresh token. Call inside a transaction. */
export async function issueTokens(ctx: TokenIssuing, client: Client, grant: Pick<Grant, 'id' | 'scope' | 'resource'>, scope: string): Promise<TokenResponse> {
  const t = ctx.now();
  const access = randomSecret(ACCESS_TOKEN_PREFIX, 32);
  await ctx.store.insertToken(
    hashSecret(access),
    { grant_id: grant.id, kind: 'access', scope, resource: grant.resource, expires_at: iso(plusSeconds(t, ctx.lifetimes.accessToken)) },
    iso(t),
  );
  const out: TokenResponse = { access_token: access, token_type: 'Bearer', expires_in: ctx.lifetimes.accessToken, scope };
  if (client.metadata.grant_types.includes('refresh_token')) {
    const refresh = randomSecret(REFRESH_TOKEN_PREFIX, 32);
    await ctx.store.insertToken(
      hashSecret(refresh),
      { grant_id: grant.id, kind: 'refresh', scope: grant.scope, resource: grant.resource, expires_at: iso(plusSeconds(t, ctx.lifetimes.refreshToken)) },
      iso(t),
    );
    out.refresh_token = refresh;
  }
  return out;
}
