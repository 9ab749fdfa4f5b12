// One run of a job at a time: an exclusive lock file per job holding the owner's pid. A lock whose owner
// is no longer alive (a killed run) is taken over, so a crash never blocks the pipeline for good.
import fs from 'node:fs';
import path from 'node:path';
import { processAlive } from '../../src/lib/fs-atomic.ts';

export class LockedError extends Error {}

/**
 * Takes the lock or throws LockedError; returns the release function, whose `tookOver` says the lock was
 * left by a run that died (which may have left temporary files behind).
 */
export function acquireLock(dataDir: string, job: string): (() => void) & { tookOver: boolean } {
  const dir = path.join(dataDir, 'pipeline', 'locks');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${job}.lock`);
  let tookOver = false;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return Object.assign(() => fs.rmSync(file, { force: true }), { tookOver });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(file, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && processAlive(owner) && owner !== process.pid) {
        throw new LockedError(`${job} is already running (pid ${owner})`);
      }
      fs.rmSync(file, { force: true }); // stale: its owner died
      tookOver = true;
    }
  }
  throw new LockedError(`${job}: could not take the lock`);
}

/** A lock file older than this is a leftover of a crash: the sections it guards take milliseconds. */
const MUTEX_STALE_MS = 10_000;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `fn` holding an exclusive lock file, for short read-modify-write sections that several processes
 * and worker threads share (the pipeline's status file): waits for the holder, takes over a stale lock.
 */
export function withFileMutex<T>(file: string, fn: () => T): T {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const deadline = Date.now() + 2 * MUTEX_STALE_MS;
  for (;;) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let age = 0;
      try {
        age = Date.now() - fs.statSync(file).mtimeMs;
      } catch {
        continue; // released between the two calls
      }
      if (age > MUTEX_STALE_MS || Date.now() > deadline) fs.rmSync(file, { force: true });
      else Atomics.wait(sleepCell, 0, 0, 2);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(file, { force: true });
  }
}
