// DATA_DIR holds the database, the signing and encryption keys, people's note repositories and the
// pipeline's state: it is private to the user the service runs as (0700), whatever the umask made of
// the files inside. Files in it are then out of reach of other local users even where their own modes
// are 0644 (SQLite's journal files, git objects written by isomorphic-git).
import fs from 'node:fs';

/**
 * Creates `dir` with mode 0700, or takes group and other permissions off an existing one (saying so once).
 * @example ensurePrivateDir(config.dataDir, log)
 */
export function ensurePrivateDir(dir: string, log: (m: string) => void = console.log): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mode = fs.statSync(dir).mode & 0o777;
  if (mode & 0o077) {
    fs.chmodSync(dir, mode & 0o700);
    log(`data: ${dir} was readable by others (mode ${mode.toString(8)}); made it private (${(mode & 0o700).toString(8)})`);
  }
}
