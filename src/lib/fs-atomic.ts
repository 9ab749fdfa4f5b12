// Crash-safe file writes: write a temporary file beside the target, flush it, rename over the target.
// A reader (the build, the server) sees the old file or the new one, never half of one.
import fs from 'node:fs';
import path from 'node:path';

/** A temporary name beside `file`, carrying this process's pid (sweepTempFiles tells a dead writer's by it). */
function tempNameFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
}

export function writeFileAtomic(file: string, data: string | Buffer, opts: { mode?: number } = {}): void {
  stageFile(file, (fd) => fs.writeFileSync(fd, data), opts).commit();
}

/**
 * A file written by `write` into a temporary file beside `file` and flushed, not yet in place: `commit()`
 * renames it over `file`, `discard()` removes it (a build that writes a large file while it computes the
 * rest, and puts it in place with the others). `flush: false` for a cache, which a crash may lose (the
 * rename still makes a reader see the old file or the new one whole while the machine runs).
 */
export function stageFile(file: string, write: (fd: number) => void, opts: { mode?: number; flush?: boolean } = {}): { commit(): void; discard(): void } {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = tempNameFor(file);
  const fd = fs.openSync(tmp, 'w', opts.mode ?? 0o644);
  try {
    write(fd);
    if (opts.flush !== false) fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  return { commit: () => fs.renameSync(tmp, file), discard: () => fs.rmSync(tmp, { force: true }) };
}

/** How many files writeFilesAtomic flushes at once (the disk coalesces concurrent flushes: ~2x at 16). */
const FLUSHED_TOGETHER = 16;

/**
 * Many files, each as writeFileAtomic writes one (whole, flushed, renamed over the target), but flushed
 * several at a time in the thread pool instead of one after another: a build's ~800 files at 100k videos
 * took ~0.5 s less. On an error the batch's temporary files are removed; files of earlier batches are
 * already in place (each of them whole), the rest untouched.
 */
export async function writeFilesAtomic(files: Iterable<[file: string, data: Buffer]>): Promise<void> {
  const all = [...files];
  for (let i = 0; i < all.length; i += FLUSHED_TOGETHER) {
    const batch = all.slice(i, i + FLUSHED_TOGETHER);
    const temps: string[] = [];
    const written = await Promise.allSettled(
      batch.map(async ([file, data]) => {
        await fs.promises.mkdir(path.dirname(file), { recursive: true });
        const tmp = tempNameFor(file);
        temps.push(tmp);
        const handle = await fs.promises.open(tmp, 'w', 0o644);
        try {
          await handle.writeFile(data);
          await handle.sync();
        } finally {
          await handle.close();
        }
        return tmp;
      }),
    );
    const failed = written.find((r) => r.status === 'rejected');
    if (failed) {
      for (const tmp of temps) fs.rmSync(tmp, { force: true });
      throw failed.reason;
    }
    batch.forEach(([file], j) => fs.renameSync((written[j] as PromiseFulfilledResult<string>).value, file));
  }
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
