// oidc-provider's storage adapter over our SQLite database: one table, one row per artifact.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../../db/index.ts';

export function sqliteAdapterFactory(db: Db) {
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
  const out = (row: { payload: string; consumed_at: number | null } | undefined): AdapterPayload | undefined =>
    row ? { ...(JSON.parse(row.payload) as AdapterPayload), ...(row.consumed_at ? { consumed: row.consumed_at } : {}) } : undefined;

  return class SqliteAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }
    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      upsert.run(this.model, id, JSON.stringify(payload), payload.grantId ?? null, payload.userCode ?? null, payload.uid ?? null, expiresIn ? now() + expiresIn : null);
    }
    async find(id: string) {
      return out(byId.get(this.model, id, now()));
    }
    async findByUid(uid: string) {
      return out(byUid.get(this.model, uid, now()));
    }
    async findByUserCode(userCode: string) {
      return out(byUserCode.get(this.model, userCode, now()));
    }
    async consume(id: string): Promise<void> {
      db.prepare('UPDATE idp_store SET consumed_at = ? WHERE model = ? AND id = ?').run(now(), this.model, id);
    }
    async destroy(id: string): Promise<void> {
      db.prepare('DELETE FROM idp_store WHERE model = ? AND id = ?').run(this.model, id);
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      db.prepare('DELETE FROM idp_store WHERE grant_id = ?').run(grantId);
    }
  };
}
