// The one asynchronous interface both databases offer (src/lib/data/db/sqlite.ts, postgres.ts). Stores
// write their SQL once, in the dialect both accept (translate.ts lists what is mapped for PostgreSQL),
// prepare it once, and await each call.
//
// Transactions are ambient: `db.transaction(async () => …)` opens one, and every statement awaited inside
// that function — in the store that opened it or in any function it calls, the audit append included —
// runs in it (node:async_hooks AsyncLocalStorage carries it), as better-sqlite3's synchronous
// transactions did. A transaction opened inside another is a savepoint.

/** better-sqlite3's bind forms: positional values, or one object for `@name` placeholders. */
export type BindParameters = unknown[] | object;
type Args<P> = P extends unknown[] ? P : [P];

export interface RunResult {
  /** Rows the statement inserted, changed or deleted. */
  changes: number;
}

export interface Statement<P extends BindParameters = unknown[], R = unknown> {
  readonly source: string;
  /** The first row (or, plucked, its first column), undefined when there is none. */
  get(...params: Args<P>): Promise<R | undefined>;
  all(...params: Args<P>): Promise<R[]>;
  run(...params: Args<P>): Promise<RunResult>;
  /** Rows become their first column's value. */
  pluck(on?: boolean): Statement<P, R>;
}

export interface TransactionOptions {
  /**
   * Take the cross-instance write lock at the start (PostgreSQL; on SQLite every write transaction is
   * exclusive anyway). For a transaction that reads to decide a write which no unique constraint or
   * conditional UPDATE can guard. Others take it as late as they can with `lockWrites()` — the audit
   * append does.
   */
  lock?: boolean;
}

export interface Db {
  readonly dialect: 'sqlite' | 'postgres';
  prepare<P extends BindParameters = unknown[], R = unknown>(sql: string): Statement<P, R>;
  /** SQL text as it is (several statements, no parameters, no translation). */
  exec(sql: string): Promise<void>;
  /** Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: () => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * Inside a transaction: holds the cross-instance write lock until it ends, so transactions that call it
   * are totally ordered from this point (PostgreSQL: a transaction-scoped advisory lock; SQLite: already
   * true). Outside a transaction it throws.
   */
  lockWrites(): Promise<void>;
  /** Whether the caller runs inside a transaction of this database. */
  readonly inTransaction: boolean;
  /**
   * Runs `fn` while holding a session lock that only one process on this database holds at a time (the
   * migrations): PostgreSQL an advisory lock on a connection of its own; SQLite just runs it.
   */
  exclusive<T>(key: number, fn: () => Promise<T>): Promise<T>;
  /** Answers whether the database can be reached, within `timeoutMs` (health and readiness). */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}
