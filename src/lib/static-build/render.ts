// Rendering pages with Astro. One Astro build renders one page after another on one core; a large build
// is split into shards by page key (KB_PAGE_SELECTION), each rendered by its own Astro build in a child
// process (render-shard.ts), and the shards' folders merged. Small builds (the incremental ones) render in
// this process. Either way the pages come from the same page files and the same renderer.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onPageRendered } from '../pages/index.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Below this many pages per shard, a second Astro build (its bundling takes ~2 s) does not pay.
 * KB_PAGES_PER_SHARD overrides it (tests shard the small sample with it; 0 = never shard).
 */
const PAGES_PER_SHARD = 3000;
const MAX_SHARDS = 4;

/** What the last render cost: shards used and the largest shard process's peak memory. */
export const renderStats = { shards: 1, peakShardRssMb: 0 };

/**
 * Builds in one process count up: Astro imports its prerender bundle from the output folder, and Node
 * caches modules by path, so a second build into the same folder would render from the first bundle.
 */
let buildCount = 0;

/**
 * Runs Astro over the content into a new staging folder inside the project (Astro imports its prerender
 * bundle from the output folder, so node_modules must resolve from there) and returns that folder.
 * With a selection file, only the pages it names (and the pages without params) are rendered.
 */
export async function renderWithAstro(
  env: Record<string, string | undefined>,
  generatedAt: string,
  selectionFile?: string,
  onPage?: () => void,
): Promise<string> {
  const staging = path.join(ROOT, 'node_modules', '.cache', `kb-build-${process.pid}-${++buildCount}`);
  fs.rmSync(staging, { recursive: true, force: true });
  const saved = { ...process.env };
  Object.assign(process.env, env, { DIST_DIR: staging, KB_GENERATED_AT: generatedAt, ASTRO_TELEMETRY_DISABLED: '1' });
  if (selectionFile) process.env.KB_PAGE_SELECTION = selectionFile;
  else delete process.env.KB_PAGE_SELECTION;
  onPageRendered(onPage);
  try {
    const { build } = await import('astro');
    await build({ root: ROOT, logLevel: 'warn' });
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw err;
  } finally {
    onPageRendered(undefined);
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
  return staging;
}

/** How many shards a render of `pages` pages uses on this machine. */
export function shardCount(pages: number, env: Record<string, string | undefined> = process.env): number {
  const perShard = env.KB_PAGES_PER_SHARD !== undefined ? Number(env.KB_PAGES_PER_SHARD) : PAGES_PER_SHARD;
  if (!(perShard > 0)) return 1;
  return Math.max(1, Math.min(MAX_SHARDS, os.availableParallelism(), Math.floor(pages / perShard)));
}

function writeSelection(keys: readonly string[]): string {
  const file = path.join(os.tmpdir(), `kb-selection-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(keys));
  return file;
}

/** One shard in a child process; resolves with its staging folder. */
function renderShard(env: Record<string, string | undefined>, generatedAt: string, selectionFile: string, onPage?: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'src/lib/static-build/render-shard.ts'), selectionFile, generatedAt], {
      env: { ...env, KB_NODE_QUIET: '1' } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      const s = d.toString();
      // One "." per page rendered; the last line names the folder and the shard's peak memory.
      if (onPage) for (const c of s) if (c === '.') onPage();
      out += s;
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const m = /STAGING (\S+) (\d+)\s*$/.exec(out);
      if (code !== 0 || !m) return reject(new Error(`a render shard failed (exit ${code}): ${err.trim().split('\n').slice(-5).join('\n')}`));
      renderStats.peakShardRssMb = Math.max(renderStats.peakShardRssMb, Number(m[2]));
      resolve(m[1]);
    });
  });
}

/**
 * Moves everything of `from` that `into` lacks into it, then removes `from`. A folder `into` has no folder
 * of the same name for moves in one rename (a page's folder, videos/<id>/, holds only its index.html: the
 * documents beside it are files such as videos/<id>.md), so merging a render of 21k pages takes a few
 * thousand renames, not a mkdir, a rename and an rmdir per file.
 */
export function mergeInto(into: string, from: string): void {
  moveMissing(into, from);
  fs.rmSync(from, { recursive: true, force: true });
}

function moveMissing(into: string, from: string): void {
  fs.mkdirSync(into, { recursive: true });
  const present = new Set(fs.readdirSync(into));
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    const dst = path.join(into, e.name);
    if (!present.has(e.name)) fs.renameSync(src, dst);
    else if (e.isDirectory()) moveMissing(dst, src);
    // else a file `into` has: the pages every shard renders (home, indexes), the assets
  }
}

/**
 * Renders the pages named by `keys` (every page of the content for a full build), sharded across cores
 * when there are many, into one staging folder, and returns it.
 */
export async function renderPages(
  env: Record<string, string | undefined>,
  generatedAt: string,
  keys: readonly string[],
  opts: { all: boolean; onPage?: () => void; /** Render even one shard in a child process, so this one can work meanwhile. */ inChild?: boolean },
): Promise<string> {
  const shards = shardCount(keys.length, env);
  renderStats.shards = shards;
  renderStats.peakShardRssMb = 0;
  if (shards === 1 && !opts.inChild) {
    const selection = opts.all ? undefined : writeSelection(keys);
    try {
      return await renderWithAstro(env, generatedAt, selection, opts.onPage);
    } finally {
      if (selection) fs.rmSync(selection, { force: true });
    }
  }
  const parts: string[][] = Array.from({ length: shards }, () => []);
  keys.forEach((k, i) => parts[i % shards].push(k));
  const files = parts.map(writeSelection);
  const results = await Promise.allSettled(files.map((f) => renderShard(env, generatedAt, f, opts.onPage)));
  for (const f of files) fs.rmSync(f, { force: true });
  const folders = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<string>).value);
  const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
  if (failed) {
    for (const f of folders) fs.rmSync(f, { recursive: true, force: true });
    throw failed.reason;
  }
  // The pages (client/) of every shard; the server bundle (server/) of the first, which all share.
  const [first, ...rest] = folders;
  for (const f of rest) {
    mergeInto(path.join(first, 'client'), path.join(f, 'client'));
    fs.rmSync(f, { recursive: true, force: true });
  }
  return first;
}
