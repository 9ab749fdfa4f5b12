// Encryption at rest for what the git host lends us (access and refresh tokens) and for PKCE verifiers in
// flight: AES-256-GCM with a 256-bit key in DATA_DIR/keys/personal-knowledge.key (created 0600 on first
// use). Each ciphertext is bound to its row by additional authenticated data, so a value copied to another
// row (another person) does not decrypt. A note pseudonym key for the public audit log derives from it too.
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { secretKey } from '../keys.ts';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface TokenCipher {
  /** Short id of the key (first bytes of its SHA-256): a changed key shows as "reconnect", not as garbage. */
  keyId: string;
  encrypt(plaintext: string, aad: string): Buffer;
  /** Throws when the key, the row binding or the bytes do not match. */
  decrypt(ciphertext: Buffer, aad: string): string;
  /** A stable, unlinkable id for one person's note, for public audit events (the slug itself stays private). */
  notePseudonym(userId: string, slug: string): string;
}

/** The token-encryption key, created on first use (see src/lib/data/keys.ts). */
export function loadOrCreateKey(dataDir: string): Buffer {
  return secretKey(dataDir, 'personal-knowledge.key');
}

export function createTokenCipher(key: Buffer): TokenCipher {
  const noteKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'kb personal-knowledge note pseudonym v1', 32));
  return {
    keyId: createHash('sha256').update(key).digest('hex').slice(0, 16),
    encrypt(plaintext, aad) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
    },
    decrypt(ciphertext, aad) {
      if (ciphertext.length < 1 + IV_BYTES + TAG_BYTES || ciphertext[0] !== VERSION) throw new Error('unknown ciphertext format');
      const iv = ciphertext.subarray(1, 1 + IV_BYTES);
      const tag = ciphertext.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
    notePseudonym(userId, slug) {
      return `pkn_${createHmac('sha256', noteKey).update(`${userId}\0${slug}`).digest('hex').slice(0, 24)}`;
    },
  };
}
