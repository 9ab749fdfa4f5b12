// Secrets: high-entropy random values, their SHA-256 for storage, and constant-time comparison.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random secret of `bytes` bytes, base64url, with an optional readable prefix (`kb_…`). */
export function randomSecret(prefix = '', bytes = 32): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

/** A short random id with a type prefix, e.g. usr_3kq9x2m1c8v4: opaque, URL-safe, not a secret. */
export function randomId(prefix: string, bytes = 10): string {
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower-case
  const raw = randomBytes(bytes);
  let out = '';
  for (const b of raw) out += alphabet[b & 31];
  return `${prefix}_${out}`;
}

/** What the database stores of a secret. The secrets are random, so a plain SHA-256 is enough. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Constant-time equality of two strings (compared as their SHA-256, so lengths leak nothing either). */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(hashSecret(a), hashSecret(b));
}
