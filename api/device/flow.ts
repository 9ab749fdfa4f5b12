// The device authorization grant's state machine over the device_requests table:
//   pending ──approve──► approved ──token poll──► consumed (one API key, or one OAuth grant's tokens, once)
//      └─────deny─────► denied
// and a request is expired once expires_at has passed, whatever its status. Every transition is one
// transaction with its audit event, its write conditional on the status it leaves (src/lib/data/device/
// store.ts), so two instances cannot both decide or both redeem a request; only the SHA-256 of a
// device_code is stored.
// A request that asked for OAuth tokens (a scope, or the /mcp resource) ends in an access and refresh token
// for the /mcp resource, which the REST API and chat take too: one login for every surface.
import type { Db } from '../../src/lib/data/db/index.ts';
import type { AuditLog } from '../../src/lib/data/audit/index.ts';
import type { Identity, User } from '../../src/lib/data/identity/index.ts';
import { hashSecret, randomId, randomSecret } from '../../src/lib/data/secrets.ts';
import { InvalidClient, InvalidGrant, OAuthError } from '../oauth/errors.ts';
import { oauthStore, type Client, type OAuthStore } from '../../src/lib/data/oauth/store.ts';
import { deviceStore, type DeviceRequest, type DeviceStore } from '../../src/lib/data/device/store.ts';
import { issueTokens, type TokenResponse } from '../oauth/issue.ts';
import { LIFETIMES, type Lifetimes } from '../oauth/lifetimes.ts';
import { grantableScope, parseScope } from '../oauth/check_scope.ts';
import { DEVICE_CODE_GRANT_TYPE } from './schemas.ts';
import { formatUserCode, generateUserCode } from './user-code.ts';

export type { DeviceRequest, DeviceStatus } from '../../src/lib/data/device/store.ts';

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
  const requests = deviceStore(db);
  const isExpired = (row: DeviceRequest, t: Date) => row.expires_at <= iso(t);
  const oauth = oauthStore(db);
  const issue = deviceIssuer(audit, identity, opts, oauth, requests, now);

  return {
    /** Starts a request. The device_code is returned here and never again. */
    start(input: { clientName: string; clientHost: string; sandbox: boolean; oauth?: { scope: string }; clientId?: string | null }) {
      return db.transaction(async () => {
        const t = now();
        await requests.purge(iso(new Date(t.getTime() - PURGE_AFTER_MS)));
        const deviceCode = randomSecret('', 32);
        const hash = hashSecret(deviceCode);
        // 1.7e10 codes against a few live ones: a collision is rare, and the insert skips a taken code.
        let userCode = generateUserCode();
        const row = {
          device_code_hash: hash, client_name: input.clientName, client_host: input.clientHost, sandbox: input.sandbox ? 1 : 0, interval: opts.pollIntervalSeconds,
          created_at: iso(t), expires_at: iso(new Date(t.getTime() + opts.codeTtlSeconds * 1000)), oauth_scope: input.oauth?.scope ?? null, oauth_client_id: input.clientId ?? null,
        };
        for (let i = 0; !(await requests.insert({ ...row, user_code: userCode })); i++) {
          if (i === 10) throw new Error('no free user code after 10 draws');
          userCode = generateUserCode();
        }
        // client_name and client_host are the device's own words (a host name can name a person): not in the public log.
        await audit.append({ kind: 'device.request', subjectType: 'device_request', subjectId: requestId({ device_code_hash: hash }), actor: 'system', data: { sandbox: input.sandbox, ...(input.oauth ? { oauth_scope: input.oauth.scope } : {}) } });
        return { deviceCode, userCode: formatUserCode(userCode), expiresIn: opts.codeTtlSeconds, interval: opts.pollIntervalSeconds };
      });
    },

    /** The request behind a canonical user code, and whether a person may still decide it. */
    async lookup(canonicalUserCode: string): Promise<{ row: DeviceRequest; decidable: boolean } | null> {
      const row = await requests.byUserCode(canonicalUserCode);
      if (!row) return null;
      return { row, decidable: row.status === 'pending' && !isExpired(row, now()) };
    },

    /**
     * A signed-in person approves or denies. The approver becomes the owner of the key the device will
     * receive. `unknown` and `gone` (expired or already decided) leave everything as it was.
     */
    decide(canonicalUserCode: string, userId: string, approve: boolean): Promise<{ outcome: 'unknown' } | { outcome: 'gone' | 'decided'; row: DeviceRequest }> {
      return db.transaction(async () => {
        // The decision is the write itself, conditional on a pending, unexpired request: one round trip.
        const decided = await requests.decide(canonicalUserCode, approve ? 'approved' : 'denied', userId, iso(now()));
        if (!decided) {
          const row = await requests.byUserCode(canonicalUserCode);
          return row ? { outcome: 'gone' as const, row } : { outcome: 'unknown' as const };
        }
        await audit.append({ kind: approve ? 'device.approve' : 'device.deny', subjectType: 'device_request', subjectId: requestId(decided), actor: { userId } });
        return { outcome: 'decided' as const, row: decided };
      });
    },

    /**
     * One poll of the token endpoint (RFC 8628 §3.4/3.5). On an approved request it mints the API key and
     * marks the request consumed in the same transaction, the consumption conditional on the request still
     * being approved, so two polls (on two instances) can never mint two keys: the later one is rolled
     * back. Poll bookkeeping (last_poll_at, a raised interval) is committed even when the answer is an
     * error, which is why errors are returned rather than thrown inside the transaction. `client` is the
     * registered client the poll authenticated as (null: none): a request a registered client made is that
     * client's to redeem, and a confidential one must prove it (RFC 6749 §3.2.1).
     */
    async redeem(deviceCode: string, viaGet: boolean, client: Pick<Client, 'client_id'> | null): Promise<IssuedToken> {
      const result = await db.transaction(async (): Promise<IssuedToken | OAuthError> => {
        const row = await requests.byHash(hashSecret(deviceCode));
        if (!row) return new DeviceGrantError('invalid_grant', 'Unknown device_code');
        const owner = row.oauth_client_id ? await oauth.getClient(row.oauth_client_id) : undefined;
        if (owner && client?.client_id !== owner.client_id) {
          if (client) return new InvalidGrant('This device_code was issued to another client');
          if (owner.token_endpoint_auth_method !== 'none') return new InvalidClient('This device_code belongs to a confidential client: authenticate with HTTP Basic');
        }
        const t = now();
        if (row.status !== 'approved') return refusal(row, t);
        if (isExpired(row, t)) return new DeviceGrantError('expired_token', 'The device_code expired; start a new request');
        // Approved: the key belongs to the person who approved.
        const user = await identity.getUser(row.user_id!);
        if (!user) return new DeviceGrantError('access_denied', 'The approving account no longer exists');
        const sandbox = row.sandbox === 1 || viaGet;
        return row.oauth_scope !== null ? issue.oauthTokens(row, user, sandbox, t, owner) : issue.apiKey(row, user, sandbox, t);
      });
      if (result instanceof OAuthError) throw result;
      return result;
    },
  };

  /** The answer to a poll of a request that is not approved, with a pending request's poll recorded. */
  async function refusal(row: DeviceRequest, t: Date): Promise<OAuthError> {
    // A replay is refused, not punished by revoking the key: GET-alias clients and proxies may repeat a GET.
    if (row.status === 'consumed') return new DeviceGrantError('invalid_grant', ALREADY_EXCHANGED);
    if (row.status === 'denied') return new DeviceGrantError('access_denied', 'The person denied this sign-in request');
    if (isExpired(row, t)) return new DeviceGrantError('expired_token', 'The device_code expired; start a new request');
    const tooSoon = row.last_poll_at !== null && t.getTime() - Date.parse(row.last_poll_at) < row.interval * 1000;
    const interval = tooSoon ? row.interval + SLOW_DOWN_STEP_SECONDS : row.interval;
    await requests.polled(row.device_code_hash, iso(t), interval);
    return tooSoon
      ? new DeviceGrantError('slow_down', `Polling faster than every ${row.interval} s; wait ${interval} s between polls from now on`, interval)
      : new DeviceGrantError('authorization_pending', 'Waiting for the person to approve the request');
  }
}

const ALREADY_EXCHANGED = 'This device_code was already exchanged for a key';

/**
 * What an approved request is redeemed for, inside redeem's transaction: OAuth tokens when it asked for a
 * scope, an API key otherwise; either way the request is marked consumed with its audit event. When another
 * poll consumed it first, the DeviceGrantError thrown rolls back what this one wrote.
 */
function deviceIssuer(audit: AuditLog, identity: Identity, opts: DeviceFlowOptions, oauth: OAuthStore, requests: DeviceStore, now: () => Date) {
  const tokenCtx = { now, store: oauth, lifetimes: opts.oauth.lifetimes ?? LIFETIMES };
  const consume = async (row: DeviceRequest, by: { apiKeyId: string } | { grantId: string }, t: Date) => {
    if (!(await requests.consume(row.device_code_hash, by, iso(t)))) throw new DeviceGrantError('invalid_grant', ALREADY_EXCHANGED);
  };

  /**
   * The client a device's OAuth grant belongs to: the registered one the request named, else one made now
   * for this device (public, device grant and refresh only), which the person sees among their connected
   * apps and can revoke there.
   */
  async function deviceClient(row: DeviceRequest, t: Date, named: Client | undefined): Promise<Client> {
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
    await oauth.insertClient(client);
    return client;
  }

  return {
    // OAuth tokens for the /mcp resource: a grant of what the person can give (powers only with the
    // role), its access token, and a refresh token unless a GET put the device_code in a URL.
    async oauthTokens(row: DeviceRequest, user: User, sandbox: boolean, t: Date, named: Client | undefined): Promise<IssuedToken> {
      const scope = grantableScope(parseScope(row.oauth_scope!), user.role).granted.join(' ');
      const client = await deviceClient(row, t, named);
      const grant = { id: randomId('grant', 12), user_id: user.id, client_id: client.client_id, scope, resource: opts.oauth.resource, created_at: iso(t) };
      await oauth.insertGrant(grant);
      await consume(row, { grantId: grant.id }, t);
      await audit.append({ kind: 'oauth.grant.create', subjectType: 'oauth_grant', subjectId: grant.id, actor: { userId: user.id }, data: { client_id: client.client_id, client_name: client.client_name, scope, via: 'device' } });
      const refreshable = sandbox ? { ...client, metadata: { ...client.metadata, grant_types: [DEVICE_CODE_GRANT_TYPE] } } : client;
      const tokens = await issueTokens(tokenCtx, refreshable, grant, scope);
      await audit.append({ kind: 'device.token', subjectType: 'device_request', subjectId: requestId(row), actor: 'system', data: { oauth_grant_id: grant.id, client_id: client.client_id, scope, sandbox } });
      return { kind: 'oauth' as const, tokens, clientId: client.client_id, sandbox, user };
    },

    /** An API key owned by the person who approved. */
    async apiKey(row: DeviceRequest, user: User, sandbox: boolean, t: Date): Promise<IssuedToken> {
      const expiresIn = sandbox ? SANDBOX_KEY_TTL_SECONDS : STANDARD_KEY_TTL_SECONDS;
      const name = `Device: ${row.client_name} on ${row.client_host}`.slice(0, 100);
      const { key, secret } = await identity.createApiKey(user.id, { name, expiresAt: iso(new Date(t.getTime() + expiresIn * 1000)), source: 'device' }, 'system');
      await consume(row, { apiKeyId: key.id }, t);
      await audit.append({ kind: 'device.token', subjectType: 'device_request', subjectId: requestId(row), actor: 'system', data: { api_key_id: key.id, sandbox } });
      return { kind: 'api_key' as const, secret, keyId: key.id, expiresIn, sandbox, user };
    },
  };
}

export type DeviceFlow = ReturnType<typeof createDeviceFlow>;
