// Identity: users and roles, browser sessions and API keys, and the resolution of a request's credentials
// (session cookie or bearer token) to a user. Every write here appends its audit event in the same
// transaction. The OAuth server adds its access tokens through `addBearerResolver`.
import type { Db } from '../db/index.ts';
import type { AuditLog } from '../audit/index.ts';
import { hashSecret, randomId, randomSecret } from '../secrets.ts';

export type Role = 'user' | 'moderator' | 'admin';
export const ROLES: readonly Role[] = ['user', 'moderator', 'admin'];

export interface User {
  id: string;
  email: string;
  display_name: string;
  handle: string;
  bio: string;
  role: Role;
  idp_issuer: string;
  idp_subject: string;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
}

/** How a request proved who it is. */
export interface Principal {
  user: User;
  via: 'session' | 'api_key' | 'oauth';
  /** OAuth scopes; API keys and sessions act with the user's full role. */
  scopes: string[] | null;
  /** The resource (audience) an OAuth access token was issued for. */
  audience: string | null;
  /** The credential's own id (session hash prefix, key id, grant id), for revocation and logs. */
  credentialId: string;
}

export type BearerResolver = (token: string) => Promise<Principal | null>;

export interface IdentityOptions {
  keyPrefix: string;
  adminEmails: string[];
  moderatorEmails: string[];
  sessionTtlHours: number;
  /** A session unused this long ends (SESSION_IDLE_HOURS); unset: only its lifetime ends it. */
  sessionIdleHours?: number;
  now?: () => Date;
}

/** A live browser session as its person sees it on the account page. */
export interface SessionInfo {
  /** Public and stable: the first 8 bytes of the session's hash, in hex (a principal's credentialId). */
  id: string;
  userAgent: string | null;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

/** The public id of a session: its principal's credentialId. */
const sessionIdOf = (idHash: Buffer) => idHash.toString('hex').slice(0, 16);

const iso = (d: Date) => d.toISOString();

/** A user's columns, for the queries that read a credential and its user in one round trip. */
const USER_COLUMNS = 'u.id, u.email, u.display_name, u.handle, u.bio, u.role, u.idp_issuer, u.idp_subject, u.created_at, u.updated_at, u.last_login_at';

/**
 * Users, sessions and API keys over `db`, each write with its audit event: built from one part per
 * concern (accounts, browser sessions, API keys and bearer tokens) that share the clock and the user lookup.
 * @example const identity = createIdentity(db, audit, { keyPrefix: 'kb_', adminEmails, moderatorEmails, sessionTtlHours: 336 })
 */
export function createIdentity(db: Db, audit: AuditLog, opts: IdentityOptions) {
  const userById = db.prepare<[string], User>('SELECT * FROM users WHERE id = ?');
  const ctx: IdentityContext = { db, audit, opts, now: opts.now ?? (() => new Date()), userById: (id) => userById.get(id) };
  return {
    keyPrefix: opts.keyPrefix,
    ...userAccounts(ctx),
    ...browserSessions(ctx),
    ...apiKeys(ctx),
  };
}

/** What every part of the identity shares: the database, the audit log, the options, the clock, the user lookup. */
interface IdentityContext {
  db: Db;
  audit: AuditLog;
  opts: IdentityOptions;
  now: () => Date;
  userById: (id: string) => Promise<User | undefined>;
}

/** The role ADMIN_EMAILS and MODERATOR_EMAILS give an address; every other account is a user. */
function configuredRole(opts: IdentityOptions, email: string): Role {
  const e = email.toLowerCase();
  if (opts.adminEmails.includes(e)) return 'admin';
  if (opts.moderatorEmails.includes(e)) return 'moderator';
  return 'user';
}

/**
 * Gives the account the role the configuration gives its e-mail, down as well as up, with a
 * `user.role_change` event (actor `system`). Inside the caller's transaction; false when it holds it already.
 * The update is conditional on the role read: of two instances applying it at once, one writes the event.
 */
async function applyConfiguredRole({ db, audit, opts, now }: IdentityContext, user: Pick<User, 'id' | 'email' | 'role'>): Promise<boolean> {
  const role = configuredRole(opts, user.email);
  if (role === user.role) return false;
  const r = await db.prepare('UPDATE users SET role = ?, updated_at = ? WHERE id = ? AND role = ?').run(role, iso(now()), user.id, user.role);
  if (r.changes === 0) return false;
  await audit.append({ kind: 'user.role_change', subjectType: 'user', subjectId: user.id, actor: 'system', data: { role, previous: user.role, source: 'configuration' } });
  return true;
}

/** Accounts: lookups, the configured roles, the profile. */
function userAccounts(ctx: IdentityContext) {
  const { db, audit, now, userById } = ctx;
  return {
    getUser: (id: string): Promise<User | undefined> => userById(id),
    getUserByHandle: (handle: string): Promise<User | undefined> => db.prepare<[string], User>('SELECT * FROM users WHERE handle = ?').get(handle),

    /**
     * Brings every account's role in line with ADMIN_EMAILS and MODERATOR_EMAILS, down as well as up, one
     * `user.role_change` event each; the server calls it at start (a sign-in does the same for its
     * account). Returns how many accounts changed.
     */
    async applyConfiguredRoles(): Promise<number> {
      const users = await db.prepare<[], Pick<User, 'id' | 'email' | 'role'>>('SELECT id, email, role FROM users').all();
      const stale = users.filter((u) => configuredRole(ctx.opts, u.email) !== u.role);
      if (stale.length === 0) return 0;
      // Each update is conditional on the role read here: another instance may have changed a row since.
      return db.transaction(async () => {
        let changed = 0;
        for (const u of stale) if (await applyConfiguredRole(ctx, u)) changed++;
        return changed;
      });
    },

    async updateProfile(userId: string, patch: { display_name?: string; bio?: string; handle?: string }): Promise<User> {
      const fields = Object.entries(patch).filter(([, v]) => v !== undefined);
      if (fields.length === 0) return (await userById(userId))!;
      return db.transaction(async () => {
        const user = await db
          .prepare<Record<string, unknown>, User>(`UPDATE users SET ${fields.map(([k]) => `${k} = @${k}`).join(', ')}, updated_at = @t WHERE id = @id RETURNING *`)
          .get({ ...patch, t: iso(now()), id: userId });
        await audit.append({ kind: 'account.update', subjectType: 'user', subjectId: userId, actor: { userId }, data: { fields: fields.map(([k]) => k).sort() } });
        return user!;
      });
    },

    isHandleTaken: async (handle: string, exceptUserId: string): Promise<boolean> =>
      !!(await db.prepare('SELECT 1 FROM users WHERE handle = ? AND id != ?').get(handle, exceptUserId)),
  };
}

/**
 * The account a sign-in's claims name, found by issuer and subject, else by verified e-mail, else created;
 * its role brought in line with the configuration. Inside the sign-in's transaction.
 */
function signInAccounts(ctx: IdentityContext) {
  const { db, audit, opts } = ctx;
  const userBySubject = db.prepare<[string, string], User>('SELECT * FROM users WHERE idp_issuer = ? AND idp_subject = ?');
  const userByEmail = db.prepare<[string], User>('SELECT * FROM users WHERE email = ?');
  const handleTaken = db.prepare<[string], number>('SELECT 1 FROM users WHERE handle = ?').pluck();

  const insertUser = db.prepare<unknown[], User>(
    `INSERT INTO users (id, email, display_name, handle, role, idp_issuer, idp_subject, created_at, updated_at, last_login_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const loggedIn = db.prepare<[string, string, string, string], User>('UPDATE users SET last_login_at = ?, idp_issuer = ?, idp_subject = ? WHERE id = ? RETURNING *');

  async function uniqueHandle(email: string, name: string): Promise<string> {
    const base = (name || email.split('@')[0]).toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '').slice(0, 20) || 'user';
    let handle = base;
    for (let i = 2; await handleTaken.get(handle); i++) handle = `${base}${i}`;
    return handle;
  }

  return async (claims: SignInClaims, t: string): Promise<User> => {
    const user = (await userBySubject.get(claims.issuer, claims.subject)) ?? (claims.emailVerified ? await userByEmail.get(claims.email) : undefined);
    // A new account needs a verified address too: one taken on someone else's word would block, or
    // later be handed, the address's real owner (the e-mail is unique).
    if (!user && !claims.emailVerified) throw new SignInRefused('the identity provider has not verified this e-mail address');
    if (!user) {
      const id = randomId('usr');
      const name = (claims.name ?? '').trim() || claims.email.split('@')[0];
      const role = configuredRole(opts, claims.email);
      const created = await insertUser.get(id, claims.email, name.slice(0, 100), await uniqueHandle(claims.email, name), role, claims.issuer, claims.subject, t, t, t);
      await audit.append({ kind: 'user.create', subjectType: 'user', subjectId: id, actor: { userId: id }, data: { role } });
      return created!;
    }
    await applyConfiguredRole(ctx, user);
    return (await loggedIn.get(t, claims.issuer, claims.subject, user.id))!;
  };
}

type SignInClaims = { issuer: string; subject: string; email: string; emailVerified: boolean; name?: string };

/** Browser sessions: sign-in, the session behind a cookie, the account page's list, sign-out. */
function browserSessions(ctx: IdentityContext) {
  const { db, audit, opts, now } = ctx;
  const accountFor = signInAccounts(ctx);
  const idleMs = (opts.sessionIdleHours ?? opts.sessionTtlHours) * 3_600_000;
  /** Sessions last seen at or before this are idle: ended, though their lifetime has not run out. */
  const idleCutoff = (t: Date) => iso(new Date(t.getTime() - idleMs));
  type SessionRow = { id_hash: Buffer; user_agent: string | null; created_at: string; last_seen_at: string; expires_at: string };
  const liveSessionRows = db.prepare<[string, string, string], SessionRow>(
    `SELECT id_hash, user_agent, created_at, last_seen_at, expires_at FROM sessions
     WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ? AND last_seen_at > ? ORDER BY last_seen_at DESC, created_at DESC`,
  );
  /** The person's live sessions (not signed out, within their lifetime, not idle), the most recently used first. */
  const liveSessions = (userId: string) => {
    const t = now();
    return liveSessionRows.all(userId, iso(t), idleCutoff(t));
  };
  // The session and its user in one round trip: the lookup every signed-in request makes.
  const sessionByHash = db.prepare<[Buffer], User & { s_expires_at: string; s_revoked_at: string | null; s_last_seen_at: string }>(
    `SELECT ${USER_COLUMNS}, s.expires_at AS s_expires_at, s.revoked_at AS s_revoked_at, s.last_seen_at AS s_last_seen_at
       FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id_hash = ?`,
  );
  const touchSession = db.prepare('UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?');
  const insertSession = db.prepare('INSERT INTO sessions (id_hash, user_id, created_at, expires_at, last_seen_at, user_agent, id_token) VALUES (?, ?, ?, ?, ?, ?, ?)');
  // The ID token (personal claims) is kept only while it may still serve as the sign-out's hint. Conditional:
  // of two sign-outs of one session at once, one ends it and writes the event.
  const endSessionRow = db.prepare('UPDATE sessions SET revoked_at = ?, id_token = NULL WHERE id_hash = ? AND revoked_at IS NULL');
  /** A session as the public audit log names it: a keyed pseudonym of its hash, never its person. */
  const sessionSubject = (idHash: Buffer) => audit.subjectPseudonym('ses', idHash.toString('hex'));

  return {
    /**
     * Signs a person in after the identity provider vouched for them: finds the user by issuer and subject,
     * else by e-mail, else creates one; gives the account the role the configuration gives its e-mail (down
     * as well as up), and opens a session. Returns the session secret for the cookie. The claimed e-mail
     * counts (to find an account, to open a new account) only when the provider verified it: anyone can put
     * someone else's address on an account at many providers. A new subject with an unverified address is
     * refused (SignInRefused). Roles go by the account's own e-mail, the verified address it was opened or
     * linked with, not by what a later sign-in claims.
     */
    signIn(claims: SignInClaims, meta: { userAgent?: string; idToken?: string } = {}): Promise<{ user: User; sessionSecret: string }> {
      // Under the write lock from the start: finding or creating the account reads to decide (a new e-mail,
      // a free handle), which two sign-ins of one new person on two instances must not both decide.
      return db.transaction(async () => {
        const t = iso(now());
        const user = await accountFor(claims, t);
        const sessionSecret = randomSecret('', 32);
        const idHash = hashSecret(sessionSecret);
        const expires = new Date(now().getTime() + opts.sessionTtlHours * 3_600_000);
        // The browser (for the account page's list) and the provider's ID token (the hint of its sign-out).
        await insertSession.run(idHash, user.id, t, iso(expires), t, meta.userAgent?.slice(0, 512) || null, meta.idToken ?? null);
        // The public log names the session, not the person: a user id here would publish when they sign in.
        await audit.append({ kind: 'auth.sign_in', subjectType: 'session', subjectId: sessionSubject(idHash), actor: { userId: user.id }, data: { method: 'oidc' } });
        return { user, sessionSecret };
      }, { lock: true });
    },

    /**
     * The live session behind a cookie value, if any: not signed out, within its lifetime, and used within
     * SESSION_IDLE_HOURS. Using it moves its last_seen_at on.
     */
    async resolveSession(secret: string): Promise<Principal | null> {
      const idHash = hashSecret(secret);
      const row = await sessionByHash.get(idHash);
      const t = now();
      if (!row || row.s_revoked_at || row.s_expires_at <= iso(t) || row.s_last_seen_at <= idleCutoff(t)) return null;
      const { s_expires_at: _e, s_revoked_at: _r, s_last_seen_at: lastSeen, ...user } = row;
      // Bookkeeping, not an event, and not a write per request: once a minute (sooner under a short idle limit).
      if (t.getTime() - Date.parse(lastSeen) > Math.min(60_000, idleMs / 4)) await touchSession.run(iso(t), idHash);
      return { user, via: 'session', scopes: null, audience: null, credentialId: sessionIdOf(idHash) };
    },

    /** The person's live sessions, the most recently used first. */
    async listSessions(userId: string): Promise<SessionInfo[]> {
      return (await liveSessions(userId)).map((r) => ({ id: sessionIdOf(r.id_hash), userAgent: r.user_agent, createdAt: r.created_at, lastSeenAt: r.last_seen_at, expiresAt: r.expires_at }));
    },

    /** Ends one of the person's sessions by its public id (the account page); false when there is no such live session. */
    endSession(userId: string, sessionId: string): Promise<boolean> {
      return db.transaction(async () => {
        const row = (await liveSessions(userId)).find((r) => sessionIdOf(r.id_hash) === sessionId);
        if (!row || (await endSessionRow.run(iso(now()), row.id_hash)).changes === 0) return false;
        await audit.append({ kind: 'auth.sign_out', subjectType: 'session', subjectId: sessionSubject(row.id_hash), actor: { userId }, data: { ended: 'from_account' } });
        return true;
      });
    },

    /** Signs the person out everywhere: ends every session of theirs still open. Returns how many. */
    endAllSessions(userId: string): Promise<number> {
      return db.transaction(async () => {
        const rows = await liveSessions(userId);
        const t = iso(now());
        let ended = 0;
        for (const r of rows) {
          if ((await endSessionRow.run(t, r.id_hash)).changes === 0) continue;
          await audit.append({ kind: 'auth.sign_out', subjectType: 'session', subjectId: sessionSubject(r.id_hash), actor: { userId }, data: { ended: 'everywhere' } });
          ended++;
        }
        return ended;
      });
    },

    /** The provider's ID token the session behind a cookie value was opened with, for its sign-out; null once it has ended. */
    async sessionIdToken(secret: string): Promise<string | null> {
      return (await db.prepare<[Buffer], string | null>('SELECT id_token FROM sessions WHERE id_hash = ?').pluck().get(hashSecret(secret))) ?? null;
    },

    /** Ends a session (sign-out). */
    revokeSession(secret: string, userId: string): Promise<void> {
      return db.transaction(async () => {
        const idHash = hashSecret(secret);
        const r = await endSessionRow.run(iso(now()), idHash);
        if (r.changes > 0) await audit.append({ kind: 'auth.sign_out', subjectType: 'session', subjectId: sessionSubject(idHash), actor: { userId } });
      });
    },
  };
}

/** API keys, and the resolution of a bearer token: a key, or what a registered resolver (OAuth) recognises. */
function apiKeys({ db, audit, opts, now }: IdentityContext) {
  const resolvers: BearerResolver[] = [];
  const KEY_COLUMNS = 'id, name, hint, source, created_at, last_used_at, expires_at, revoked_at';
  const insertKey = db.prepare<unknown[], ApiKeyRow>(
    `INSERT INTO api_keys (id, user_id, name, secret_hash, hint, source, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${KEY_COLUMNS}`,
  );
  // The key and its user in one round trip: the lookup every request with an API key makes.
  const keyBySecret = db.prepare<[Buffer], User & { k_id: string; k_expires_at: string | null; k_revoked_at: string | null; k_last_used_at: string | null }>(
    `SELECT ${USER_COLUMNS}, k.id AS k_id, k.expires_at AS k_expires_at, k.revoked_at AS k_revoked_at, k.last_used_at AS k_last_used_at
       FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.secret_hash = ?`,
  );
  const touchKey = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  const keys = {
    /** Creates a key; the secret is returned once and only its hash is kept. */
    createApiKey(userId: string, input: { name: string; expiresAt: string | null; source?: 'account' | 'device' }, actor: 'user' | 'system' = 'user') {
      return db.transaction(async () => {
        const id = randomId('key');
        const secret = randomSecret(opts.keyPrefix, 32);
        const hint = `${opts.keyPrefix}…${secret.slice(-4)}`;
        const key = await insertKey.get(id, userId, input.name, hashSecret(secret), hint, input.source ?? 'account', iso(now()), input.expiresAt);
        await audit.append({
          kind: 'api_key.create',
          subjectType: 'api_key',
          subjectId: id,
          actor: actor === 'user' ? { userId } : 'system',
          data: { source: input.source ?? 'account', expires_at: input.expiresAt },
        });
        return { key: key!, secret };
      });
    },

    getApiKey(userId: string, keyId: string): Promise<ApiKeyRow | undefined> {
      return db.prepare<[string, string], ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = ? AND id = ?`).get(userId, keyId);
    },

    listApiKeys(userId: string): Promise<ApiKeyRow[]> {
      return db.prepare<[string], ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id`).all(userId);
    },

    /** Revokes a key of this user; false when there is no such live key. */
    revokeApiKey(userId: string, keyId: string): Promise<boolean> {
      return db.transaction(async () => {
        const r = await db.prepare('UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND id = ? AND revoked_at IS NULL').run(iso(now()), userId, keyId);
        if (r.changes === 0) return false;
        await audit.append({ kind: 'api_key.revoke', subjectType: 'api_key', subjectId: keyId, actor: { userId } });
        return true;
      });
    },

    async resolveApiKey(secret: string): Promise<Principal | null> {
      if (!secret.startsWith(opts.keyPrefix)) return null;
      const row = await keyBySecret.get(hashSecret(secret));
      const t = now();
      if (!row || row.k_revoked_at || (row.k_expires_at && row.k_expires_at <= iso(t))) return null;
      const { k_id: keyId, k_expires_at: _e, k_revoked_at: _r, k_last_used_at: lastUsed, ...user } = row;
      // last_used_at at minute precision: bookkeeping, not an event, and not a write per request.
      if (!lastUsed || t.getTime() - Date.parse(lastUsed) > 60_000) await touchKey.run(iso(t), keyId);
      return { user, via: 'api_key', scopes: null, audience: null, credentialId: keyId };
    },

    /** Other bearer token kinds (OAuth access tokens) register here. */
    addBearerResolver(r: BearerResolver): void {
      resolvers.push(r);
    },

    /** A bearer token's principal: an API key, or whatever a registered resolver recognises. */
    async resolveBearer(token: string): Promise<Principal | null> {
      const viaKey = await keys.resolveApiKey(token);
      if (viaKey) return viaKey;
      for (const r of resolvers) {
        const p = await r(token);
        if (p) return p;
      }
      return null;
    },
  };
  return keys;
}

export interface ApiKeyRow {
  id: string;
  name: string;
  hint: string;
  source: 'account' | 'device';
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export type Identity = ReturnType<typeof createIdentity>;

/** A sign-in the identity provider's claims do not support; the callback answers 400 with the message. */
export class SignInRefused extends Error {}
