// PostgreSQL behind the asynchronous interface of types.ts: a pg.Pool, one pooled connection per
// transaction, nothing that blocks the event loop. Statements outside a transaction take any idle
// connection; each connection prepares a statement's text once (named prepared statements).
//
// Write transactions do not queue behind one another: they run in parallel under READ COMMITTED, row
// locks and unique constraints keeping them apart, and take the cross-instance write lock (a
// transaction-scoped advisory lock) only where order must be total — the audit append calls
// `lockWrites()` as its first step, just before the commit, and holds the lock for those few round trips.
// A transaction that must read-then-decide under total order opens with `{ lock: true }`.
//
// An outage is an error, never the end of the process: the pool drops broken connections and makes new
// ones on demand, an idle connection's error is logged, and the errors of a database that cannot be
// reached are told apart by unavailable.ts (503 with Retry-After at the HTTP edge).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { PgError, TextWithNul } from './errors.ts';
import { toPostgres, type TranslatedSql } from './translate.ts';
import type { BindParameters, Db, RunResult, Statement, TransactionOptions } from './types.ts';

/** The advisory lock write transactions share: (namespace, key). Migrations use key 0. */
export const WRITE_LOCK = [1801, 1] as const;
export const MIGRATION_LOCK = [1801, 0] as const;

// Values as better-sqlite3 gives them, so the same code reads both databases: bigint and numeric as
// numbers (counts, seqs and epoch seconds are far below 2^53), booleans as 1 and 0.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.BOOL, (v) => (v === 't' ? 1 : 0));

export interface PgOptions {
  applicationName?: string;
  /** Connections in the pool (PG_POOL_SIZE). */
  poolSize?: number;
  /** How long a statement waits for a lock before it fails (503 at the edge). */
  lockTimeoutMs?: number;
  /** How long opening a connection may take before the query that needs it fails (503 at the edge). */
  connectTimeoutMs?: number;
  /** Where an idle connection's error is reported. */
  log?: (message: string) => void;
}

interface Tx {
  active: boolean;
  client: pg.PoolClient;
  locked: boolean;
  savepoints: number;
  /** The connection broke under the transaction: do not return it to the pool. */
  broken?: Error;
}

function bindValue(v: unknown): unknown {
  if (v === undefined) return null;
  // PostgreSQL's text cannot hold NUL: refused here as the client's error, not sent to fail as a 500.
  if (typeof v === 'string' && v.includes('\u0000')) throw new TextWithNul();
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') throw new TypeError('bind booleans as 1 or 0, as SQLite stores them');
  return v;
}

function asPgError(err: unknown): Error {
  if (!(err instanceof Error)) return new Error(String(err));
  if (err instanceof PgError) return err;
  const e = err as pg.DatabaseError;
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) {
    return new PgError(`${e.message} (SQLSTATE ${e.code})`, e.code, e.detail, e.constraint);
  }
  return err; // a network error (ECONNREFUSED, …) keeps its code for unavailable.ts
}

// Stores prepare many statements: translate and name each distinct text once per process. (Texts vary
// only with the length of an IN list or a filter's shape, so the set stays small; the cap is a guard.)
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

class PgStatement<P extends BindParameters, R> implements Statement<P, R> {
  readonly source: string;
  private readonly db: PgDb;
  private readonly sql: TranslatedSql;
  private readonly name: string;
  private plucked = false;
  constructor(db: PgDb, source: string) {
    this.db = db;
    this.source = source;
    ({ sql: this.sql, name: this.name } = translated(source));
  }

  pluck(on = true): this {
    this.plucked = on;
    return this;
  }

  private values(params: unknown[]): unknown[] {
    const first = params[0];
    const named = params.length === 1 && first !== null && typeof first === 'object' && !Array.isArray(first) && !(first instanceof Uint8Array);
    if (this.sql.names.length > 0 || (named && this.sql.positional === 0)) {
      const obj = (named ? first : {}) as Record<string, unknown>;
      return this.sql.names.map((n) => {
        if (!(n in obj)) throw new RangeError(`Missing named parameter "${n}"`);
        return bindValue(obj[n]);
      });
    }
    const flat = params.flat();
    if (flat.length !== this.sql.positional) throw new RangeError(`Too ${flat.length < this.sql.positional ? 'few' : 'many'} parameter values were provided`);
    return flat.map(bindValue);
  }

  private async rows(params: unknown[]): Promise<R[]> {
    const { rows } = await this.db.query(this.sql.text, this.values(params), this.name);
    return (this.plucked ? rows.map((r) => r[Object.keys(r)[0]]) : rows) as R[];
  }
  async get(...params: unknown[]): Promise<R | undefined> {
    return (await this.rows(params))[0];
  }
  all(...params: unknown[]): Promise<R[]> {
    return this.rows(params);
  }
  async run(...params: unknown[]): Promise<RunResult> {
    const { rowCount } = await this.db.query(this.sql.text, this.values(params), this.name);
    return { changes: rowCount };
  }
}

export class PgDb implements Db {
  readonly dialect = 'postgres' as const;
  readonly pool: pg.Pool;
  private readonly context = new AsyncLocalStorage<Tx>();
  readonly url: string;
  private readonly applicationName: string;
  /** How long each connection it opens may take to open (the pool's and its own: the migration lock's, the probe's). */
  readonly connectTimeoutMs: number;
  private probe: pg.Client | null = null;

  constructor(url: string, opts: PgOptions = {}) {
    this.url = url;
    this.applicationName = opts.applicationName ?? 'kb';
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 5000;
    const lockTimeout = opts.lockTimeoutMs ?? 5000;
    this.pool = new pg.Pool({
      connectionString: url,
      application_name: this.applicationName,
      max: opts.poolSize ?? 10,
      connectionTimeoutMillis: this.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
      // A writer waits at most lockTimeout for a lock (then its request answers 503, instead of hanging),
      // and a connection that stalls inside a transaction loses it, and its locks, after 60 s.
      options: `-c lock_timeout=${lockTimeout} -c idle_in_transaction_session_timeout=60000`,
    });
    const log = opts.log ?? ((m: string) => console.error(m));
    // An idle connection the server closed (a restart) is dropped from the pool; without this listener
    // its error would end the process. A restart drops every idle connection at once: said once a minute.
    let quietUntil = 0;
    let dropped = 0;
    this.pool.on('error', (err) => {
      dropped++;
      if (Date.now() < quietUntil) return;
      quietUntil = Date.now() + 60_000;
      log(`database: ${dropped} idle connection(s) failed (${err.message}); the pool makes new ones when needed`);
      dropped = 0;
    });
  }

  get inTransaction(): boolean {
    return this.context.getStore()?.active === true;
  }

  /** One statement, on the transaction's connection when the caller is inside one. */
  async query(text: string, values: unknown[], name?: string): Promise<{ rows: Record<string, unknown>[]; rowCount: number }> {
    const tx = this.context.getStore();
    const on: pg.Pool | pg.PoolClient = tx?.active ? tx.client : this.pool;
    try {
      const r = await on.query({ text, values, name });
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    } catch (err) {
      throw asPgError(err);
    }
  }

  prepare<P extends BindParameters = unknown[], R = unknown>(sql: string): Statement<P, R> {
    return new PgStatement<P, R>(this, sql) as unknown as Statement<P, R>;
  }

  async exec(sql: string): Promise<void> {
    const tx = this.context.getStore();
    try {
      await (tx?.active ? tx.client : this.pool).query(sql);
    } catch (err) {
      throw asPgError(err);
    }
  }

  async transaction<T>(fn: () => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    const outer = this.context.getStore();
    if (outer?.active) return this.savepoint(outer, fn, opts);
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw asPgError(err);
    }
    const tx: Tx = { active: true, client, locked: false, savepoints: 0 };
    const onError = (err: Error) => (tx.broken = err);
    client.on('error', onError);
    try {
      await client.query(opts.lock ? `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK[0]}, ${WRITE_LOCK[1]})` : 'BEGIN');
      tx.locked = opts.lock === true;
      const result = await this.context.run(tx, fn);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      // When the connection is gone the server rolled back by itself.
      await client.query('ROLLBACK').catch((e: Error) => (tx.broken ??= e));
      throw asPgError(err);
    } finally {
      tx.active = false;
      client.off('error', onError);
      client.release(tx.broken);
    }
  }

  private async savepoint<T>(tx: Tx, fn: () => Promise<T>, opts: TransactionOptions): Promise<T> {
    if (opts.lock) await this.lockWrites();
    const name = `sp_${++tx.savepoints}`;
    await tx.client.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      await tx.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      await tx.client.query(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`).catch(() => {});
      throw err;
    }
  }

  async lockWrites(): Promise<void> {
    const tx = this.context.getStore();
    if (!tx?.active) throw new Error('lockWrites() must run inside a transaction');
    if (tx.locked) return;
    try {
      await tx.client.query(`SELECT pg_advisory_xact_lock(${WRITE_LOCK[0]}, ${WRITE_LOCK[1]})`);
    } catch (err) {
      throw asPgError(err);
    }
    tx.locked = true;
  }

  async exclusive<T>(key: number, fn: () => Promise<T>): Promise<T> {
    // The session lock on a connection of its own, outside the pool: `fn` uses the pool, which may be a
    // single connection.
    const holder = new pg.Client({ connectionString: this.url, application_name: `${this.applicationName}-migrate`, connectionTimeoutMillis: this.connectTimeoutMs });
    holder.on('error', () => {}); // a lost holder fails its next query, handled below
    try {
      await holder.connect();
      // Unbounded by lock_timeout: a starting instance waits for another's migrations.
      await holder.query(`SELECT pg_advisory_lock(${WRITE_LOCK[0]}, ${key})`);
      return await fn();
    } catch (err) {
      throw asPgError(err);
    } finally {
      // Ending the session releases its advisory lock.
      await holder.end().catch(() => {});
    }
  }

  /**
   * On a connection of its own, not the pool's: a pool whose connections all wait for a lock is busy, not
   * down, and the answer must not queue behind them.
   */
  async ping(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error('the database did not answer in time'), { code: 'ETIMEDOUT' })), timeoutMs);
    });
    const probe = async () => {
      if (!this.probe) {
        const client = new pg.Client({ connectionString: this.url, application_name: `${this.applicationName}-probe`, connectionTimeoutMillis: this.connectTimeoutMs });
        client.on('error', () => {
          if (this.probe === client) this.probe = null;
          client.end().catch(() => {});
        });
        this.probe = client;
        await client.connect();
      }
      await this.probe.query('SELECT 1');
    };
    try {
      await Promise.race([probe(), timeout]);
    } catch (err) {
      const broken = this.probe;
      this.probe = null;
      broken?.end().catch(() => {});
      throw asPgError(err);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.probe?.end().catch(() => {});
    this.probe = null;
    await this.pool.end();
  }
}
