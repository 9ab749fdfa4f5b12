// Storage of the authorization server: clients, grants (one user's consent to one client, the family every
// code and token hangs off), codes and tokens. Secrets are stored only as SHA-256 (../secrets.ts); callers
// hash before they ask. Writes run inside the caller's transaction, next to its audit event. The single-use
// rules (a code exchanged once, a refresh token rotated once) are conditional updates whose answer the
// caller checks: of two instances racing, one wins.
import type { Db } from '../db/index.ts';

export type AuthMethod = 'none' | 'client_secret_basic';

export interface Client {
  client_id: string;
  secret_hash: Buffer | null;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: AuthMethod;
  /** The registered metadata as answered at registration (never the secret). */
  metadata: Record<string, unknown> & { grant_types: string[]; scope?: string };
  created_at: string;
}

export interface Grant {
  id: string;
  user_id: string;
  client_id: string;
  scope: string;
  resource: string;
  created_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
}

export interface CodeRow {
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  redirect_uri_given: number;
  code_challenge: string;
  scope: string;
  resource: string;
  expires_at: string;
  used_at: string | null;
}

/** A code as its exchange reads it: with its grant's user and whether the grant was revoked. */
export interface CodeWithGrant extends CodeRow {
  user_id: string;
  grant_revoked_at: string | null;
}

export interface TokenRow {
  grant_id: string;
  kind: 'access' | 'refresh';
  scope: string;
  resource: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
  /** From the grant. */
  user_id: string;
  client_id: string;
  grant_revoked_at: string | null;
}

/** An access token as the resource server checks it: live, with its grant's user and client. */
export interface AccessTokenRow {
  scope: string;
  resource: string;
  expires_at: string;
  user_id: string;
  client_id: string;
  grant_id: string;
}

export interface ActiveClient {
  client_id: string;
  client_name: string;
  metadata: string;
  scopes: string;
  authorized_at: string;
  last_used_at: string | null;
}

/** Live credentials of a grant at time ?: an unused code, an access token, or an unrotated refresh token. */
const LIVE = `(EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = g.id AND t.revoked_at IS NULL AND t.expires_at > @now
                 AND (t.kind = 'access' OR t.used_at IS NULL))
            OR EXISTS (SELECT 1 FROM oauth_codes k WHERE k.grant_id = g.id AND k.used_at IS NULL AND k.expires_at > @now))`;

export function oauthStore(db: Db) {
  const clientRow = db.prepare<[string], Omit<Client, 'redirect_uris' | 'metadata'> & { redirect_uris: string; metadata: string }>(
    'SELECT * FROM oauth_clients WHERE client_id = ?',
  );
  const codeRow = db.prepare<[Buffer], CodeWithGrant>(
    `SELECT c.grant_id, c.client_id, c.redirect_uri, c.redirect_uri_given, c.code_challenge, c.scope, c.resource, c.expires_at, c.used_at,
            g.user_id, g.revoked_at AS grant_revoked_at
       FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_hash = ?`,
  );
  // PostgreSQL only (store.lockGrant); SQLite knows no FOR UPDATE.
  const grantLock = db.dialect === 'postgres' ? db.prepare<[string]>('SELECT 1 FROM oauth_grants WHERE id = ? FOR UPDATE') : null;
  const tokenRow = db.prepare<[Buffer], TokenRow>(
    `SELECT t.grant_id, t.kind, t.scope, t.resource, t.expires_at, t.used_at, t.revoked_at,
            g.user_id, g.client_id, g.revoked_at AS grant_revoked_at
       FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = ?`,
  );

  const accessToken = db.prepare<[Buffer], AccessTokenRow>(
    `SELECT t.scope, t.resource, t.expires_at, g.user_id, g.client_id, g.id AS grant_id
       FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
      WHERE t.token_hash = ? AND t.kind = 'access' AND t.revoked_at IS NULL AND g.revoked_at IS NULL`,
  );

  return {
    async insertClient(c: Client): Promise<void> {
      await db.prepare(
        `INSERT INTO oauth_clients (client_id, secret_hash, client_name, redirect_uris, token_endpoint_auth_method, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(c.client_id, c.secret_hash, c.client_name, JSON.stringify(c.redirect_uris), c.token_endpoint_auth_method, JSON.stringify(c.metadata), c.created_at);
    },

    /** Removes clients registered before `before` that no one ever granted anything; returns how many. */
    async purgeUnusedClients(before: string): Promise<number> {
      const r = await db
        .prepare('DELETE FROM oauth_clients WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.client_id)')
        .run(before);
      return r.changes;
    },

    async getClient(clientId: string): Promise<Client | undefined> {
      const r = await clientRow.get(clientId);
      return r && { ...r, redirect_uris: JSON.parse(r.redirect_uris) as string[], metadata: JSON.parse(r.metadata) as Client['metadata'] };
    },

    async insertGrant(g: Omit<Grant, 'revoked_at' | 'revoked_reason'>): Promise<void> {
      await db.prepare('INSERT INTO oauth_grants (id, user_id, client_id, scope, resource, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        g.id, g.user_id, g.client_id, g.scope, g.resource, g.created_at,
      );
    },

    async insertCode(hash: Buffer, c: Omit<CodeRow, 'used_at'>, createdAt: string): Promise<void> {
      await db.prepare(
        `INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, redirect_uri_given, code_challenge, scope, resource, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(hash, c.grant_id, c.client_id, c.redirect_uri, c.redirect_uri_given, c.code_challenge, c.scope, c.resource, createdAt, c.expires_at);
    },

    /** A code and its grant's user and revocation, in one round trip. */
    getCode: (hash: Buffer): Promise<CodeWithGrant | undefined> => codeRow.get(hash),

    /** Consumes a code; false when it was already used (a concurrent exchange won). */
    useCode: async (hash: Buffer, at: string): Promise<boolean> =>
      (await db.prepare('UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL').run(at, hash)).changes === 1,

    async insertToken(hash: Buffer, t: { grant_id: string; kind: 'access' | 'refresh'; scope: string; resource: string; expires_at: string }, createdAt: string): Promise<void> {
      await db.prepare('INSERT INTO oauth_tokens (token_hash, grant_id, kind, scope, resource, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        hash, t.grant_id, t.kind, t.scope, t.resource, createdAt, t.expires_at,
      );
    },

    getToken: (hash: Buffer): Promise<TokenRow | undefined> => tokenRow.get(hash),

    /**
     * Takes the grant's row lock for the rest of the transaction, so that everything that rotates or revokes
     * a grant's tokens takes its locks in one order, the grant first. Without it, on PostgreSQL, a rotation
     * (the token's row, then new rows checked against the grant) and the revocations of the reuses racing it
     * (the grant, then every token row) deadlocked: 8 refreshes of one token at once got 1-4 answers 503.
     * On SQLite a transaction already has the database to itself.
     */
    async lockGrant(grantId: string): Promise<void> {
      await grantLock?.run(grantId);
    },

    /** A live access token (unrevoked, of an unrevoked grant), whatever its expiry and resource. */
    getAccessToken: (hash: Buffer): Promise<AccessTokenRow | undefined> => accessToken.get(hash),

    /** Marks a refresh token rotated; false when it already was (a concurrent rotation won). */
    useToken: async (hash: Buffer, at: string): Promise<boolean> =>
      (await db.prepare('UPDATE oauth_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL').run(at, hash)).changes === 1,

    revokeToken: async (hash: Buffer, at: string): Promise<boolean> =>
      (await db.prepare('UPDATE oauth_tokens SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL').run(at, hash)).changes === 1,

    /** Revokes a grant and everything issued under it; false when it was already revoked. */
    async revokeGrant(grantId: string, reason: string, at: string): Promise<boolean> {
      const r = await db.prepare('UPDATE oauth_grants SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL').run(at, reason, grantId);
      await db.prepare('UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL').run(at, grantId);
      await db.prepare('UPDATE oauth_codes SET used_at = ? WHERE grant_id = ? AND used_at IS NULL').run(at, grantId);
      return r.changes === 1;
    },

    /** Clients holding live credentials of this user, one row per client. */
    activeClients(userId: string, now: string): Promise<ActiveClient[]> {
      return db
        .prepare<{ user: string; now: string }, ActiveClient>(
          `SELECT c.client_id, c.client_name, c.metadata, group_concat(g.scope, ' ') AS scopes, MIN(g.created_at) AS authorized_at,
                  (SELECT MAX(t.created_at) FROM oauth_tokens t JOIN oauth_grants g2 ON g2.id = t.grant_id
                    WHERE g2.user_id = @user AND g2.client_id = c.client_id) AS last_used_at
             FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id
            WHERE g.user_id = @user AND g.revoked_at IS NULL AND ${LIVE}
            GROUP BY c.client_id ORDER BY authorized_at, c.client_id`,
        )
        .all({ user: userId, now });
    },

    /** This user's unrevoked grants for a client, and whether any of them is live. */
    async grantsOf(userId: string, clientId: string, now: string): Promise<{ ids: string[]; live: boolean }> {
      const rows = await db
        .prepare<{ user: string; client: string; now: string }, { id: string; live: number }>(
          `SELECT g.id, ${LIVE} AS live FROM oauth_grants g WHERE g.user_id = @user AND g.client_id = @client AND g.revoked_at IS NULL`,
        )
        .all({ user: userId, client: clientId, now });
      return { ids: rows.map((r) => r.id), live: rows.some((r) => r.live === 1) };
    },
  };
}

export type OAuthStore = ReturnType<typeof oauthStore>;
