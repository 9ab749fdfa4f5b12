// Rendering pages with Astro. One Astro build renders one page after another on one core; a large build
// is split into shards by page key (KB_PAGE_SELECTION), each rendered by its own Astro build in a child
// process (render-shard.ts), and the shards' folders merged. The incremental build starts one such process
// before it knows which pages changed (startRender), so that Astro's start and bundling overlap its own work.
// Either way the pages come from the same page files and the same renderer.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onPageRendered, PAGE_SELECTION_ENV } from '../pages/index.ts';
import { GENERATED_AT_ENV, PAGE_MODELS_ENV, type PageModelsFile } from '../build-inputs.ts';
import { objectPieces, writeJsonPiecesFile } from '../json-file.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Below this many pages per shard, a second Astro build (its bundling takes ~2 s) does not pay.
 * KB_PAGES_PER_SHARD overrides it (tests shard the small sample with it; 0 = never shard).
 */
const PAGES_PER_SHARD = 3000;
const MAX_SHARDS = 4;

/** What the last render cost: shards used and the largest shard process's peak memory. */
export const renderStats = {
  shards: 1,
  peakShardRssMb: 0,
  /** The slowest shard process, from its start to its last page (as it measured itself). */
  slowestShardMs: 0,
  /** CPU time (user and system) of the shard processes, summed. */
  shardCpuMs: 0,
  /** The process id of the last render started early (startRender). */
  lastPid: 0,
  /**
   * Of the last render started early: when it had bundled the site and when its pages were asked for,
   * in ms from its start (asked before ready: the caller waited for the bundle).
   */
  readyMs: 0,
  askedMs: 0,
};

/** Starts renderStats over for a render (or a benchmarked job) of `shards` shards. */
export function resetRenderStats(shards: number): void {
  renderStats.shards = shards;
  renderStats.peakShardRssMb = 0;
  renderStats.slowestShardMs = 0;
  renderStats.shardCpuMs = 0;
  renderStats.readyMs = 0;
  renderStats.askedMs = 0;
}

/**
 * Builds in one process count up: Astro imports its prerender bundle from the output folder, and Node
 * caches modules by path, so a second build into the same folder would render from the first bundle (its
 * content, its selection). The count is the process's, kept on the global object as Node's module cache
 * is: a second instance of this module (a test runner's vi.resetModules) must not count from 1 again and
 * render a later build from an earlier one's bundle.
 */
const BUILD_COUNT = Symbol.for('kb.astroBuildCount');
function nextBuild(): number {
  const global = globalThis as { [BUILD_COUNT]?: number };
  return (global[BUILD_COUNT] = (global[BUILD_COUNT] ?? 0) + 1);
}

/**
 * The staging folder of a process's n-th render, named after the process that reads it once the render is
 * done (`owner`: the build that started a render process, or the rendering process itself) and the one that
 * renders: a folder both of whose processes are gone is a killed build's leftover (leftovers.ts).
 */
export const stagingFolder = (owner: number, pid: number, n: number) => path.join(ROOT, 'node_modules', '.cache', `kb-build-${owner}-${pid}-${n}`);

/** The variable that tells a render process which process will read its staging folder (its build's pid). */
const RENDER_OWNER_ENV = 'KB_RENDER_OWNER';

/** The staging folder of the render running in this process, if one is. */
export let currentStaging: string | undefined;

/**
 * Where the bundled site waits before its pages are generated (astro.config.mjs, `kb:render-gate`): a
 * function on the global object, because Astro runs the config's plugins from its own module graph.
 */
const GATE = Symbol.for('kb.renderGate');

/**
 * Runs Astro over the content into a new staging folder inside the project (Astro imports its prerender
 * bundle from the output folder, so node_modules must resolve from there) and returns that folder.
 * With a selection file, only the pages it names (and the pages without params) are rendered. With a
 * `gate`, Astro bundles the site first and then waits for it: what it resolves with (the selection and
 * models files' variables) is set in the environment before any page is generated.
 */
export async function renderWithAstro(
  env: Record<string, string | undefined>,
  /** The build's time; undefined when `gate` gives it (KB_GENERATED_AT). */
  generatedAt: string | undefined,
  selectionFile?: string,
  onPage?: () => void,
  gate?: () => Promise<Record<string, string>>,
): Promise<string> {
  const staging = stagingFolder(Number(env[RENDER_OWNER_ENV]) || process.pid, process.pid, nextBuild());
  fs.rmSync(staging, { recursive: true, force: true });
  currentStaging = staging;
  const saved = { ...process.env };
  Object.assign(process.env, env, { DIST_DIR: staging, ASTRO_TELEMETRY_DISABLED: '1' });
  if (generatedAt) process.env[GENERATED_AT_ENV] = generatedAt;
  else delete process.env[GENERATED_AT_ENV];
  if (selectionFile) process.env[PAGE_SELECTION_ENV] = selectionFile;
  else delete process.env[PAGE_SELECTION_ENV];
  onPageRendered(onPage);
  const global = globalThis as { [GATE]?: () => Promise<void> };
  if (gate) global[GATE] = async () => void Object.assign(process.env, await gate());
  try {
    const { build } = await import('astro');
    await build({ root: ROOT, logLevel: 'warn' });
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw err;
  } finally {
    delete global[GATE];
    currentStaging = undefined;
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

/**
 * A new hand-off file for a render process (its selection, its models): in a folder of its own in the
 * temporary folder, which mkdtemp makes for this user alone (0700), created exclusively (it cannot be a file
 * or link another user placed there first) with mode 0600, so no other user of the machine reads or swaps
 * what a build hands over. The folder is named `kb-<kind>-<pid>-XXXXXX` for the leftovers' sweep;
 * removeHandOff takes it with the file.
 */
function handOffFile(kind: 'selection' | 'models'): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), `kb-${kind}-${process.pid}-`)), `${kind}.json`);
}

/** Removes a hand-off file and its folder. */
const removeHandOff = (file: string | undefined): void => {
  if (file) fs.rmSync(path.dirname(file), { recursive: true, force: true });
};

function writeSelection(keys: readonly string[]): string {
  const file = handOffFile('selection');
  fs.writeFileSync(file, JSON.stringify(keys), { flag: 'wx', mode: 0o600 });
  return file;
}

/** A page model for the render process: its route, params and the model's JSON as fingerprinting made it. */
export type HandedModel = { route: string; params: Record<string, string>; json: string };

/** Page models a build has computed anyway (fingerprinting), for the render processes: then they load no snapshot. */
export interface HandedModels {
  site: PageModelsFile['site'];
  pages: Record<string, HandedModel>;
}

/**
 * The render process's PageModelsFile for these pages, written from the models' JSON as fingerprinting made
 * it (serialising the models again cost ~0.9 s at 100k videos: the indexes of concepts and essays and the tag
 * pages are MBs each), piece by piece, in ASCII (json-file.ts: the render process parses it faster).
 */
function writeModelsFile(models: HandedModels, keys: readonly string[]): string {
  const file = handOffFile('models');
  const pages = function* (): Generator<[string, Iterable<string>]> {
    for (const k of keys) {
      const m = models.pages[k];
      if (m) yield [k, objectPieces([['route', JSON.stringify(m.route)], ['params', JSON.stringify(m.params)], ['props', m.json]])];
    }
  };
  writeJsonPiecesFile(file, objectPieces([['site', JSON.stringify(models.site)], ['pages', objectPieces(pages())]]), 0o600, 'wx');
  return file;
}

/**
 * A render shard's process; `done` resolves with its staging folder. `pages.onPage` is called per page
 * rendered (set later for a render started early). `generatedAt` undefined: the "-" form, which is told
 * the time with its selection.
 */
function spawnShard(
  env: Record<string, string | undefined>,
  generatedAt: string | undefined,
  selection: string,
  pages: { onPage?: () => void },
): { child: ChildProcess; done: Promise<string> } {
  const child = spawn(process.execPath, [path.join(ROOT, 'src/lib/static-build/render-shard.ts'), selection, ...(generatedAt ? [generatedAt] : [])], {
    env: { ...env, KB_NODE_QUIET: '1', [RENDER_OWNER_ENV]: String(process.pid) } as NodeJS.ProcessEnv,
    stdio: [selection === '-' ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  const done = new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    /** Whether the line being read is, so far, dots only (the "STAGING" line's folder has dots too: .cache). */
    let dotsOnly = true;
    child.stdout!.on('data', (d: Buffer) => {
      const s = d.toString();
      // One "." per page rendered, on a line of dots; the last line names the folder, the shard's peak
      // memory, time and CPU time, and for the "-" form when it was ready and when it was asked (ms from its start).
      for (const c of s) {
        if (c === '\n') dotsOnly = true;
        else if (c !== '.') dotsOnly = false;
        else if (dotsOnly) pages.onPage?.();
      }
      out += s;
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const m = /STAGING (\S+) (\d+) (\d+) (\d+)(?: (\d+) (\d+))?\s*$/.exec(out);
      if (code !== 0 || !m) return reject(new Error(`a render shard failed (exit ${code}): ${err.trim().split('\n').slice(-5).join('\n')}`));
      renderStats.peakShardRssMb = Math.max(renderStats.peakShardRssMb, Number(m[2]));
      renderStats.slowestShardMs = Math.max(renderStats.slowestShardMs, Number(m[3]));
      renderStats.shardCpuMs += Number(m[4]);
      if (m[5]) [renderStats.readyMs, renderStats.askedMs] = [Number(m[5]), Number(m[6])];
      resolve(m[1]);
    });
  });
  return { child, done };
}

/** One shard in a child process; resolves with its staging folder. */
function renderShard(env: Record<string, string | undefined>, generatedAt: string, selectionFile: string, onPage?: () => void): Promise<string> {
  return spawnShard(env, generatedAt, selectionFile, { onPage }).done;
}

export interface EarlyRender {
  /**
   * Renders these pages (page keys) as of `generatedAt`, with these page models if given, calling `onPage`
   * per page. Resolves once the process has been told (a caller that then works synchronously for seconds
   * would otherwise hold the message back until it is done); `result` resolves with the staging folder.
   */
  go(keys: readonly string[], opts: { generatedAt: string; modelsFile?: string; onPage?: () => void }): Promise<void>;
  /** The staging folder of the pages `go` asked for. */
  readonly result: Promise<string>;
  /** Nothing to render after all: the process ends and leaves no folder behind (resolves once it has). */
  cancel(): Promise<void>;
}

/**
 * A render process started before the pages to render are known: Astro starts and bundles the site
 * (a few seconds, whatever the content's size) while the caller works out what changed (the incremental build), or while the jobs
 * before rebuild-site run (a pipeline chain), then renders the pages `go` names. The bundle depends on the
 * page code only; content and the build's time are read after `go`. One shard: startPages gives it the
 * first shard of a selection too large for one.
 */
export function startRender(env: Record<string, string | undefined>): EarlyRender {
  const pages: { onPage?: () => void } = {};
  const { child, done } = spawnShard(env, undefined, '-', pages);
  renderStats.lastPid = child.pid ?? 0;
  child.stdin!.on('error', () => {}); // a process that died fails `result`; writing to it must not throw here
  done.catch(() => {}); // a cancelled render fails; go() hands on a real failure
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let used = false;
  let selection: string | undefined;
  const result = done.finally(() => removeHandOff(selection));
  result.catch(() => {});
  return {
    result,
    async go(keys, opts) {
      if (used) throw new Error('startRender: go or cancel was called already');
      used = true;
      pages.onPage = opts.onPage;
      selection = writeSelection(keys);
      const vars = { [PAGE_SELECTION_ENV]: selection, [GENERATED_AT_ENV]: opts.generatedAt, ...(opts.modelsFile ? { [PAGE_MODELS_ENV]: opts.modelsFile } : {}) };
      // Flushed before the caller goes on; a process that died already fails `result` instead.
      await new Promise<void>((resolve) => child.stdin!.end(JSON.stringify(vars) + '\n', () => resolve()));
    },
    async cancel() {
      if (used) return;
      used = true;
      // The process reads the end of its input as "nothing to render": it removes its folder and exits.
      // Its folder (its first and only render's) is removed here too, in case it died before it could.
      child.stdin!.end();
      await exited;
      fs.rmSync(stagingFolder(process.pid, child.pid!, 1), { recursive: true, force: true });
    },
  };
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
    // else a file `into` has: the assets, which every shard writes
  }
}

/** What startPages takes besides the pages and their time. */
export interface RenderPagesOptions {
  /** Every page of the content (a full build): one render in this process needs no selection file. */
  all: boolean;
  onPage?: () => void;
  /** Render even one shard in a child process, so this one can work meanwhile. */
  inChild?: boolean;
  /** A render process started before the pages were known (startRender): it renders the first shard. */
  early?: EarlyRender | null;
  /** The pages' models (covering every key): each render process is handed its pages' in a file and loads no snapshot. */
  models?: HandedModels | null;
}

/**
 * Renders the pages named by `keys` (every page of the content for a full build), sharded across cores
 * when there are many, into one staging folder: `result`. With `early`, the process started early renders
 * the first shard (its Astro bundled the site while the caller loaded and compared). Resolves as soon as
 * every render process has been told its pages (a caller that then works synchronously for seconds would
 * otherwise hold the early render's message back). A render in this process (one shard, not `inChild`, no
 * `early`) runs as the caller awaits `result`.
 */
export async function startPages(
  env: Record<string, string | undefined>,
  generatedAt: string,
  keys: readonly string[],
  opts: RenderPagesOptions,
): Promise<{ result: Promise<string> }> {
  const shards = shardCount(keys.length, env);
  resetRenderStats(shards);
  // No closure below refers to `opts` or the models: the models (~75 MB at 10k videos) are only written
  // to files here, and must not live on while the render runs and the caller writes its documents.
  const { early, onPage } = opts;
  const parts: string[][] = Array.from({ length: shards }, () => []);
  keys.forEach((k, i) => parts[i % shards].push(k));
  /** Each part's models file, if models were given. */
  const modelsFiles = opts.models ? parts.map((part) => writeModelsFile(opts.models!, part)) : [];
  const withModels = (i: number) => (modelsFiles[i] ? { ...env, [PAGE_MODELS_ENV]: modelsFiles[i] } : env);
  if (shards === 1 && !opts.inChild && !early) {
    const selection = opts.all ? undefined : writeSelection(keys);
    const result = renderWithAstro(withModels(0), generatedAt, selection, onPage).finally(() => {
      for (const f of [selection, ...modelsFiles]) removeHandOff(f);
    });
    return { result };
  }
  /** The selection and models files written here (the early render writes its selection itself). */
  const files: string[] = [...modelsFiles];
  let told: Promise<void> = Promise.resolve();
  const renders = parts.map((part, i) => {
    if (i === 0 && early) {
      told = early.go(part, { generatedAt, modelsFile: modelsFiles[0], onPage });
      return told.then(() => early.result);
    }
    const selection = writeSelection(part);
    files.push(selection);
    return renderShard(withModels(i), generatedAt, selection, onPage);
  });
  const result = (async () => {
    const results = await Promise.allSettled(renders);
    for (const f of files) removeHandOff(f);
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
  })();
  result.catch(() => {}); // the caller awaits it; a failure before it does must not go unhandled
  await told;
  return { result };
}
