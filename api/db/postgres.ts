// PostgreSQL behind the same synchronous interface as better-sqlite3 (prepare → get/all/run, transaction),
// so the server and the pipeline keep one data-access layer whichever database runs. Queries go to a
// worker thread that owns the connection (api/db/pg-worker.ts); the caller blocks until the answer, as it
// does on SQLite. That costs the round trip on the event loop: see docs/decisions.md, "PostgreSQL".
//
// Write transactions keep SQLite's guarantee that one writer runs at a time, now across every instance
// on the database: each outermost transaction takes a transaction-scoped advisory lock first. Reads that
// decide a write (a refresh token not yet used, a code not yet redeemed, the audit log's next seq) run
// after the lock, under READ COMMITTED, so they see every write committed before it.
import { createHash } from 'node:crypto';
import { createSyncFn } from 'synckit';
import type Database from 'better-sqlite3';
import { CONNECTION_LOST, type PgAnswer, type PgOp } from './pg-protocol.ts';
import { toPostgres, type TranslatedSql } from './translate.ts';
import { TextWithNul } from '../validation/nul.ts';

/** The advisory lock every write transaction holds: (namespace, key). Migrations use key 0. */
export const WRITE_LOCK = [1801, 1] as const;
export const MIGRATION_LOCK = [1801, 0] as const;

// Made on first use: a process on SQLite never starts the worker (nor imports pg there).
let syncCall: ((op: PgOp) => PgAnswer) | undefined;
const call = (op: PgOp): PgAnswer => (syncCall ??= createSyncFn<(op: PgOp) => Promise<PgAnswer>>(new URL('./pg-worker.ts', import.meta.url).pathname))(op);
let nextId = 1;

/** An error PostgreSQL answered, with its SQLSTATE (`23505` unique violation, …). */
export class PgError extends Error {
  readonly code?: string;
  readonly detail?: string;
  readonly constraint?: string;
  constructor(message: string, code?: string, detail?: string, constraint?: string) {
    super(message);
    this.name = 'PgError';
    this.code = code;
    this.detail = detail;
    this.constraint = constraint;
  }
}

function answer(a: PgAnswer): { rows: Record<string, unknown>[]; rowCount: number } {
  if (!a.ok) throw new PgError(a.code ? `${a.message} (SQLSTATE ${a.code})` : a.message, a.code, a.detail, a.constraint);
  for (const row of a.rows) {
    for (const k in row) {
      const v = row[k];
      // bytea arrives as a Uint8Array after the thread hop; the code reads Buffers (as from SQLite).
      if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    }
  }
  return a;
}

function value(v: unknown): unknown {
  if (v === undefined) return null;
  // PostgreSQL's text cannot hold NUL: refused here as the client's error, not sent to fail as a 500.
  if (typeof v === 'string' && v.includes('\u0000')) throw new TextWithNul();
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') throw new TypeError('SQLite3 can only bind numbers, strings, bigints, buffers, and null');
  return v;
}

// Stores prepare many statements per request: translate and name each distinct text once per process.
// (Texts vary only with the length of an IN list, so the set stays small; the cap is a guard.)
const translations = new Map<string, { sql: TranslatedSql; name: string }>();
function translated(source: string): { sql: TranslatedSql; name: string } {
  let t = translations.get(source);
  if (!t) {
    const sql = toPostgres(source);
    t = { sql, name: `kb_${createHash('sha256').update(sql.text).digest('base64url').slice(0, 24)}` };
    if (translations.size >= 5000) translations.clear();
    translations.set(source, t);
  }
  return t;
}

class PgStatement {
  private plucked = false;
  private readonly sql: TranslatedSql;
  private readonly name: string;
  private readonly db: PgDatabase;
  readonly source: string;
  constructor(db: PgDatabase, source: string) {
    this.db = db;
    this.source = source;
    ({ sql: this.sql, name: this.name } = translated(source));
  }

  pluck(on = true): this {
    this.plucked = on;
    return this;
  }

  private values(params: unknown[]): unknown[] {
    const named = params.length === 1 && params[0] !== null && typeof params[0] === 'object' && !Array.isArray(params[0]) && !(params[0] instanceof Uint8Array);
    if (this.sql.names.length > 0 || (named && this.sql.positional === 0)) {
      const obj = (named ? params[0] : {}) as Record<string, unknown>;
      return this.sql.names.map((n) => {
        if (!(n in obj)) throw new RangeError(`Missing named parameter "${n}"`);
        return value(obj[n]);
      });
    }
    const flat = params.flat();
    if (flat.length !== this.sql.positional) throw new RangeError(`Too ${flat.length < this.sql.positional ? 'few' : 'many'} parameter values were provided`);
    return flat.map(value);
  }

  private rows(params: unknown[]): unknown[] {
    const { rows } = this.db.query(this.sql.text, this.values(params), this.name);
    return this.plucked ? rows.map((r) => r[Object.keys(r)[0]]) : rows;
  }

  get(...params: unknown[]): unknown {
    return this.rows(params)[0];
  }
  all(...params: unknown[]): unknown[] {
    return this.rows(params);
  }
  *iterate(...params: unknown[]): IterableIterator<unknown> {
    yield* this.rows(params);
  }
  run(...params: unknown[]): Database.RunResult {
    const { rowCount } = this.db.query(this.sql.text, this.values(params), this.name);
    return { changes: rowCount, lastInsertRowid: 0 };
  }
}

export class PgDatabase {
  readonly dialect = 'postgres' as const;
  private readonly id = nextId++;
  private depth = 0;
  private closed = false;

  readonly url: string;
  private readonly applicationName: string;
  constructor(url: string, applicationName = 'kb') {
    this.url = url;
    this.applicationName = applicationName;
    answer(call({ op: 'connect', id: this.id, url, applicationName }));
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }
  get open(): boolean {
    return !this.closed;
  }

  /** `name`: a server-side prepared statement, parsed once per connection (prepare() names each). */
  query(text: string, values: unknown[], name?: string): { rows: Record<string, unknown>[]; rowCount: number } {
    return answer(this.send({ op: 'query', id: this.id, text, values, name }));
  }

  /**
   * Sends one call; when the connection was dropped (the database restarted, an idle connection was cut)
   * and no transaction is open, connects again and sends it once more. Inside a transaction the error
   * stands: the transaction is gone with its connection, and its function must fail whole.
   */
  private send(op: PgOp): PgAnswer {
    const a = call(op);
    if (a.ok || a.code !== CONNECTION_LOST || this.depth > 0) return a;
    const again = call({ op: 'connect', id: this.id, url: this.url, applicationName: this.applicationName });
    return again.ok ? call(op) : again;
  }

  prepare(source: string): PgStatement {
    return new PgStatement(this, source);
  }

  /** Runs SQL text as it is (several statements allowed, no parameters, no translation). */
  exec(sql: string): this {
    answer(this.send({ op: 'exec', id: this.id, sql }));
    return this;
  }

  /** better-sqlite3's transaction(): the outermost one holds the write lock; nested ones are savepoints. */
  transaction<F extends (...args: never[]) => unknown>(fn: F) {
    const run = (...args: Parameters<F>): ReturnType<F> => {
      const outer = this.depth === 0;
      const savepoint = `sp_${this.depth}`;
      try {
        this.exec(outer ? `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK[0]}, ${WRITE_LOCK[1]})` : `SAVEPOINT ${savepoint}`);
      } catch (err) {
        // The lock was not granted in time (lock_timeout): leave no aborted transaction behind.
        if (outer) this.tryExec('ROLLBACK');
        throw err;
      }
      this.depth++;
      let result: ReturnType<F>;
      try {
        result = fn(...args) as ReturnType<F>;
        if (result instanceof Promise) throw new TypeError('Transaction function cannot return a promise');
      } catch (err) {
        this.depth--;
        this.tryExec(outer ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}`);
        throw err;
      }
      this.depth--;
      this.exec(outer ? 'COMMIT' : `RELEASE SAVEPOINT ${savepoint}`);
      return result;
    };
    return Object.assign(run, { default: run, deferred: run, immediate: run, exclusive: run });
  }

  /** exec() that ignores failure: when the connection is gone, the server rolled back by itself. */
  private tryExec(sql: string): void {
    try {
      this.exec(sql);
    } catch {
      // nothing to undo on a lost connection
    }
  }

  pragma(): never {
    throw new Error('pragma() is SQLite only');
  }

  close(): this {
    if (!this.closed) {
      this.closed = true;
      answer(call({ op: 'close', id: this.id }));
    }
    return this;
  }
}
