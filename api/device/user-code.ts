// User codes: what a person reads off one screen and types on another. Eight letters from an alphabet
// without vowels (no words) and without look-alikes (0/O, 1/I/L, 5/S…: no digits at all), shown as
// ABCD-EFGH, accepted in any case and with or without dashes and spaces.
import { randomInt } from 'node:crypto';

/** RFC 8628 §6.1's consonant alphabet minus L (confused with 1 and I): 19 letters. */
export const USER_CODE_ALPHABET = 'BCDFGHJKMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;
/** The spec's limit on what a client may send as user_code. */
export const USER_CODE_MAX_INPUT = 24;

/** A fresh code in its canonical (stored) form, e.g. `BCDFGHJK`; 19^8 ≈ 1.7e10 possibilities. */
export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** `BCDF-GHJK`: the form people see. */
export function formatUserCode(canonical: string): string {
  return `${canonical.slice(0, 4)}-${canonical.slice(4)}`;
}

/**
 * What a person typed, in canonical form, or null when it cannot be any code we issue (so the caller
 * answers "unknown" without a database read). Case, dashes and whitespace do not matter.
 */
export function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s\-‐‑–—]/g, '');
  if (code.length !== USER_CODE_LENGTH) return null;
  for (const ch of code) if (!USER_CODE_ALPHABET.includes(ch)) return null;
  return code;
}
