// The write side's store: the embedded default is one SQLite file in DATA_DIR (WAL mode, foreign keys on,
// sqlite.ts); DATABASE_URL=postgres://… runs the same code on PostgreSQL (postgres.ts, a pg.Pool). Both
// are opened through here, with their schema brought up to date by the numbered migrations of their
// dialect, and both offer the asynchronous interface of types.ts. Every write and its audit event commit
// in one transaction (src/lib/data/audit).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { MIGRATION_LOCK, PgDb, type PgOptions } from './postgres.ts';
import { SqliteDb } from './sqlite.ts';
import type { Db } from './types.ts';

export type { BindParameters, Db, RunResult, Statement, TransactionOptions } from './types.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** `postgres://…` or `postgresql://…`: the target is a PostgreSQL database, not a file. */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

/**
 * The database a configuration names: DATABASE_URL when set, else DATA_DIR/kb.sqlite.
 * @example await openDatabase(databaseTarget(config))
 */
export function databaseTarget(config: { dataDir: string; databaseUrl?: string }): string {
  return config.databaseUrl || path.join(config.dataDir, 'kb.sqlite');
}

/**
 * The PostgreSQL settings of a configuration (PG_POOL_SIZE, PG_LOCK_TIMEOUT_MS, PG_CONNECT_TIMEOUT_MS), for
 * every connection the service opens: the server's pool, the pipeline's, the listener's.
 * @example await openDatabase(databaseTarget(config), { ...pgOptions(config), applicationName: 'kb-pipeline' })
 */
export function pgOptions(config: { pgPoolSize: number; pgLockTimeoutMs: number; pgConnectTimeoutMs: number }): PgOptions {
  return { poolSize: config.pgPoolSize, lockTimeoutMs: config.pgLockTimeoutMs, connectTimeoutMs: config.pgConnectTimeoutMs };
}

/**
 * Opens (creating if needed) the database at `target` — a file path, or a postgres:// URL — and brings
 * its schema up to date.
 * @example const db = await openDatabase(databaseTarget(config))
 */
export async function openDatabase(target: string, opts: PgOptions = {}): Promise<Db> {
  const db = isPostgresUrl(target) ? new PgDb(target, opts) : openSqlite(target);
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}

function openSqlite(file: string): SqliteDb {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  // Only this user reads the database; SQLite gives its -wal and -shm files the same mode.
  fs.chmodSync(file, 0o600);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL'); // WAL + NORMAL: durable across process crashes, fast commits
  sqlite.pragma('busy_timeout = 5000'); // the pipeline writes from another process
  return new SqliteDb(sqlite);
}

/** The numbered migration files of a dialect: migrations/ (SQLite) or migrations/postgres/. */
export function migrationFiles(dialect: Db['dialect']): { version: number; file: string; path: string }[] {
  const dir = dialect === 'postgres' ? path.join(MIGRATIONS_DIR, 'postgres') : MIGRATIONS_DIR;
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 3)), file, path: path.join(dir, file) }));
}

/**
 * Applies every migration of the database's dialect not yet recorded in schema_migrations, in order, each
 * in its own transaction. Safe when several instances start at once: on PostgreSQL they queue on an
 * advisory lock and the later ones find the work done; on SQLite BEGIN IMMEDIATE does the same.
 */
export async function migrate(db: Db): Promise<string[]> {
  return db.exclusive(MIGRATION_LOCK[1], async () => {
    await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const done: string[] = [];
    for (const m of migrationFiles(db.dialect)) {
      const sql = await fs.promises.readFile(m.path, 'utf8');
      const applied = await db.transaction(async () => {
        // Read inside the transaction: another process may have applied it a moment ago.
        if (await db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)) return false;
        await db.exec(sql);
        await db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.file, new Date().toISOString());
        return true;
      });
      if (applied) done.push(m.file);
    }
    return done;
  });
}
