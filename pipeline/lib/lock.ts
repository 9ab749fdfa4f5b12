// One run of a job at a time: an exclusive lock file per job holding the owner's pid. A lock whose owner
// is no longer alive (a killed run) is taken over, so a crash never blocks the pipeline for good.
import fs from 'node:fs';
import path from 'node:path';

export class LockedError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock or throws LockedError; returns the release function. */
export function acquireLock(dataDir: string, job: string): () => void {
  const dir = path.join(dataDir, 'pipeline', 'locks');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${job}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(file, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && alive(owner) && owner !== process.pid) {
        throw new LockedError(`${job} is already running (pid ${owner})`);
      }
      fs.rmSync(file, { force: true }); // stale: its owner died
    }
  }
  throw new LockedError(`${job}: could not take the lock`);
}
