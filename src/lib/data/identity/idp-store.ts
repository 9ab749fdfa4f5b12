// The embedded identity provider's store (dev mode): oidc-provider's storage adapter over one table, one
// row per artifact (sessions, interactions, codes, grants…), and the provider's own accounts, kept apart
// from ours as an external provider's would be.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../db/index.ts';

/** The adapter class oidc-provider instantiates once per model. */
export function idpAdapterFactory(db: Db) {
  const now = () => Math.floor(Date.now() / 1000);
  const upsert = db.prepare(
    `INSERT INTO idp_store (model, id, payload, grant_id, user_code, uid, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
       user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
  );
  const select = (where: string) =>
    db.prepare<unknown[], { payload: string; consumed_at: number | null }>(
      `SELECT payload, consumed_at FROM idp_store WHERE ${where} AND (expires_at IS NULL OR expires_at > ?)`,
    );
  const byId = select('model = ? AND id = ?');
  const byUid = select('model = ? AND uid = ?');
  const byUserCode = select('model = ? AND user_code = ?');
  const consume = db.prepare('UPDATE idp_store SET consumed_at = ? WHERE model = ? AND id = ?');
  const destroy = db.prepare('DELETE FROM idp_store WHERE model = ? AND id = ?');
  const revokeByGrant = db.prepare('DELETE FROM idp_store WHERE grant_id = ?');
  const out = (row: { payload: string; consumed_at: number | null } | undefined): AdapterPayload | undefined =>
    row ? { ...(JSON.parse(row.payload) as AdapterPayload), ...(row.consumed_at ? { consumed: row.consumed_at } : {}) } : undefined;

  return class IdpStoreAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }
    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await upsert.run(this.model, id, JSON.stringify(payload), payload.grantId ?? null, payload.userCode ?? null, payload.uid ?? null, expiresIn ? now() + expiresIn : null);
    }
    async find(id: string) {
      return out(await byId.get(this.model, id, now()));
    }
    async findByUid(uid: string) {
      return out(await byUid.get(this.model, uid, now()));
    }
    async findByUserCode(userCode: string) {
      return out(await byUserCode.get(this.model, userCode, now()));
    }
    async consume(id: string): Promise<void> {
      await consume.run(now(), this.model, id);
    }
    async destroy(id: string): Promise<void> {
      await destroy.run(this.model, id);
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      await revokeByGrant.run(grantId);
    }
  };
}

/** The provider's accounts: an e-mail and a name under a stable subject. */
export function idpAccounts(db: Db) {
  const byId = db.prepare<[string], { sub: string; email: string; name: string }>('SELECT sub, email, name FROM idp_accounts WHERE sub = ?');
  const upsert = db.prepare(
    `INSERT INTO idp_accounts (sub, email, name, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (sub) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at`,
  );
  return {
    find: (sub: string) => byId.get(sub),
    /** Creates the account, or renames it (a sign-in with another name). */
    save: async (sub: string, email: string, name: string): Promise<void> => void (await upsert.run(sub, email, name, new Date().toISOString())),
  };
}
