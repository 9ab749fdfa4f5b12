// Per-caller rate limits: a token bucket per key (user id, or client address for anonymous calls). One
// limiter per kind of action, shared by its routes (api/rate-limit answers 429 with Retry-After beyond it).
// On the embedded SQLite default the buckets live in memory (one server process); on PostgreSQL they live
// in the database (rate_limits), so a person's limit holds across every instance behind the origin.
import type { Db } from '../db/index.ts';

export interface RateLimitOptions {
  /** Requests allowed per window… */
  limit: number;
  /** …refilled evenly over this many milliseconds. */
  windowMs: number;
  now?: () => number;
  /** The limiter's name: keys of different limiters never share a bucket in the database. */
  name?: string;
  /** The service's database: on PostgreSQL the buckets are shared through it. */
  db?: Db;
}

export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();
  private readonly opts: Required<Omit<RateLimitOptions, 'db'>>;
  private readonly shared?: ReturnType<typeof sharedBuckets>;
  constructor(opts: RateLimitOptions) {
    this.opts = { now: Date.now, name: 'default', ...opts };
    if (opts.db?.dialect === 'postgres') this.shared = sharedBuckets(opts.db, this.opts.name, this.opts.windowMs);
  }

  /** Takes one token for `key`; resolves to 0 when allowed, or the seconds to wait. */
  async take(key: string): Promise<number> {
    const { limit, windowMs, now } = this.opts;
    const t = now();
    const rate = limit / windowMs;
    if (this.shared) {
      const b = await this.shared.take(`${this.opts.name}:${key}`, limit, t, rate);
      return b.ok ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000));
    }
    const b = this.buckets.get(key) ?? { tokens: limit, at: t };
    b.tokens = Math.min(limit, b.tokens + (t - b.at) * rate);
    b.at = t;
    this.buckets.set(key, b);
    if (this.buckets.size > 50_000) this.prune(t);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000));
  }

  private prune(t: number): void {
    for (const [k, b] of this.buckets) if (b.tokens + (t - b.at) * (this.opts.limit / this.opts.windowMs) >= this.opts.limit) this.buckets.delete(k);
  }
}

/**
 * Token buckets in the database, one row per key, refilled and taken in one atomic statement: two
 * instances taking from one bucket at once queue on its row, so the limit holds across instances. Rows
 * idle for a full window (a full bucket again) are deleted now and then.
 */
function sharedBuckets(db: Db, name: string, windowMs: number) {
  const take = db.prepare<[string, number, number, number], { ok: number; tokens: number }>(
    `INSERT INTO rate_limits AS r (key, tokens, at, ok) VALUES (?1, CAST(?2 AS DOUBLE PRECISION) - 1, CAST(?3 AS BIGINT), 1)
     ON CONFLICT (key) DO UPDATE SET
       ok = CASE WHEN LEAST(CAST(?2 AS DOUBLE PRECISION), r.tokens + (CAST(?3 AS BIGINT) - r.at) * CAST(?4 AS DOUBLE PRECISION)) >= 1 THEN 1 ELSE 0 END,
       tokens = LEAST(CAST(?2 AS DOUBLE PRECISION), r.tokens + (CAST(?3 AS BIGINT) - r.at) * CAST(?4 AS DOUBLE PRECISION))
         - CASE WHEN LEAST(CAST(?2 AS DOUBLE PRECISION), r.tokens + (CAST(?3 AS BIGINT) - r.at) * CAST(?4 AS DOUBLE PRECISION)) >= 1 THEN 1 ELSE 0 END,
       at = CAST(?3 AS BIGINT)
     RETURNING ok, tokens`,
  );
  const prune = db.prepare<[string, number]>("DELETE FROM rate_limits WHERE key LIKE ? || ':%' AND at < ?");
  let calls = 0;
  return {
    async take(key: string, limit: number, t: number, rate: number): Promise<{ ok: boolean; tokens: number }> {
      if (++calls % 1000 === 0) await prune.run(name, t - windowMs);
      const row = (await take.get(key, limit, t, rate))!;
      return { ok: row.ok === 1, tokens: row.tokens };
    },
  };
}
