// The database behind a server, on a connection of its own: what someone with direct access to it (the
// SQLite file, or the PostgreSQL server) can do that the service's code refuses, such as rewriting the
// append-only audit tables. Tests use it to check that such an edit is caught, in either dialect.
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { isPostgresUrl, type Db } from '../../src/lib/data/db/index.ts';

/** The target openDatabase() was given for a server's database: its postgres:// URL, or DATA_DIR/kb.sqlite. */
export function databaseOf(srv: { db: Db; dataDir: string }): string {
  if (srv.db.dialect !== 'postgres') return path.join(srv.dataDir, 'kb.sqlite');
  const url = (srv.db as unknown as { url?: string }).url;
  if (!url) throw new Error('databaseOf: the PostgreSQL database does not name its URL');
  return url;
}

/** A plain connection to a database, with `?` placeholders in both dialects. */
export interface RawDb {
  readonly dialect: 'sqlite' | 'postgres';
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs one statement; resolves to the number of rows it changed. */
  run(sql: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

/** `?` → `$1`, `$2`, … (the test statements have no `?` inside string literals). */
const numbered = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** Opens a connection of its own to a file path or a postgres:// URL (no migrations, no pragmas). */
export async function openRaw(target: string): Promise<RawDb> {
  if (isPostgresUrl(target)) {
    const client = new pg.Client({ connectionString: target, application_name: 'kb-test-raw' });
    await client.connect();
    return {
      dialect: 'postgres',
      all: async <T>(sql: string, params: unknown[] = []) => (await client.query(numbered(sql), params)).rows as T[],
      run: async (sql, params = []) => (await client.query(numbered(sql), params)).rowCount ?? 0,
      close: () => client.end(),
    };
  }
  const db = new Database(target, { fileMustExist: true });
  return {
    dialect: 'sqlite',
    all: async <T>(sql: string, params: unknown[] = []) => db.prepare(sql).all(...params) as T[],
    run: async (sql, params = []) => {
      const stmt = db.prepare(sql);
      return stmt.reader ? (stmt.all(...params), 0) : stmt.run(...params).changes;
    },
    close: async () => void db.close(),
  };
}

/**
 * Runs `edit` on a connection of its own, in one transaction with the trigger `trigger` of `table` dropped,
 * and recreates the trigger exactly as it was before committing, so the guard is never missing for anyone
 * else. Fails when there is no such trigger (the edit would not be getting past anything).
 * @example await withoutTrigger(databaseOf(srv), 'audit_events', 'audit_events_no_update', (raw) => raw.run(…))
 */
export async function withoutTrigger<T>(target: string, table: string, trigger: string, edit: (raw: RawDb) => Promise<T>): Promise<T> {
  const raw = await openRaw(target);
  try {
    const pgsql = raw.dialect === 'postgres';
    await raw.run(pgsql ? 'BEGIN' : 'BEGIN IMMEDIATE');
    try {
      const [found] = pgsql
        ? await raw.all<{ def: string }>('SELECT pg_get_triggerdef(t.oid) AS def FROM pg_trigger t WHERE t.tgname = ? AND t.tgrelid = ?::regclass', [trigger, table])
        : await raw.all<{ def: string }>("SELECT sql AS def FROM sqlite_master WHERE type = 'trigger' AND name = ? AND tbl_name = ?", [trigger, table]);
      if (!found?.def) throw new Error(`withoutTrigger: no trigger ${trigger} on ${table}`);
      await raw.run(pgsql ? `DROP TRIGGER "${trigger}" ON "${table}"` : `DROP TRIGGER "${trigger}"`);
      const result = await edit(raw);
      await raw.run(found.def);
      await raw.run('COMMIT');
      return result;
    } catch (err) {
      await raw.run('ROLLBACK').catch(() => {});
      throw err;
    }
  } finally {
    await raw.close();
  }
}
