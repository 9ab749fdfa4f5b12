// The server's store: the embedded default is one SQLite file in DATA_DIR (WAL mode, foreign keys on);
// DATABASE_URL=postgres://… runs the same code on PostgreSQL (api/db/postgres.ts). Both are opened through
// here, with their schema brought up to date by the numbered migrations of their dialect. Every write and
// its audit event commit in one transaction (see api/audit).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { MIGRATION_LOCK, PgDatabase } from './postgres.ts';

/**
 * The one interface both databases offer: better-sqlite3's prepare/transaction/exec, plus the dialect for
 * the few statements that must differ. Write SQL both accept (api/db/translate.ts lists what it maps).
 */
export type Db = Pick<Database.Database, 'prepare' | 'transaction' | 'exec' | 'close' | 'inTransaction' | 'open'> & {
  readonly dialect: 'sqlite' | 'postgres';
};

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** `postgres://…` or `postgresql://…`: the target is a PostgreSQL database, not a file. */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

/**
 * The database a configuration names: DATABASE_URL when set, else DATA_DIR/kb.sqlite.
 * @example openDatabase(databaseTarget(config))
 */
export function databaseTarget(config: { dataDir: string; databaseUrl?: string }): string {
  return config.databaseUrl || path.join(config.dataDir, 'kb.sqlite');
}

/**
 * Opens (creating if needed) the database at `target` — a file path, or a postgres:// URL — and brings
 * its schema up to date.
 * @example const db = openDatabase(databaseTarget(config))
 */
export function openDatabase(target: string, opts: { applicationName?: string } = {}): Db {
  if (isPostgresUrl(target)) {
    const db = new PgDatabase(target, opts.applicationName ?? 'kb') as unknown as Db;
    try {
      migrate(db);
    } catch (err) {
      db.close();
      throw err;
    }
    return db;
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const sqlite = new Database(target);
  // Only this user reads the database; SQLite gives its -wal and -shm files the same mode.
  fs.chmodSync(target, 0o600);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL'); // WAL + NORMAL: durable across process crashes, fast commits
  sqlite.pragma('busy_timeout = 5000'); // the pipeline writes from another process
  const db = Object.defineProperty(sqlite, 'dialect', { value: 'sqlite', enumerable: true }) as unknown as Db;
  migrate(db);
  return db;
}

/** The numbered migration files of a dialect: api/db/migrations (SQLite) or api/db/migrations/postgres. */
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
export function migrate(db: Db): string[] {
  const pg = db.dialect === 'postgres';
  if (pg) db.exec(`SELECT pg_advisory_lock(${MIGRATION_LOCK[0]}, ${MIGRATION_LOCK[1]})`);
  try {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const done: string[] = [];
    for (const m of migrationFiles(db.dialect)) {
      const sql = fs.readFileSync(m.path, 'utf8');
      const applied = db.transaction(() => {
        // Read inside the transaction: another process may have applied it a moment ago.
        if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)) return false;
        db.exec(sql);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.file, new Date().toISOString());
        return true;
      }).immediate();
      if (applied) done.push(m.file);
    }
    return done;
  } finally {
    if (pg) db.exec(`SELECT pg_advisory_unlock(${MIGRATION_LOCK[0]}, ${MIGRATION_LOCK[1]})`);
  }
}
