// Access-token verification, for the REST API (through identity.addBearerResolver) and for the MCP
// resource (which also needs the client and expiry). A token is good when it is known, unexpired,
// unrevoked, of an unrevoked grant, and bound to this deployment's resource: a token issued for another
// audience is not recognised at all.
import type { Identity, Principal } from '../../src/lib/data/identity/index.ts';
import { hashSecret } from '../../src/lib/data/secrets.ts';
import type { Db } from '../../src/lib/data/db/index.ts';
import { oauthStore } from '../../src/lib/data/oauth/store.ts';
import { ACCESS_TOKEN_PREFIX } from './issue.ts';

export interface AccessTokenInfo {
  principal: Principal;
  clientId: string;
  /** Seconds since the epoch. */
  expiresAt: number;
}

export function accessTokenVerifier(db: Db, identity: Identity, resource: string, now: () => Date = () => new Date()) {
  const store = oauthStore(db);
  return async (token: string): Promise<AccessTokenInfo | null> => {
    if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return null;
    const row = await store.getAccessToken(hashSecret(token));
    if (!row || row.resource !== resource || row.expires_at <= now().toISOString()) return null;
    const user = await identity.getUser(row.user_id);
    if (!user) return null;
    return {
      principal: { user, via: 'oauth', scopes: row.scope.split(' '), audience: row.resource, credentialId: row.grant_id },
      clientId: row.client_id,
      expiresAt: Math.floor(Date.parse(row.expires_at) / 1000),
    };
  };
}

export type AccessTokenVerifier = ReturnType<typeof accessTokenVerifier>;
