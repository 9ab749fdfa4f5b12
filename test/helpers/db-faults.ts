// Faults the tests inject into a running server's database, in the dialect it runs on.
import type { Db } from '../../src/lib/data/db/index.ts';

/**
 * Makes every insert of an audit event of `kind` fail, as a broken audit store would, until the returned
 * function is called: the write that needed the event must roll back whole.
 * @example const restore = await failAuditEvents(srv.db, 'comment.create'); try { … } finally { await restore() }
 */
export async function failAuditEvents(db: Db, kind: string, message = 'audit store failed'): Promise<() => Promise<void>> {
  const name = `fail_${kind.replace(/[^a-z]/g, '_')}_audit`;
  const msg = message.replace(/'/g, "''");
  const k = kind.replace(/'/g, "''");
  if (db.dialect === 'postgres') {
    await db.exec(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${msg}'; END $$;
      CREATE TRIGGER ${name} BEFORE INSERT ON audit_events FOR EACH ROW WHEN (NEW.kind = '${k}') EXECUTE FUNCTION ${name}();`);
    return () => db.exec(`DROP TRIGGER ${name} ON audit_events; DROP FUNCTION ${name}();`);
  }
  await db.exec(`CREATE TRIGGER ${name} BEFORE INSERT ON audit_events WHEN NEW.kind = '${k}' BEGIN SELECT RAISE(ABORT, '${msg}'); END`);
  return () => db.exec(`DROP TRIGGER ${name}`);
}
