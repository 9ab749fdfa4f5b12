// Key files in DATA_DIR/keys: created once with mode 0600 in a 0700 folder, never overwritten, and safe
// when two processes (the server and the pipeline) start at the same moment: the loser reads the winner's.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * The file's bytes, creating it with `make()` when it does not exist yet.
 * @example const pem = loadOrCreateFile(path.join(dataDir, 'keys', 'audit-ed25519.pem'), () => newPem())
 */
export function loadOrCreateFile(file: string, make: () => string | Buffer): Buffer {
  if (fs.existsSync(file)) return fs.readFileSync(file);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const data = make();
  try {
    fs.writeFileSync(file, data, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file);
    throw err;
  }
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}

/**
 * The folder of the service's keys: KEYS_DIR when set, else DATA_DIR/keys. Several instances behind one
 * origin must hold the same keys (cookies, consent, chat tokens, audit pseudonyms and signatures, the
 * embedded identity provider's): point KEYS_DIR at one shared, secret mount.
 */
export function keysDir(dataDir: string): string {
  return process.env.KEYS_DIR ? path.resolve(process.env.KEYS_DIR) : path.join(dataDir, 'keys');
}

/** A random secret key of `bytes` bytes in the keys folder (see keysDir); refuses a file of another size. */
export function secretKey(dataDir: string, name: string, bytes = 32): Buffer {
  const file = path.join(keysDir(dataDir), name);
  const key = loadOrCreateFile(file, () => randomBytes(bytes));
  if (key.length !== bytes) throw new Error(`${file}: expected a ${bytes}-byte key, found ${key.length} bytes`);
  return key;
}
