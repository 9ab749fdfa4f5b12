// Access-token verification, for the REST API (through identity.addBearerResolver) and for the MCP
// resource (which also needs the client and expiry). A token is good when it is known, unexpired,
// unrevoked, of an unrevoked grant, and bound to this deployment's resource: a token issued for another
// audience is not recognised at all.
import type { Db } from '../db/index.ts';
import type { Identity, Principal } from '../auth/identity.ts';
import { hashSecret } from '../auth/secrets.ts';
import { ACCESS_TOKEN_PREFIX } from './issue.ts';

export interface AccessTokenInfo {
  principal: Principal;
  clientId: string;
  /** Seconds since the epoch. */
  expiresAt: number;
}

export function accessTokenVerifier(db: Db, identity: Identity, resource: string, now: () => Date = () => new Date()) {
  const lookup = db.prepare<[Buffer], { scope: string; resource: string; expires_at: string; user_id: string; client_id: string; grant_id: string }>(
    `SELECT t.scope, t.resource, t.expires_at, g.user_id, g.client_id, g.id AS grant_id
       FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
      WHERE t.token_hash = ? AND t.kind = 'access' AND t.revoked_at IS NULL AND g.revoked_at IS NULL`,
  );
  return (token: string): AccessTokenInfo | null => {
    if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return null;
    const row = lookup.get(hashSecret(token));
    if (!row || row.resource !== resource || row.expires_at <= now().toISOString()) return null;
    const user = identity.getUser(row.user_id);
    if (!user) return null;
    return {
      principal: { user, via: 'oauth', scopes: row.scope.split(' '), audience: row.resource, credentialId: row.grant_id },
      clientId: row.client_id,
      expiresAt: Math.floor(Date.parse(row.expires_at) / 1000),
    };
  };
}

export type AccessTokenVerifier = ReturnType<typeof accessTokenVerifier>;
