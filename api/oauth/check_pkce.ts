// check_pkce: Proof Key for Code Exchange (RFC 7636), S256 only, as OAuth 2.1 requires.
// - authorization: a code_challenge is required; code_challenge_method must be S256 (plain is refused);
//   the challenge is the 43-character base64url SHA-256 of a verifier
// - token: code_verifier is required, 43 to 128 unreserved characters, and its S256 equals the stored
//   challenge, compared in constant time; a mismatch is invalid_grant (§4.6)
import { createHash } from 'node:crypto';
import { constantTimeEqual } from '../../src/lib/data/secrets.ts';
import { InvalidGrant, InvalidRequest } from './errors.ts';

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export function checkCodeChallenge(challenge: string, method: string): string {
  if (challenge === '') throw new InvalidRequest('code_challenge is required (PKCE with S256)');
  if (method !== 'S256') throw new InvalidRequest('code_challenge_method must be S256');
  if (!CHALLENGE.test(challenge)) throw new InvalidRequest('code_challenge must be the base64url SHA-256 of the code verifier (43 characters)');
  return challenge;
}

export function checkCodeVerifier(verifier: string | undefined, storedChallenge: string): void {
  if (!verifier) throw new InvalidRequest('code_verifier is required');
  if (!VERIFIER.test(verifier)) throw new InvalidGrant('code_verifier is malformed');
  const computed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  if (!constantTimeEqual(computed, storedChallenge)) throw new InvalidGrant('code_verifier does not match the code_challenge');
}
