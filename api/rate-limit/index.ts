// Rate limits at the HTTP edge: a request over its limiter's budget (src/lib/data/rate-limit, a token
// bucket per key, shared through the database on PostgreSQL) answers 429 with Retry-After.
import { ApiError } from '../errors/index.ts';
import type { RateLimiter } from '../../src/lib/data/rate-limit/index.ts';

export { RateLimiter, type RateLimitOptions } from '../../src/lib/data/rate-limit/index.ts';
/** The client's address, for anonymous limits: see client-address.ts (TRUST_PROXY). */
export { clientAddress } from './client-address.ts';

/**
 * Refuses the request with 429 and Retry-After when `key` is over its limit.
 * @example await enforceRate(limits.writes, `user:${p.user.id}`)
 */
export async function enforceRate(limiter: RateLimiter, key: string): Promise<void> {
  const wait = await limiter.take(key);
  if (wait > 0) throw new ApiError(429, `Too many requests; try again in ${wait} s`, { 'Retry-After': String(wait) });
}
