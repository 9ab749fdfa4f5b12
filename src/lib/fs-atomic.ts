// Crash-safe file writes: write a temporary file beside the target, flush it, rename over the target.
// A reader (the build, the server) sees the old file or the new one, never half of one.
import fs from 'node:fs';
import path from 'node:path';

export function writeFileAtomic(file: string, data: string | Buffer, opts: { mode?: number } = {}): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const fd = fs.openSync(tmp, 'w', opts.mode ?? 0o644);
  try {
    if (typeof data === 'string') fs.writeSync(fd, data);
    else fs.writeSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** Writes only when the file does not exist yet (never overwrites an editor's file). Returns whether it wrote. */
export function createFileAtomic(file: string, data: string): boolean {
  if (fs.existsSync(file)) return false;
  writeFileAtomic(file, data);
  return true;
}

/** Whether a process of this pid is alive (EPERM: alive, another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes temp files a killed process left (they never replaced anything). A temp file names its writer's
 * pid: one whose writer is alive (another job writing beside this one) is left alone.
 */
export function sweepTempFiles(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const m = e.isFile() ? /^\..+\.(\d+)\.[a-z0-9]+\.tmp$/.exec(e.name) : null;
    if (m && !processAlive(Number(m[1]))) {
      fs.rmSync(path.join(e.parentPath, e.name), { force: true });
      n++;
    }
  }
  return n;
}
