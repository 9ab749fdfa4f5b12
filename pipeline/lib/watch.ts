// Watching the content folder for changes anyone makes (an editor's git pull, a file copied in, a deletion,
// a rename): the platform's recursive file watching (fs.watch with `recursive`, inotify on Linux, FSEvents
// on macOS), and a periodic stat scan as a safety net for file systems whose events are unreliable (network
// mounts, some container volumes). Either reports a change with the time it was seen; the scheduler
// decides whether a run already covers it (pipeline/scheduler.ts).
import fs from 'node:fs';
import path from 'node:path';

/** The folders of the content folder a load reads; README.md, inbox/ and the rest are not content. */
export const CONTENT_FOLDERS: readonly string[] = ['channels', 'videos', 'essays', 'digests', 'knowledge', 'personas', 'skills'];

/**
 * Whether a path under the content folder (as fs.watch names it, `/`-separated) can change what a load
 * reads: a `.md` or `.modelfile` under a content folder, a folder there (moved in or out), or a content
 * folder itself. Hidden names are not: the pipeline's temporary files (`.<name>.<pid>.<random>.tmp`, renamed
 * over their target, which is reported) and editors' swap files.
 * @example isContentPath('essays/new-essay/en.md') // true
 * @example isContentPath('videos/.abc.md.123.x1.tmp') // false
 */
export function isContentPath(rel: string): boolean {
  const parts = rel.split(/[\\/]/).filter(Boolean);
  if (parts.length === 0 || !CONTENT_FOLDERS.includes(parts[0]) || parts.some((p) => p.startsWith('.'))) return false;
  const name = parts[parts.length - 1];
  return parts.length === 1 || name.endsWith('.md') || name.endsWith('.modelfile') || !name.includes('.');
}

/** Every content file under the content folder with its stat key (size, mtime, ctime, inode), walked without blocking. */
export async function statTree(contentDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const files: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(path.join(contentDir, rel), { withFileTypes: true });
    } catch {
      return; // gone meanwhile, or not there
    }
    for (const e of entries) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!e.name.startsWith('.')) await walk(child);
      } else if (isContentPath(child)) files.push(child);
    }
  };
  for (const folder of CONTENT_FOLDERS) await walk(folder);
  // A few dozen stats at a time in the thread pool: at 100k videos ~1-2 s, without holding the event loop.
  for (let i = 0; i < files.length; i += 64) {
    await Promise.all(
      files.slice(i, i + 64).map(async (rel) => {
        try {
          const st = await fs.promises.stat(path.join(contentDir, rel), { bigint: true });
          out.set(rel, `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`);
        } catch {
          // removed between the listing and the stat: absent
        }
      }),
    );
  }
  return out;
}

export interface ContentWatcherOptions {
  contentDir: string;
  /** How long the folder must be quiet after a change before it is reported (a git pull of 200 files: one report). */
  quietMs: number;
  /** Seconds between stat scans (0: none). */
  scanSeconds: number;
  /** A change was seen and the folder has been quiet since (`at`: performance.now() of the newest change). */
  onChange: (at: number) => void;
  /** The first change after a quiet time was seen (onChange follows once the folder is quiet). */
  onChanging?: () => void;
  /** False while the scheduler runs jobs: a scan then waits for the next tick (a run's own writes are evented). */
  mayScan?: () => boolean;
  log: (line: string) => void;
}

export interface ContentWatcher {
  /** performance.now() of the newest change seen (0: none yet). */
  readonly changedAt: number;
  /** True while a change seen waits for the folder to be quiet. */
  readonly settling: boolean;
  /** Reports a change seen now by other means (an admin's request), after the quiet period like the others. */
  note(): void;
  close(): void;
}

/** The longest a report waits for quiet: a folder that never stops changing is still published. */
const MAX_SETTLE_MS = 10_000;

export function watchContent(opts: ContentWatcherOptions): ContentWatcher {
  let changedAt = 0;
  let firstUnreported: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  /** Paths named by events since the last scan started: the scan does not report them again. */
  let evented = new Set<string>();
  let everything = false;

  const report = () => {
    timer = undefined;
    firstUnreported = null;
    if (!closed) opts.onChange(changedAt);
  };
  const changed = () => {
    changedAt = performance.now();
    const first = firstUnreported === null;
    firstUnreported ??= changedAt;
    if (timer) clearTimeout(timer);
    const wait = Math.max(0, Math.min(opts.quietMs, firstUnreported + MAX_SETTLE_MS - changedAt));
    timer = setTimeout(report, wait);
    if (first && !closed) opts.onChanging?.();
  };

  let watcher: fs.FSWatcher | null = null;
  try {
    watcher = fs.watch(opts.contentDir, { recursive: true }, (_event, name) => {
      // No name (some platforms, an overflowed queue): anything may have changed.
      if (name === null) {
        everything = true;
        changed();
        return;
      }
      const rel = name.split(path.sep).join('/');
      if (!isContentPath(rel)) return;
      evented.add(rel);
      changed();
    });
    watcher.on('error', (err) => {
      opts.log(`pipeline: watching ${opts.contentDir} failed (${err.message}); ${opts.scanSeconds > 0 ? `the scan every ${opts.scanSeconds} s goes on` : 'changes are seen at the next run only'}`);
      watcher?.close();
      watcher = null;
    });
    watcher.unref();
  } catch (err) {
    opts.log(`pipeline: cannot watch ${opts.contentDir} (${(err as Error).message}); ${opts.scanSeconds > 0 ? `scanning it every ${opts.scanSeconds} s` : 'changes are seen at the next run only'}`);
  }

  // The safety net: a stat scan, compared with the previous one. A path an event named since the previous
  // scan began was reported already (or a run covers it), so only what no event told of counts.
  let previous: Map<string, string> | null = null;
  let scanning = false;
  const scan = async () => {
    if (scanning || closed || (opts.mayScan && !opts.mayScan() && previous)) return;
    scanning = true;
    const excused = evented;
    const all = everything;
    evented = new Set();
    everything = false;
    try {
      const now = await statTree(opts.contentDir);
      if (previous && !all && !everything && !closed) {
        // Events that arrived while the tree was read (now in `evented`) were reported too: a file written
        // during the scan is in `now` but was not in `excused`, and reporting it again after the quiet
        // period had ended would start a second run for one change.
        const told = (rel: string) => excused.has(rel) || evented.has(rel);
        const isExcused = (rel: string) => {
          if (told(rel)) return true;
          for (let i = rel.indexOf('/'); i > 0; i = rel.indexOf('/', i + 1)) if (told(rel.slice(0, i))) return true;
          return false;
        };
        let unseen = false;
        for (const [rel, key] of now) if (previous.get(rel) !== key && !isExcused(rel)) unseen = true;
        for (const rel of previous.keys()) if (!now.has(rel) && !isExcused(rel)) unseen = true;
        if (unseen) changed();
      }
      previous = now;
    } catch (err) {
      opts.log(`pipeline: scanning ${opts.contentDir} failed: ${(err as Error).message}`);
    } finally {
      scanning = false;
    }
  };
  const scanTimer = opts.scanSeconds > 0 ? setInterval(() => void scan(), opts.scanSeconds * 1000) : undefined;
  scanTimer?.unref();
  if (scanTimer) void scan(); // the baseline

  return {
    get changedAt() {
      return changedAt;
    },
    get settling() {
      return timer !== undefined;
    },
    note: changed,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (scanTimer) clearInterval(scanTimer);
      watcher?.close();
    },
  };
}
