// What a killed build leaves behind, removed by the next build as it starts. A build killed mid-way (a
// restart during the nightly run, the OOM killer) cannot run its own cleanup, and at 100k videos one
// leaves GBs: its documents' folder (560k files), its render processes' folders (a copy of every page),
// the new or the replaced dist/ beside the live one, the models files it handed over (~75 MB at 10k).
// Each of these names the process it belongs to; one whose processes are all gone is removed, one of a
// process still running (another build at work) is left alone, and so is one of this process unless it
// is older than this process (a container restarted with the same pid). A pid reused by an unrelated
// process keeps its leftover until that process ends: never a live build's folder removed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processAlive } from '../fs-atomic.ts';
import { escapeRegExp } from '../text/regexp.ts';
import { ROOT } from './render.ts';

/**
 * The folder beside dist/ a full build moves its new dist/ to before the swap (`new`), or the replaced one
 * to before deleting it (`old`): named after this host and process, since dist/ may be on a volume several
 * hosts share (the README's several instances), where a pid says nothing of another host's processes.
 */
export const swapFolder = (distDir: string, kind: 'new' | 'old'): string => `${path.resolve(distDir)}.${kind}-${os.hostname()}-${process.pid}`;

/** The folder a full build writes its documents into, before its pages move in beside them. */
export const documentsFolder = (): string => path.join(ROOT, 'node_modules', '.cache', `kb-build-docs-${process.pid}-${Date.now()}`);

/** When this process started: a leftover named after its pid and older is a former process's (a container restarted with the same pid). */
const started = Date.now() - process.uptime() * 1000;

/** Whether every one of these pids is of a process that is gone: another pid no process has, or this one's before it started. */
function allGone(pids: string[], file: string): boolean {
  return pids.every((p) => {
    const pid = Number(p);
    if (pid !== process.pid) return !processAlive(pid);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    return st !== undefined && st.mtimeMs < started - 1000;
  });
}

/**
 * Removes the leftovers of killed builds of this dist/ (see the top of this file), says so in `log`, and
 * returns their paths:
 * - in node_modules/.cache, `kb-build-<owner>-<pid>-<n>` (a render's pages: the build that reads them and
 *   the process that rendered them; `kb-build-<pid>-<n>` before they were named so) and
 *   `kb-build-docs-<pid>-<time>` (a full build's documents);
 * - beside dist/, `<dist>.new-<host>-<pid>` and `<dist>.old-<host>-<pid>` of this host (a full build's swap);
 * - in the temporary folder, `kb-selection-<pid>-XXXXXX` and `kb-models-<pid>-XXXXXX` (private folders
 *   holding what a build told its render processes; `kb-selection-<pid>-…json` files before).
 */
export function sweepBuildLeftovers(distDir: string, log?: (line: string) => void): string[] {
  const removed: string[] = [];
  const sweep = (dir: string, pattern: RegExp) => {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return; // no such folder: nothing left there
    }
    for (const name of names) {
      const m = pattern.exec(name);
      if (!m || !allGone(m.slice(1).filter((p) => p !== undefined), path.join(dir, name))) continue;
      fs.rmSync(path.join(dir, name), { recursive: true, force: true });
      removed.push(path.join(dir, name));
    }
  };
  sweep(path.join(ROOT, 'node_modules', '.cache'), /^kb-build-(?:docs-(\d+)-\d+|(\d+)-(\d+)-\d+|(\d+)-\d+)$/);
  const dist = path.resolve(distDir);
  // This host's only: another host's process cannot be told alive from here.
  sweep(path.dirname(dist), new RegExp(`^${escapeRegExp(path.basename(dist))}\\.(?:new|old)-${escapeRegExp(os.hostname())}-(\\d+)$`));
  sweep(os.tmpdir(), /^kb-(?:selection|models)-(\d+)-(?:[A-Za-z0-9]{6}|\d+-[a-z0-9]+\.json)$/);
  if (removed.length) log?.(`build: removed what ${removed.length === 1 ? 'a killed build' : 'killed builds'} left: ${removed.map((p) => path.basename(p)).join(', ')}`);
  return removed;
}
