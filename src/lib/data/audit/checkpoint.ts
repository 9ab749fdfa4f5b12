// Signed checkpoints in the formats transparency logs share: a C2SP tlog-checkpoint body (origin, tree
// size, base64 root hash) inside a C2SP signed-note, signed with Ed25519. Pure apart from key files.
import { loadOrCreateFile } from '../keys.ts';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/** Signature type byte of Ed25519 in signed notes. */
const ED25519 = 0x01;

export interface NoteSigner {
  /** Key name: the log origin, a non-empty string without spaces or '+'. */
  name: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** 32 raw public key bytes. */
  rawPublicKey: Buffer;
  /** 4-byte key id: SHA-256(name || "\n" || 0x01 || key)[:4]. */
  keyId: Buffer;
}

export function rawEd25519PublicKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url');
}

export function noteKeyId(name: string, rawPublicKey: Buffer): Buffer {
  return createHash('sha256').update(name).update('\n').update(Buffer.from([ED25519])).update(rawPublicKey).digest().subarray(0, 4);
}

/** A note key name (and so a log origin here): non-empty, without Unicode spaces or '+'. */
export const isValidKeyName = (name: string): boolean => name !== '' && !/[\s+]/u.test(name);

export function createSigner(name: string, privateKey: KeyObject): NoteSigner {
  if (!isValidKeyName(name)) throw new Error(`invalid note key name "${name}"`);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the audit signing key must be Ed25519');
  const publicKey = createPublicKey(privateKey);
  const rawPublicKey = rawEd25519PublicKey(publicKey);
  return { name, privateKey, publicKey, rawPublicKey, keyId: noteKeyId(name, rawPublicKey) };
}

/** The verifier key string of signed notes: `<name>+<hex key id>+<base64(0x01 || key)>`. */
export function verifierKey(s: Pick<NoteSigner, 'name' | 'rawPublicKey' | 'keyId'>): string {
  return `${s.name}+${s.keyId.toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), s.rawPublicKey]).toString('base64')}`;
}

/**
 * Loads the Ed25519 key from `file` (PKCS#8 PEM), creating it with mode 0600 on first use.
 * @example loadOrCreateKey(path.join(dataDir, 'keys', 'audit-ed25519.pem'))
 */
export function loadOrCreateKey(file: string): KeyObject {
  return createPrivateKey(loadOrCreateFile(file, () => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' })));
}

/** The checkpoint body: origin, tree size and base64 root hash, each on its own line. */
export function checkpointBody(origin: string, size: number, root: Buffer): string {
  return `${origin}\n${size}\n${root.toString('base64')}\n`;
}

/** A signed note: the body, a blank line, and one signature line `— <name> <base64(key id || signature)>`. */
export function signNote(body: string, signer: NoteSigner): string {
  if (!body.endsWith('\n')) throw new Error('a note body ends with a newline');
  const sig = sign(null, Buffer.from(body, 'utf8'), signer.privateKey);
  return `${body}\n— ${signer.name} ${Buffer.concat([signer.keyId, sig]).toString('base64')}\n`;
}

export interface ParsedCheckpoint {
  origin: string;
  size: number;
  root: Buffer;
  body: string;
}

/**
 * Verifies a signed note against a verifier key string and parses its checkpoint. Returns null when no
 * signature line of that key verifies or the body is not a checkpoint.
 */
export function openCheckpoint(note: string, verifier: string): ParsedCheckpoint | null {
  // The base64 key may itself contain '+', so only the first two separate fields.
  const fields = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/=]+)$/.exec(verifier);
  if (!fields) return null;
  const [, name, hexId, b64] = fields;
  const keyBytes = Buffer.from(b64, 'base64');
  if (keyBytes.length !== 33 || keyBytes[0] !== ED25519) return null;
  const raw = keyBytes.subarray(1);
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return null;
  const body = note.slice(0, split + 1);
  const sigLines = note.slice(split + 2).split('\n').filter(Boolean);
  const ok = sigLines.some((line) => {
    const m = /^— (\S+) (\S+)$/u.exec(line);
    if (!m || m[1] !== name) return false;
    const blob = Buffer.from(m[2], 'base64');
    if (blob.length !== 68 || blob.subarray(0, 4).toString('hex') !== hexId) return false;
    return verify(null, Buffer.from(body, 'utf8'), publicKey, blob.subarray(4));
  });
  if (!ok) return null;
  const lines = body.split('\n');
  if (lines.length < 4 || !/^\d+$/.test(lines[1])) return null;
  const root = Buffer.from(lines[2], 'base64');
  if (root.length !== 32) return null;
  return { origin: lines[0], size: Number(lines[1]), root, body };
}

/** The signature bytes of a note's signature line (without the key id), for tools such as openssl. */
export function noteSignature(note: string): Buffer {
  const line = note.slice(note.lastIndexOf('\n\n') + 2).split('\n')[0];
  return Buffer.from(line.split(' ')[2], 'base64').subarray(4);
}
