// The device authorization grant's requests (RFC 8628), one row each in device_requests, found by user code
// or by the SHA-256 of the device_code. Every transition is a conditional write (on the status it leaves),
// so two instances deciding or redeeming one request at once cannot both succeed. Writes run inside the
// caller's transaction, next to its audit event (api/device/flow.ts).
import type { Db } from '../db/index.ts';

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

export type NewDeviceRequest = Pick<DeviceRequest, 'device_code_hash' | 'user_code' | 'client_name' | 'client_host' | 'sandbox' | 'interval' | 'created_at' | 'expires_at' | 'oauth_scope' | 'oauth_client_id'>;

/** @example const requests = deviceStore(db); await requests.byUserCode('BCDFGHJK') */
export function deviceStore(db: Db) {
  const byUserCode = db.prepare<[string], DeviceRequest>('SELECT * FROM device_requests WHERE user_code = ?');
  const byHash = db.prepare<[Buffer], DeviceRequest>('SELECT * FROM device_requests WHERE device_code_hash = ?');
  const purge = db.prepare('DELETE FROM device_requests WHERE expires_at < ?');
  // A user code already taken leaves the row out (the caller draws another): no read before the write.
  const insert = db.prepare(
    `INSERT INTO device_requests (device_code_hash, user_code, client_name, client_host, status, sandbox, interval, created_at, expires_at, oauth_scope, oauth_client_id)
     VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?) ON CONFLICT (user_code) DO NOTHING`,
  );
  const decide = db.prepare<[string, string, string, string, string], DeviceRequest>(
    "UPDATE device_requests SET status = ?, user_id = ?, decided_at = ? WHERE user_code = ? AND status = 'pending' AND expires_at > ? RETURNING *",
  );
  const polled = db.prepare('UPDATE device_requests SET last_poll_at = ?, interval = ? WHERE device_code_hash = ?');
  const consumeForKey = db.prepare("UPDATE device_requests SET status = 'consumed', api_key_id = ?, last_poll_at = ? WHERE device_code_hash = ? AND status = 'approved'");
  const consumeForGrant = db.prepare("UPDATE device_requests SET status = 'consumed', grant_id = ?, last_poll_at = ? WHERE device_code_hash = ? AND status = 'approved'");

  return {
    byUserCode: (userCode: string): Promise<DeviceRequest | undefined> => byUserCode.get(userCode),
    byHash: (hash: Buffer): Promise<DeviceRequest | undefined> => byHash.get(hash),
    /** Deletes requests that expired before `before`. */
    purge: async (before: string): Promise<void> => void (await purge.run(before)),
    /** Stores a pending request; false when its user code is taken. */
    insert: async (r: NewDeviceRequest): Promise<boolean> =>
      (
        await insert.run(
          r.device_code_hash, r.user_code, r.client_name, r.client_host, r.sandbox, r.interval, r.created_at, r.expires_at, r.oauth_scope, r.oauth_client_id,
        )
      ).changes === 1,
    /** Approves or denies the pending, unexpired request with this user code: the decided row, or undefined when there is none. */
    decide: (userCode: string, status: 'approved' | 'denied', userId: string, at: string): Promise<DeviceRequest | undefined> =>
      decide.get(status, userId, at, userCode, at),
    /** Records a poll of a pending request, and the interval from now on. */
    polled: async (hash: Buffer, at: string, interval: number): Promise<void> => void (await polled.run(at, interval, hash)),
    /** Marks an approved request consumed by its API key or OAuth grant; false when another poll consumed it first. */
    consume: async (hash: Buffer, by: { apiKeyId: string } | { grantId: string }, at: string): Promise<boolean> =>
      ('apiKeyId' in by ? await consumeForKey.run(by.apiKeyId, at, hash) : await consumeForGrant.run(by.grantId, at, hash)).changes === 1,
  };
}

export type DeviceStore = ReturnType<typeof deviceStore>;
