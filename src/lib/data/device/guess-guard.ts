// Limits user_code guessing: a sliding-window log of failed attempts (unknown codes) per key. Once a key
// has `limit` failures in the last `windowMs`, every code lookup or approval under that key is refused
// (429 in api/device/access.ts) until the oldest failure leaves the window. Successful lookups cost nothing, so a person who
// mistypes once is never slowed down. In memory on the embedded SQLite default (one process); in the
// database on PostgreSQL (guess_failures), so several instances cannot multiply a guesser's attempts.
import type { Db } from '../db/index.ts';

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
  private async recent(key: string, t: number): Promise<number[]> {
    if (this.shared) return this.shared.recent(key, t - this.opts.windowMs);
    return this.recentInMemory(key, t);
  }

  private recentInMemory(key: string, t: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((at) => at > t - this.opts.windowMs);
    if (list.length === 0) this.failures.delete(key);
    else this.failures.set(key, list);
    return list;
  }

  /** Seconds until `key` may try again, or 0 when it may try now. */
  async retryAfter(key: string): Promise<number> {
    const t = this.opts.now();
    const list = await this.recent(key, t);
    if (list.length < this.opts.limit) return 0;
    return Math.max(1, Math.ceil((list[list.length - this.opts.limit] + this.opts.windowMs - t) / 1000));
  }

  /** Records a failed attempt (an unknown code). */
  async fail(key: string): Promise<void> {
    const t = this.opts.now();
    if (this.shared) return this.shared.fail(key, t, t - this.opts.windowMs);
    const list = this.recentInMemory(key, t);
    list.push(t);
    this.failures.set(key, list);
    if (this.failures.size > 50_000) for (const k of [...this.failures.keys()]) this.recentInMemory(k, t);
  }

  /** Seconds until every one of `keys` may try again: 0 when none is over its limit. */
  async wait(keys: string[]): Promise<number> {
    return Math.max(0, ...(await Promise.all(keys.map((k) => this.retryAfter(k)))));
  }

  async failAll(keys: string[]): Promise<void> {
    for (const k of keys) await this.fail(k);
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
    recent: async (key: string, since: number): Promise<number[]> => (await recent.all(key, since, limit)).reverse(),
    async fail(key: string, t: number, since: number): Promise<void> {
      await insert.run(key, t);
      if (++calls % 1000 === 0) await prune.run(since);
    },
  };
}
