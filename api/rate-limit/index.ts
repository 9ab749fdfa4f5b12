// Per-caller rate limits: a token bucket per key (user id, or client address for anonymous calls) in
// memory. Exceeding it answers 429 with Retry-After. One limiter per kind of action, shared by its routes.
import type { Context } from 'hono';
import { ApiError } from '../errors/index.ts';

export interface RateLimitOptions {
  /** Requests allowed per window… */
  limit: number;
  /** …refilled evenly over this many milliseconds. */
  windowMs: number;
  now?: () => number;
}

export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();
  private readonly opts: Required<RateLimitOptions>;
  constructor(opts: RateLimitOptions) {
    this.opts = { now: Date.now, ...opts };
  }

  /** Takes one token for `key`; returns 0 when allowed, or the seconds to wait. */
  take(key: string): number {
    const { limit, windowMs, now } = this.opts;
    const t = now();
    const rate = limit / windowMs;
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

/** The client's address as our listener saw it (the node-server binding), for anonymous limits. */
export function clientAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'unknown';
}

/**
 * Refuses the request with 429 and Retry-After when `key` is over its limit.
 * @example enforceRate(limits.writes, `user:${p.user.id}`)
 */
export function enforceRate(limiter: RateLimiter, key: string): void {
  const wait = limiter.take(key);
  if (wait > 0) throw new ApiError(429, `Too many requests; try again in ${wait} s`, { 'Retry-After': String(wait) });
}
