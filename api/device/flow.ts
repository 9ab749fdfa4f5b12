// The device authorization grant's state machine over the device_requests table:
//   pending ──approve──► approved ──token poll──► consumed (one API key, or one OAuth grant's tokens, once)
//      └─────deny─────► denied
// and a request is expired once expires_at has passed, whatever its status. Every transition is one
// BEGIN IMMEDIATE transaction with its audit event; only the SHA-256 of a device_code is stored.
// A request that asked for OAuth tokens (a scope, or the /mcp resource) ends in an access and refresh token
// for the /mcp resource, which the REST API and chat take too: one login for every surface.
import type { Db } from '../db/index.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Identity, User } from '../auth/identity.ts';
import { hashSecret, randomId, randomSecret } from '../auth/secrets.ts';
import { InvalidClient, InvalidGrant, OAuthError } from '../oauth/errors.ts';
import { oauthStore, type Client, type OAuthStore } from '../oauth/store.ts';
import { issueTokens, type TokenResponse } from '../oauth/issue.ts';
import { LIFETIMES, type Lifetimes } from '../oauth/lifetimes.ts';
import { grantableScope, parseScope } from '../oauth/check_scope.ts';
import { DEVICE_CODE_GRANT_TYPE } from './schemas.ts';
import { formatUserCode, generateUserCode } from './user-code.ts';

export type DeviceStatus = 'pending' | 'approved' | 'denied' | 'consumed';

export interface DeviceRequest {
  device_code_hash: Buffer;
  user_code: string;
  client_name: string;
  client_host: string;
  status: DeviceStatus;
  user_id: string | null;
  api_key_id: string | null;
  /** The OAuth scope asked for; null when the device gets an API key. */
  oauth_scope: string | null;
  /**
   * The registered OAuth client that made the request (authenticated as at the token endpoint), which alone
   * may redeem it and gets its OAuth tokens; null: none, and one is made for the device at redemption.
   */
  oauth_client_id: string | null;
  /** The OAuth grant the redemption created. */
  grant_id: string | null;
  sandbox: number;
  interval: number;
  created_at: string;
  expires_at: string;
  last_poll_at: string | null;
  decided_at: string | null;
}

export interface DeviceFlowOptions {
  codeTtlSeconds: number;
  pollIntervalSeconds: number;
  /** The resource OAuth tokens are bound to ({BASE_URL}/mcp), and their lifetimes. */
  oauth: { resource: string; lifetimes?: Lifetimes };
  now?: () => Date;
}

/** Lifetime of the API key a device receives: one hour when any step went through a GET alias. */
export const SANDBOX_KEY_TTL_SECONDS = 3600;
/** …and 90 days on the standard (POST) path: long enough for an agent, short enough to age out. */
export const STANDARD_KEY_TTL_SECONDS = 90 * 86_400;
/** The key lifetime a person is told about when approving (redeeming through a GET alias can shorten it). */
export const keyLifetime = (row: Pick<DeviceRequest, 'sandbox'>) => (row.sandbox ? SANDBOX_KEY_TTL_SECONDS : STANDARD_KEY_TTL_SECONDS);
/** RFC 8628 §3.5: each slow_down adds five seconds to the interval. */
export const SLOW_DOWN_STEP_SECONDS = 5;
/** Decided and expired rows are kept this long after expiry (support questions), then purged. */
const PURGE_AFTER_MS = 7 * 86_400_000;

/** The token-endpoint errors of a device_code poll (RFC 8628 §3.5, RFC 6749 §5.2). */
export type DeviceGrantErrorCode = 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant';

/**
 * An RFC 8628 token-endpoint error, answered as 400 {error, error_description} (and the new `interval`
 * with slow_down) by api/oauth/errors.ts, like every other OAuth error.
 */
export class DeviceGrantError extends OAuthError {
  readonly interval?: number;
  constructor(error: DeviceGrantErrorCode, description: string, interval?: number) {
    super(error, description, 400, interval !== undefined ? { interval } : {});
    this.interval = interval;
  }
}

export type IssuedToken =
  | { kind: 'api_key'; secret: string; keyId: string; expiresIn: number; sandbox: boolean; user: User }
  | { kind: 'oauth'; tokens: TokenResponse; clientId: string; sandbox: boolean; user: User };

/** The public, non-secret name of a request in the audit log: a prefix of its device_code's hash. */
export const requestId = (row: Pick<DeviceRequest, 'device_code_hash'>) => `devreq_${row.device_code_hash.toString('hex').slice(0, 16)}`;

const iso = (d: Date) => d.toISOString();

/** The device flow: start a request, look it up, decide it, and redeem it at the token endpoint. */
export function createDeviceFlow(db: Db, audit: AuditLog, identity: Identity, opts: DeviceFlowOptions) {
  const now = opts.now ?? (() => new Date());
  const byUserCode = db.prepare<[string], DeviceRequest>('SELECT * FROM device_requests WHERE user_code = ?');
  const byHash = db.prepare<[Buffer], DeviceRequest>('SELECT * FROM device_requests WHERE device_code_hash = ?');

  const isExpired = (row: DeviceRequest, t: Date) => row.expires_at <= iso(t);
  const oauth = oauthStore(db);
  const issue = deviceIssuer(db, audit, identity, opts, oauth, now);

  return {
    /** Starts a request. The device_code is returned here and never again. */
    start(input: { clientName: string; clientHost: string; sandbox: boolean; oauth?: { scope: string }; clientId?: string | null }) {
      return db.transaction(() => {
        const t = now();
        db.prepare('DELETE FROM device_requests WHERE expires_at < ?').run(iso(new Date(t.getTime() - PURGE_AFTER_MS)));
        // 1.7e10 codes against a few live ones: a collision is rare, and retried inside the write lock.
        let userCode = generateUserCode();
        for (let i = 0; byUserCode.get(userCode) && i < 10; i++) userCode = generateUserCode();
        const deviceCode = randomSecret('', 32);
        const hash = hashSecret(deviceCode);
        db.prepare(
          `INSERT INTO device_requests (device_code_hash, user_code, client_name, client_host, status, sandbox, interval, created_at, expires_at, oauth_scope, oauth_client_id)
           VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
        ).run(
          hash, userCode, input.clientName, input.clientHost, input.sandbox ? 1 : 0, opts.pollIntervalSeconds, iso(t), iso(new Date(t.getTime() + opts.codeTtlSeconds * 1000)),
          input.oauth?.scope ?? null, input.clientId ?? null,
        );
        // client_name and client_host are the device's own words (a host name can name a person): not in the public log.
        audit.append({ kind: 'device.request', subjectType: 'device_request', subjectId: requestId({ device_code_hash: hash }), actor: 'system', data: { sandbox: input.sandbox, ...(input.oauth ? { oauth_scope: input.oauth.scope } : {}) } });
        return { deviceCode, userCode: formatUserCode(userCode), expiresIn: opts.codeTtlSeconds, interval: opts.pollIntervalSeconds };
      }).immediate();
    },

    /** The request behind a canonical user code, and whether a person may still decide it. */
    lookup(canonicalUserCode: string): { row: DeviceRequest; decidable: boolean } | null {
      const row = byUserCode.get(canonicalUserCode);
      if (!row) return null;
      return { row, decidable: row.status === 'pending' && !isExpired(row, now()) };
    },

    /**
     * A signed-in person approves or denies. The approver becomes the owner of the key the device will
     * receive. `unknown` and `gone` (expired or already decided) leave everything as it was.
     */
    decide(canonicalUserCode: string, userId: string, approve: boolean): { outcome: 'unknown' } | { outcome: 'gone' | 'decided'; row: DeviceRequest } {
      return db.transaction(() => {
        const row = byUserCode.get(canonicalUserCode);
        if (!row) return { outcome: 'unknown' as const };
        const t = now();
        if (row.status !== 'pending' || isExpired(row, t)) return { outcome: 'gone' as const, row };
        const status: DeviceStatus = approve ? 'approved' : 'denied';
        db.prepare("UPDATE device_requests SET status = ?, user_id = ?, decided_at = ? WHERE device_code_hash = ? AND status = 'pending'").run(
          status, userId, iso(t), row.device_code_hash,
        );
        audit.append({ kind: approve ? 'device.approve' : 'device.deny', subjectType: 'device_request', subjectId: requestId(row), actor: { userId } });
        return { outcome: 'decided' as const, row: byHash.get(row.device_code_hash)! };
      }).immediate();
    },

    /**
     * One poll of the token endpoint (RFC 8628 §3.4/3.5). On an approved request it mints the API key and
     * marks the request consumed in the same transaction, so two polls can never mint two keys. Poll
     * bookkeeping (last_poll_at, a raised interval) is committed even when the answer is an error, which
     * is why errors are returned rather than thrown inside the transaction. `client` is the registered client
     * the poll authenticated as (null: none): a request a registered client made is that client's to redeem,
     * and a confidential one must prove it (RFC 6749 §3.2.1).
     */
    redeem(deviceCode: string, viaGet: boolean, client: Pick<Client, 'client_id'> | null): IssuedToken {
      const result = db.transaction((): IssuedToken | OAuthError => {
        const row = byHash.get(hashSecret(deviceCode));
        if (!row) return new DeviceGrantError('invalid_grant', 'Unknown device_code');
        const owner = row.oauth_client_id ? oauth.getClient(row.oauth_client_id) : undefined;
        if (owner && client?.client_id !== owner.client_id) {
          if (client) return new InvalidGrant('This device_code was issued to another client');
          if (owner.token_endpoint_auth_method !== 'none') return new InvalidClient('This device_code belongs to a confidential client: authenticate with HTTP Basic');
        }
        const t = now();
        // A replay is refused, not punished by revoking the key: GET-alias clients and proxies may repeat a GET.
        if (row.status === 'consumed') return new DeviceGrantError('invalid_grant', 'This device_code was already exchanged for a key');
        if (row.status === 'denied') return new DeviceGrantError('access_denied', 'The person denied this sign-in request');
        if (isExpired(row, t)) return new DeviceGrantError('expired_token', 'The device_code expired; start a new request');
        if (row.status === 'pending') {
          const tooSoon = row.last_poll_at !== null && t.getTime() - Date.parse(row.last_poll_at) < row.interval * 1000;
          const interval = tooSoon ? row.interval + SLOW_DOWN_STEP_SECONDS : row.interval;
          db.prepare('UPDATE device_requests SET last_poll_at = ?, interval = ? WHERE device_code_hash = ?').run(iso(t), interval, row.device_code_hash);
          return tooSoon
            ? new DeviceGrantError('slow_down', `Polling faster than every ${row.interval} s; wait ${interval} s between polls from now on`, interval)
            : new DeviceGrantError('authorization_pending', 'Waiting for the person to approve the request');
        }
        // Approved: the key belongs to the person who approved.
        const user = identity.getUser(row.user_id!);
        if (!user) return new DeviceGrantError('access_denied', 'The approving account no longer exists');
        const sandbox = row.sandbox === 1 || viaGet;
        return row.oauth_scope !== null ? issue.oauthTokens(row, user, sandbox, t) : issue.apiKey(row, user, sandbox, t);
      }).immediate();
      if (result instanceof OAuthError) throw result;
      return result;
    },
  };
}

/**
 * What an approved request is redeemed for, inside redeem's transaction: OAuth tokens when it asked for a
 * scope, an API key otherwise; either way the request is marked consumed with its audit event.
 */
function deviceIssuer(db: Db, audit: AuditLog, identity: Identity, opts: DeviceFlowOptions, oauth: OAuthStore, now: () => Date) {
  const tokenCtx = { now, store: oauth, lifetimes: opts.oauth.lifetimes ?? LIFETIMES };

  /**
   * The client a device's OAuth grant belongs to: the registered one the request named, else one made now
   * for this device (public, device grant and refresh only), which the person sees among their connected
   * apps and can revoke there.
   */
  function deviceClient(row: DeviceRequest, t: Date): Client {
    const named = row.oauth_client_id ? oauth.getClient(row.oauth_client_id) : undefined;
    if (named) return named;
    const client: Client = {
      client_id: randomId('client', 16),
      secret_hash: null,
      client_name: `${row.client_name} on ${row.client_host}`.slice(0, 100),
      redirect_uris: [],
      token_endpoint_auth_method: 'none',
      metadata: { client_name: row.client_name, grant_types: [DEVICE_CODE_GRANT_TYPE, 'refresh_token'], response_types: [], token_endpoint_auth_method: 'none', redirect_uris: [], scope: row.oauth_scope! },
      created_at: iso(t),
    };
    oauth.insertClient(client);
    return client;
  }

  return {
    // OAuth tokens for the /mcp resource: a grant of what the person can give (powers only with the
    // role), its access token, and a refresh token unless a GET put the device_code in a URL.
    oauthTokens(row: DeviceRequest, user: User, sandbox: boolean, t: Date): IssuedToken {
      const scope = grantableScope(parseScope(row.oauth_scope!), user.role).granted.join(' ');
      const client = deviceClient(row, t);
      const grantId = randomId('grant', 12);
      oauth.insertGrant({ id: grantId, user_id: user.id, client_id: client.client_id, scope, resource: opts.oauth.resource, created_at: iso(t) });
      audit.append({ kind: 'oauth.grant.create', subjectType: 'oauth_grant', subjectId: grantId, actor: { userId: user.id }, data: { client_id: client.client_id, client_name: client.client_name, scope, via: 'device' } });
      const refreshable = sandbox ? { ...client, metadata: { ...client.metadata, grant_types: [DEVICE_CODE_GRANT_TYPE] } } : client;
      const tokens = issueTokens(tokenCtx, refreshable, oauth.getGrant(grantId)!, scope);
      db.prepare("UPDATE device_requests SET status = 'consumed', grant_id = ?, last_poll_at = ? WHERE device_code_hash = ? AND status = 'approved'").run(grantId, iso(t), row.device_code_hash);
      audit.append({ kind: 'device.token', subjectType: 'device_request', subjectId: requestId(row), actor: 'system', data: { oauth_grant_id: grantId, client_id: client.client_id, scope, sandbox } });
      return { kind: 'oauth' as const, tokens, clientId: client.client_id, sandbox, user };
    },

    /** An API key owned by the person who approved. */
    apiKey(row: DeviceRequest, user: User, sandbox: boolean, t: Date): IssuedToken {
      const expiresIn = sandbox ? SANDBOX_KEY_TTL_SECONDS : STANDARD_KEY_TTL_SECONDS;
      const name = `Device: ${row.client_name} on ${row.client_host}`.slice(0, 100);
      const { key, secret } = identity.createApiKey(user.id, { name, expiresAt: iso(new Date(t.getTime() + expiresIn * 1000)), source: 'device' }, 'system');
      db.prepare("UPDATE device_requests SET status = 'consumed', api_key_id = ?, last_poll_at = ? WHERE device_code_hash = ? AND status = 'approved'").run(
        key.id, iso(t), row.device_code_hash,
      );
      audit.append({ kind: 'device.token', subjectType: 'device_request', subjectId: requestId(row), actor: 'system', data: { api_key_id: key.id, sandbox } });
      return { kind: 'api_key' as const, secret, keyId: key.id, expiresIn, sandbox, user };
    },
  };
}

export type DeviceFlow = ReturnType<typeof createDeviceFlow>;
