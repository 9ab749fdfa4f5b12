// Limits user_code guessing: a sliding-window log of failed attempts (unknown codes) per key. Once a key
// has `limit` failures in the last `windowMs`, every code lookup or approval under that key is refused
// with 429 until the oldest failure leaves the window. Successful lookups cost nothing, so a person who
// mistypes once is never slowed down. In memory on the embedded SQLite default (one process); in the
// database on PostgreSQL (guess_failures), so several instances cannot multiply a guesser's attempts.
import type { Db } from '../db/index.ts';
import { ApiError } from '../errors/index.ts';

export interface GuessGuardOptions {
  /** Failures allowed per window… */
  limit: number;
  /** …in a window sliding over this many milliseconds. */
  windowMs: number;
  now?: () => number;
  /** The service's database: on PostgreSQL the failures are shared through it. */
  db?: Db;
}

export class GuessGuard {
  private failures = new Map<string, number[]>();
  private readonly opts: Required<Omit<GuessGuardOptions, 'db'>>;
  private readonly shared?: ReturnType<typeof sharedFailures>;
  constructor(opts: GuessGuardOptions) {
    this.opts = { now: Date.now, ...opts };
    if (opts.db?.dialect === 'postgres') this.shared = sharedFailures(opts.db, opts.limit);
  }

  /** The recent failures of `key`, oldest first, with older ones dropped. */
  private recent(key: string, t: number): number[] {
    if (this.shared) return this.shared.recent(key, t - this.opts.windowMs);
    const list = (this.failures.get(key) ?? []).filter((at) => at > t - this.opts.windowMs);
    if (list.length === 0) this.failures.delete(key);
    else this.failures.set(key, list);
    return list;
  }

  /** Seconds until `key` may try again, or 0 when it may try now. */
  retryAfter(key: string): number {
    const t = this.opts.now();
    const list = this.recent(key, t);
    if (list.length < this.opts.limit) return 0;
    return Math.max(1, Math.ceil((list[list.length - this.opts.limit] + this.opts.windowMs - t) / 1000));
  }

  /** Records a failed attempt (an unknown code). */
  fail(key: string): void {
    const t = this.opts.now();
    if (this.shared) return this.shared.fail(key, t, t - this.opts.windowMs);
    const list = this.recent(key, t);
    list.push(t);
    this.failures.set(key, list);
    if (this.failures.size > 50_000) for (const k of [...this.failures.keys()]) this.recent(k, t);
  }

  /** Throws 429 with Retry-After when any of `keys` is over its limit. */
  check(keys: string[]): void {
    const wait = Math.max(0, ...keys.map((k) => this.retryAfter(k)));
    if (wait > 0) throw new ApiError(429, `Too many unknown codes; try again in ${wait} s`, { 'Retry-After': String(wait) });
  }

  failAll(keys: string[]): void {
    for (const k of keys) this.fail(k);
  }
}

/**
 * Failures in the database: each a row; a key's recent ones are its newest `limit` rows inside the window
 * (all `check` needs), oldest first. Rows out of every window are deleted now and then.
 */
function sharedFailures(db: Db, limit: number) {
  const recent = db.prepare<[string, number, number], number>('SELECT at FROM guess_failures WHERE key = ? AND at > ? ORDER BY at DESC LIMIT ?').pluck();
  const insert = db.prepare('INSERT INTO guess_failures (key, at) VALUES (?, ?)');
  const prune = db.prepare('DELETE FROM guess_failures WHERE at <= ?');
  let calls = 0;
  return {
    recent: (key: string, since: number): number[] => recent.all(key, since, limit).reverse(),
    fail(key: string, t: number, since: number): void {
      insert.run(key, t);
      if (++calls % 1000 === 0) prune.run(since);
    },
  };
}
