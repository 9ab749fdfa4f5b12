// The server's store: one SQLite file in DATA_DIR, WAL mode, foreign keys on, migrations applied in
// order at open. Every write and its audit event commit in one transaction (see api/audit).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

export type Db = Database.Database;

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Opens (creating if needed) the database at `file` and brings its schema up to date.
 * @example const db = openDatabase(path.join(config.dataDir, 'kb.sqlite'))
 */
export function openDatabase(file: string): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  // Only this user reads the database; SQLite gives its -wal and -shm files the same mode.
  fs.chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL'); // WAL + NORMAL: durable across process crashes, fast commits
  db.pragma('busy_timeout = 5000'); // the pipeline writes from another process
  migrate(db);
  return db;
}

/** Applies every `NNN_name.sql` in api/db/migrations not yet recorded in schema_migrations, in order. */
export function migrate(db: Db): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const files = fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const done: string[] = [];
  for (const file of files) {
    const version = Number(file.slice(0, 3));
    if (applied.has(version)) continue;
    const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
    db.transaction(() => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(version, file, new Date().toISOString());
    }).immediate();
    done.push(file);
  }
  return done;
}
