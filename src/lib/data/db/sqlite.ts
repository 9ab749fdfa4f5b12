// The embedded default: one better-sqlite3 connection (the fastest SQLite driver for Node) behind the
// asynchronous interface of types.ts. Statements run synchronously — SQLite answers from the page cache
// in microseconds — and their promises are already settled, so a transaction whose function awaits only
// the database finishes within one turn of the event loop.
//
// One connection means one transaction at a time: while a transaction is open, statements and
// transactions from other callers wait for it to end (they must not see, nor join, its uncommitted
// writes). That wait is only ever long when a transaction's function awaits something other than the
// database, which stores do not do.
import { AsyncLocalStorage } from 'node:async_hooks';
import Database from 'better-sqlite3';
import type { BindParameters, Db, RunResult, Statement } from './types.ts';

interface Tx {
  active: boolean;
  savepoints: number;
  done: Promise<void>;
}

class SqliteStatement<P extends BindParameters, R> implements Statement<P, R> {
  readonly source: string;
  private readonly db: SqliteDb;
  private raw: Database.Statement | undefined;
  private plucked = false;
  constructor(db: SqliteDb, source: string) {
    this.db = db;
    this.source = source;
  }
  private statement(): Database.Statement {
    if (!this.raw) {
      this.raw = this.db.raw.prepare(this.source);
      if (this.plucked) this.raw.pluck(true);
    }
    return this.raw;
  }
  pluck(on = true): this {
    this.plucked = on;
    this.raw?.pluck(on);
    return this;
  }
  async get(...params: unknown[]): Promise<R | undefined> {
    for (let wait = this.db.busy(); wait; wait = this.db.busy()) await wait;
    return this.statement().get(...params) as R | undefined;
  }
  async all(...params: unknown[]): Promise<R[]> {
    for (let wait = this.db.busy(); wait; wait = this.db.busy()) await wait;
    return this.statement().all(...params) as R[];
  }
  async run(...params: unknown[]): Promise<RunResult> {
    for (let wait = this.db.busy(); wait; wait = this.db.busy()) await wait;
    return { changes: this.statement().run(...params).changes };
  }
}

export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  readonly raw: Database.Database;
  private readonly context = new AsyncLocalStorage<Tx>();
  /** The open transaction, if any. */
  private current: Tx | null = null;

  constructor(raw: Database.Database) {
    this.raw = raw;
  }

  get inTransaction(): boolean {
    return this.context.getStore()?.active === true;
  }

  /**
   * Null when the caller may use the connection now (it owns the open transaction, or none is open), else
   * the end of the transaction to wait for. Callers check again after waiting, and use the connection in
   * the same synchronous step as the check that said null, so no other transaction can begin in between.
   */
  busy(): Promise<void> | null {
    const mine = this.context.getStore();
    return this.current && this.current !== mine ? this.current.done : null;
  }

  prepare<P extends BindParameters = unknown[], R = unknown>(sql: string): Statement<P, R> {
    return new SqliteStatement<P, R>(this, sql) as unknown as Statement<P, R>;
  }

  async exec(sql: string): Promise<void> {
    for (let wait = this.busy(); wait; wait = this.busy()) await wait;
    this.raw.exec(sql);
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const outer = this.context.getStore();
    if (outer?.active) return this.savepoint(outer, fn);
    for (let wait = this.busy(); wait; wait = this.busy()) await wait;
    let end!: () => void;
    const tx: Tx = { active: true, savepoints: 0, done: new Promise<void>((resolve) => (end = resolve)) };
    this.current = tx;
    try {
      // IMMEDIATE: take the write lock now (another process, the pipeline, may be writing: busy_timeout).
      this.raw.exec('BEGIN IMMEDIATE');
      try {
        const result = await this.context.run(tx, fn);
        this.raw.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.raw.inTransaction) this.raw.exec('ROLLBACK');
        throw err;
      }
    } finally {
      tx.active = false;
      this.current = null;
      end();
    }
  }

  private async savepoint<T>(tx: Tx, fn: () => Promise<T>): Promise<T> {
    const name = `sp_${++tx.savepoints}`;
    this.raw.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      this.raw.exec(`RELEASE ${name}`);
      return result;
    } catch (err) {
      this.raw.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
      throw err;
    }
  }

  async lockWrites(): Promise<void> {
    // BEGIN IMMEDIATE already holds SQLite's one write lock for the whole transaction.
    if (!this.inTransaction) throw new Error('lockWrites() must run inside a transaction');
  }

  async exclusive<T>(_key: number, fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  async ping(): Promise<void> {
    for (let wait = this.busy(); wait; wait = this.busy()) await wait;
    this.raw.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    for (let wait = this.busy(); wait; wait = this.busy()) await wait;
    if (this.raw.open) this.raw.close();
  }
}
