// Limits user_code guessing: a sliding-window log of failed attempts (unknown codes) per key. Once a key
// has `limit` failures in the last `windowMs`, every code lookup or approval under that key is refused
// with 429 until the oldest failure leaves the window. Successful lookups cost nothing, so a person who
// mistypes once is never slowed down. In memory, like api/rate-limit: one process, no hidden globals.
import { ApiError } from '../errors/index.ts';

export interface GuessGuardOptions {
  /** Failures allowed per window… */
  limit: number;
  /** …in a window sliding over this many milliseconds. */
  windowMs: number;
  now?: () => number;
}

export class GuessGuard {
  private failures = new Map<string, number[]>();
  private readonly opts: Required<GuessGuardOptions>;
  constructor(opts: GuessGuardOptions) {
    this.opts = { now: Date.now, ...opts };
  }

  /** The recent failures of `key`, oldest first, with older ones dropped. */
  private recent(key: string, t: number): number[] {
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
