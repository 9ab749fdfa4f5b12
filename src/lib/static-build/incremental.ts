// The incremental static build: after a pipeline run changed a few items, rewrite only the files whose
// bytes change. An item's own documents (a video's, concept's, essay's or digest's JSON, title card and
// Markdown twin) and page model are recomputed only when their input key moved (inputs.ts: the hashes of the files
// they read); every other read-model document is recomputed and compared with the file in dist/ (size,
// then bytes; /llms-full.txt copies its unchanged items' pieces from the previous file, pieces.ts); pages
// are re-rendered by Astro only when their model's fingerprint changed
// (src/lib/pages), through the same page files as the full build, by a render process started first so that
// Astro's start and bundling overlap the loading and comparing here (or, in a pipeline chain, the jobs
// before this one: `opts.render`). Every file is replaced atomically, then
// the manifest, then build-meta.json, which a running server watches: it reloads exactly the files listed
// there. Falls back to the full build (full.ts) when there is no usable manifest, the renderer code or the
// origin changed, or the change is so large that a full build is as cheap.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { loadSnapshot } from '../content/load.ts';
import type { Snapshot } from '../content/model.ts';
import { contentCacheDir } from '../content/parse-cache.ts';
import { stageFile, writeFileAtomic, writeFilesAtomic } from '../fs-atomic.ts';
import { pageFingerprints, type PagePrint } from '../pages/index.ts';
import { siteContext, type SiteContext } from '../site.ts';
import { buildMetaOf, buildSite, pageRecords, rendersInProcess, resourceFiles, type BuildMeta, type BuildOptions } from './full.ts';
import { renderStats, startPages, startRender, type EarlyRender, type HandedModel } from './render.ts';
import { chromeKey, listTree, readSiteManifest, rendererHash, SITE_MANIFEST, SITE_MANIFEST_DELTA, writeSiteManifest, type SiteManifest } from './manifest.ts';
import { InputKeys, pageGroup, siteInputs } from './inputs.ts';
import { writePieces, type PieceSpans } from './pieces.ts';
import { sweepBuildLeftovers } from './leftovers.ts';
import { statKey } from '../content/stat-keys.ts';
import type { Piece } from '../representation.ts';

/** The file a running server watches: written last by every build. */
const BUILD_META = 'build-meta.json';

/** Seconds since `t` (performance.now()), for the build's log lines. */
const secs = (t: number) => ((performance.now() - t) / 1000).toFixed(1);

/** Above this share of pages to re-render, one full build is cheaper than a selection build plus the copy. */
const FULL_BUILD_SHARE = 0.5;

/**
 * Up to this many pages to render, their models go to the render process in a file (it then loads no
 * snapshot); past it, the models would be a file of hundreds of MB and the render process builds them itself.
 */
const MODELS_HANDOFF_MAX = 5000;

export interface IncrementalResult extends BuildMeta {
  /** Why a full build ran instead, when it did. */
  fallback?: string;
  pages_rendered: number;
  /** Documents and page models kept from the previous build because their inputs did not change. */
  documents_kept: number;
  models_kept: number;
  /** Input keys computed; the others were taken as recorded, none of their inputs having changed. */
  keys_computed: number;
  /** Item pieces of /llms-full.txt copied from the previous file (their items unchanged) rather than made. */
  pieces_copied: number;
}

/** Another build changed dist/ while this one waited to write (buildSiteIncremental's beforeWrites). */
export class DistChangedMeanwhile extends Error {
  constructor() {
    super('rebuild-site: another build changed dist/ meanwhile');
  }
}

/** What tells one build of dist/ from the next: the stat keys of its build-meta.json and manifest files (each replaced whole by a build). */
function distStamp(distDir: string): string {
  return [BUILD_META, SITE_MANIFEST, SITE_MANIFEST_DELTA].map((f) => statKey(path.join(distDir, f))).join('|');
}

/** Removes a file of dist/ and the folders it leaves empty, up to (not including) root. Returns whether it was there. */
function removeFile(root: string, rel: string): boolean {
  const abs = path.join(root, rel);
  try {
    fs.unlinkSync(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  let dir = path.dirname(abs);
  while (dir.startsWith(root + path.sep)) {
    try {
      fs.rmdirSync(dir);
    } catch {
      break; // not empty
    }
    dir = path.dirname(dir);
  }
  return true;
}

/** How a file's bytes compare with `body`: absent, the same, or different (told by the size when it can). */
function compareWithFile(file: string, body: Buffer): 'absent' | 'same' | 'differs' {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st) return 'absent';
  if (st.size !== body.length) return 'differs';
  return fs.readFileSync(file).equals(body) ? 'same' : 'differs';
}

/** A document made of pieces, written beside its target and put in place with the other files. */
type Staged = { rel: string; file: ReturnType<typeof stageFile>; spans: Omit<PieceSpans, 'stat'> };

/**
 * The files of dist/client to write: each recomputed or rendered file whose bytes differ from dist/'s
 * (read back: ~850 small reads at 100k videos, where a record of every file's hash cost ~3 s a run to
 * read and write), and the number of files dist/client holds once they are written.
 */
class DistChanges {
  readonly writes = new Map<string, Buffer>();
  /** Files compared so far (a file new to dist/ is counted once). */
  readonly considered = new Set<string>();
  readonly clientDir: string;
  fileCount: number;
  constructor(clientDir: string, fileCount: number) {
    this.clientDir = clientDir;
    this.fileCount = fileCount;
  }
  /** Compares a file's new bytes with dist/'s: written when they differ. */
  consider(rel: string, body: Buffer): void {
    const now = compareWithFile(path.join(this.clientDir, rel), body);
    if (now === 'absent' && !this.considered.has(rel)) this.fileCount++;
    this.considered.add(rel);
    if (now === 'same') this.writes.delete(rel);
    else this.writes.set(rel, body);
  }
}

/**
 * The incremental build of dist/ from the previous one (see the top of this file). `opts.render`, a render
 * process started with this same `env`, renders the changed pages (their first shard), or a full build's if
 * one is due, or is cancelled when nothing is to be rendered. Without it one starts now, unless
 * `renderInProcess` is set: then none starts early, and a selection of at most IN_PROCESS_PAGES pages
 * renders in this process once it is known (a larger one in children).
 */
export async function buildSiteIncremental(
  env: Record<string, string | undefined> = process.env,
  opts: BuildOptions & {
    log?: (m: string) => void;
    /** The content to build from, when the caller has loaded it; else content/ is loaded. */
    snapshot?: Snapshot;
    /**
     * The content to build, loaded meanwhile by the caller (a pipeline chain: update-index's, in rebuild-site's
     * thread), awaited once the previous build's manifest is read; null: content/ is loaded here.
     */
    loaded?: Promise<Snapshot | null>;
    /** Called once content/ is loaded here (not given as `snapshot` or `loaded`): rebuild-site's thread gives back what only loading needed (pipeline/lib/memory.ts). */
    onLoaded?: () => void;
    /**
     * Awaited before anything in dist/ changes, once the pages are rendered and the documents made (a
     * pipeline chain: until update-index is done, so a reader never finds what search cannot); a
     * rejection abandons the build, leaving dist/ as it was. If another build changed dist/ meanwhile, this
     * one is abandoned too, with DistChangedMeanwhile (what it worked out is stale): the caller builds again.
     */
    beforeWrites?: () => Promise<void>;
  } = {},
): Promise<IncrementalResult> {
  const started = performance.now();
  const config = loadConfig(env);
  const clientDir = path.join(config.distDir, 'client');
  sweepBuildLeftovers(config.distDir, opts.log);
  const stamp = distStamp(config.distDir);
  const prev = readSiteManifest(config.distDir);
  /** A full build instead, which renders its first shard in the render process started early, if one was. */
  const full = async (reason: string, early: EarlyRender | null | undefined = opts.render) => {
    // Made at its turn only: a full build swaps in a new dist/ as it ends.
    if (opts.beforeWrites) await opts.beforeWrites();
    opts.log?.(`rebuild-site: full build (${reason})`);
    const meta = await buildSite(env, { ...opts, render: early ?? undefined });
    return { ...meta, fallback: reason, pages_rendered: -1, documents_kept: 0, models_kept: 0, keys_computed: -1, pieces_copied: 0 };
  };
  if (!prev || !fs.existsSync(clientDir)) return full('no previous build to update');
  if (prev.renderer !== rendererHash()) return full('the page code changed');
  if (prev.base_url !== config.baseUrl) return full('BASE_URL changed');

  const site = siteContext(config, opts.generatedAt ? new Date(opts.generatedAt) : undefined);
  // The render process starts now, unless the caller started it earlier: Astro bundles the site while this
  // one loads the content and works out which pages changed (at 100k videos both take ~5–8 s), then
  // renders those (startRender).
  let rendered = 0;
  let total = 0;
  const onPage = opts.onProgress && (() => opts.onProgress!(++rendered, total));
  const early: EarlyRender | null = opts.render ?? (opts.renderInProcess ? null : startRender(env));
  /** Documents made of pieces, written beside their targets, put in place with the other files. */
  const staged: Staged[] = [];
  try {
    const snapshot = await contentOf(config, opts, started);
    if (prev.chrome !== chromeKey(site.siteName, site.baseUrl)) return await full('the site name changed', early); // awaited: `early` is cancelled below once it returns

    // Each item's input key against the previous build's (none reusable under other site settings).
    const sameSite = prev.inputs_site === siteInputs(site);
    const keys = new InputKeys(snapshot, sameSite ? prev.inputs : undefined, sameSite ? prev.key_record : undefined);

    const tPrints = performance.now();
    const { prints, selected, models, modelsKept } = changedPages(snapshot, site, prev, keys);
    opts.log?.(`rebuild-site: ${prints.size} page models fingerprinted in ${secs(tPrints)} s (${modelsKept} kept: inputs unchanged; ${keys.computed} input keys computed)`);
    if (selected.length > prints.size * FULL_BUILD_SHARE && prints.size > 20) return await full(`${selected.length} of ${prints.size} pages changed`, early);
    const changes = new DistChanges(clientDir, prev.file_count ?? listTree(clientDir).length);

    // Pages whose model changed, rendered by Astro from the same page files as the full build, in a child
    // process (here, with renderInProcess and a small selection), while this one recomputes the documents.
    total = selected.length;
    if (total) opts.onProgress?.(0, total); // the pages' count starts with the render, not with its first page
    // A selection too large for one render process is sharded (startPages), the process started early
    // rendering the first shard; without one (renderInProcess), a small selection renders here. The render's
    // folder is removed whatever happens below; the models and selection files once it is done.
    let rendering: Promise<string> | null = null;
    if (selected.length) {
      const handed = models && { site, pages: models };
      ({ result: rendering } = await startPages(env, site.generatedAt, selected, { all: false, inChild: !rendersInProcess(opts, selected.length), onPage, early, models: handed }));
      rendering.catch(() => {});
    }
    const sharded = renderStats.shards > 1;

    const tDocs = performance.now();
    let docs: ReturnType<typeof recomputeDocuments>;
    try {
      docs = recomputeDocuments(snapshot, site, keys, sameSite ? prev.pieces : undefined, changes, staged);
    } catch (err) {
      if (rendering) await rendering.then((dir) => fs.rmSync(dir, { recursive: true, force: true }), () => {});
      throw err;
    }
    const { resources, documentsKept, piecesCopied } = docs;
    opts.log?.(
      `rebuild-site: ${resources.size - documentsKept} documents recomputed in ${secs(tDocs)} s (${documentsKept} kept: inputs unchanged; ${piecesCopied} item pieces copied), ${changes.writes.size + staged.length} differ`,
    );
    if (rendering) {
      const how = await takeRendered(rendering, selected.map((k) => prints.get(k)!.file), changes, sharded, !!opts.render);
      opts.log?.(`rebuild-site: ${selected.length} pages rendered by ${secs(tDocs)} s (${how})`);
    }

    if (opts.beforeWrites) {
      const tWait = performance.now();
      await opts.beforeWrites();
      if (distStamp(config.distDir) !== stamp) throw new DistChangedMeanwhile();
      opts.log?.(`rebuild-site: waited ${secs(tWait)} s for the go to write`);
    }
    const removed = goneFiles(prev, prints, resources);
    const tWrites = performance.now();
    const { pieces, written } = await putInPlace(changes, staged, removed);
    const manifest = nextManifest(prev, site, snapshot, prints, resources, keys, pieces, changes.fileCount);
    const tManifest = performance.now();
    writeSiteManifest(config.distDir, manifest, prev);
    opts.log?.(`rebuild-site: ${written.length} files written and ${removed.length} removed in ${((tManifest - tWrites) / 1000).toFixed(1)} s, the manifest in ${secs(tManifest)} s`);
    const meta: IncrementalResult = {
      ...buildMetaOf(config.baseUrl, snapshot, site, started, changes.fileCount),
      mode: 'incremental',
      previous: prev.generated_at,
      written: written.sort(),
      removed: removed.sort(),
      pages_rendered: selected.length,
      documents_kept: documentsKept,
      models_kept: modelsKept,
      keys_computed: keys.computed,
      pieces_copied: piecesCopied,
    };
    writeBuildMeta(config.distDir, meta);
    return meta;
  } finally {
    for (const s of staged) s.file.discard(); // none left once committed
    await early?.cancel(); // unless it was given pages to render
  }
}

/** The content to build: the caller's snapshot (given, or loaded meanwhile), or content/ loaded here. */
async function contentOf(
  config: ReturnType<typeof loadConfig>,
  opts: { snapshot?: Snapshot; loaded?: Promise<Snapshot | null>; onLoaded?: () => void; strict?: boolean; log?: (m: string) => void },
  started: number,
): Promise<Snapshot> {
  if (opts.snapshot) {
    opts.log?.(`rebuild-site: content handed on, the manifest read in ${secs(started)} s`);
    return opts.snapshot;
  }
  const tWait = performance.now();
  const ready = secs(started);
  const loaded = opts.loaded ? await opts.loaded : null;
  if (opts.loaded) opts.log?.(`rebuild-site: the manifest read by ${ready} s, the content ${loaded ? 'update-index loaded' : 'not loaded by update-index'} ${secs(tWait)} s later`);
  if (loaded) return loaded;
  const tLoad = performance.now();
  const snapshot = loadSnapshot(config.contentDir, { cacheDir: contentCacheDir(config.dataDir), lenient: !opts.strict });
  opts.log?.(`rebuild-site: content loaded in ${secs(opts.loaded ? tLoad : started)} s`);
  opts.onLoaded?.();
  return snapshot;
}

/**
 * Pages: which models changed, which pages are gone. A page whose inputs did not change keeps its record
 * (`modelsKept`); `selected` are the pages whose fingerprint or file differ from the previous build's, and
 * `models` their models to hand to the render, none past the hand-off's limit (the render then builds its
 * models, and memory stays flat). A page without params that did not change is not rendered either
 * (rendersPage).
 */
function changedPages(snapshot: Snapshot, site: SiteContext, prev: SiteManifest, keys: InputKeys) {
  let modelsKept = 0;
  let models: Record<string, HandedModel> | null = {};
  const selected: string[] = [];
  const prints = pageFingerprints(
    snapshot,
    site,
    (key, route) => {
      const group = pageGroup(key);
      // Asked first, whatever else holds: every item's key is recorded for the next build.
      const same = group !== null && keys.unchanged(group);
      const was = prev.pages[key];
      if (!same || !was) return undefined;
      modelsKept++;
      return was; // the record itself: the next manifest holds the same object, which its delta sees is unchanged at once
    },
    (key, route, params, json, print) => {
      const was = prev.pages[key];
      if (was?.fp === print.fp && was?.file === print.file) return;
      selected.push(key);
      if (models) models[key] = { route, params, json };
      if (selected.length > MODELS_HANDOFF_MAX) models = null;
    },
  );
  return { prints, selected, models, modelsKept };
}

/**
 * Documents of the read model: an item's own kept when its inputs did not change, the others recomputed;
 * compared with dist/'s (`changes`). A document made of items' pieces is written (not yet in place, in
 * `staged`) as it comes, copying the pieces of unchanged items from its file in dist/ while that is the
 * file the previous build wrote (`spansOf`, pieces.ts).
 */
function recomputeDocuments(snapshot: Snapshot, site: SiteContext, keys: InputKeys, spansOf: SiteManifest['pieces'] | undefined, changes: DistChanges, staged: Staged[]) {
  const resources = new Set<string>();
  let documentsKept = 0;
  let piecesCopied = 0;
  const stagePieces = (rel: string, pieces: Iterable<Piece>) => {
    const target = path.join(changes.clientDir, rel);
    const spans = spansOf?.[rel];
    let made: ReturnType<typeof writePieces> | undefined;
    const file = stageFile(target, (fd) => {
      made = writePieces(fd, pieces, spans && { file: target, spans, unchanged: (g) => keys.unchanged(g) });
    });
    staged.push({ rel, file, spans: made!.spans });
    piecesCopied += made!.copied;
  };
  // A document of a group whose key the previous build recorded as it is now was written by that build
  // (the same inputs under the same code and site settings yield the same documents), so it is in dist/:
  // kept, neither made nor yielded.
  const keep = (group: string) => {
    if (!keys.unchanged(group)) return false;
    documentsKept++;
    return true;
  };
  for (const file of resourceFiles(snapshot, site, resources, keep)) {
    if (file.pieces) stagePieces(file.rel, file.pieces());
    else changes.consider(file.rel, file.body);
  }
  return { resources, documentsKept, piecesCopied };
}

/**
 * Takes the rendered pages (`wanted`, their files), and whatever else the build emits that dist/ lacks (a
 * new hashed asset), into `changes`; removes the render's folder. Returns how the render went, for the log.
 */
async function takeRendered(rendering: Promise<string>, wantedFiles: string[], changes: DistChanges, sharded: boolean, startedBefore: boolean): Promise<string> {
  const { clientDir } = changes;
  let staging: string | undefined;
  try {
    staging = await rendering;
    const out = path.join(staging, 'client');
    const wanted = new Set(wantedFiles);
    for (const e of fs.readdirSync(out, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const rel = path.relative(out, path.join(e.parentPath, e.name)).split(path.sep).join('/');
      // The selected pages, and whatever else the build emits that dist/ lacks (a new hashed asset).
      if (wanted.has(rel) || !fs.existsSync(path.join(clientDir, rel))) changes.consider(rel, fs.readFileSync(path.join(out, rel)));
    }
    for (const rel of wanted) if (!changes.considered.has(rel)) throw new Error(`the incremental build did not render ${rel}`);
    const s = (ms: number) => (ms / 1000).toFixed(1);
    return sharded
      ? `${renderStats.shards} render processes, the slowest took ${s(renderStats.slowestShardMs)} s: start, bundle, pages`
      : `the render process${startedBefore ? ', started before this job,' : ''} bundled the site by ${s(renderStats.readyMs)} s, was asked at ${s(renderStats.askedMs)} s and done at ${s(renderStats.slowestShardMs)} s`;
  } finally {
    if (staging) fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** What is gone: pages no longer produced and documents the read model no longer yields. */
function goneFiles(prev: SiteManifest, prints: Map<string, PagePrint>, resources: ReadonlySet<string>): string[] {
  // Every page's file, made only when a file is found gone from where it was (most runs: none).
  let pageFiles: Set<string> | undefined;
  const isPage = (rel: string) => (pageFiles ??= new Set(Array.from(prints.values(), (p) => p.file))).has(rel);
  const removed: string[] = [];
  for (const k in prev.pages) {
    if (prints.has(k)) continue;
    const { file } = prev.pages[k];
    if (!resources.has(file) && !isPage(file)) removed.push(file);
  }
  for (const rel of prev.resources) if (!resources.has(rel) && !isPage(rel)) removed.push(rel);
  return removed;
}

/** Writes the files that differ and puts the staged documents in place, each atomically, then removes what is gone; the files written, and where the pieces of each staged document lie. */
async function putInPlace(changes: DistChanges, staged: readonly Staged[], removed: readonly string[]): Promise<{ pieces: Record<string, PieceSpans>; written: string[] }> {
  const { clientDir } = changes;
  await writeFilesAtomic([...changes.writes].map(([rel, body]) => [path.join(clientDir, rel), body]));
  const pieces: Record<string, PieceSpans> = {};
  for (const { rel, file, spans } of staged) {
    const target = path.join(clientDir, rel);
    if (!fs.existsSync(target)) changes.fileCount++;
    file.commit();
    pieces[rel] = { ...spans, stat: statKey(target)! };
  }
  const written = [...changes.writes.keys(), ...staged.map((s) => s.rel)];
  for (const rel of removed) {
    if (removeFile(clientDir, rel)) changes.fileCount--;
  }
  return { pieces, written };
}

/** The manifest of this build: the previous one's, with what this build changed. */
function nextManifest(
  prev: SiteManifest,
  site: SiteContext,
  snapshot: Snapshot,
  prints: Map<string, PagePrint>,
  resources: ReadonlySet<string>,
  keys: InputKeys,
  pieces: Record<string, PieceSpans>,
  fileCount: number,
): SiteManifest {
  return {
    ...prev,
    generated_at: site.generatedAt,
    content_hash: snapshot.contentHash,
    pages: pageRecords(prints),
    resources: [...resources],
    file_count: fileCount,
    inputs_site: siteInputs(site),
    inputs: keys.record(),
    key_record: keys.keyRecord(),
    pieces,
  };
}

/** Writes build-meta.json without the build's own figures, last: the server reloads when this file changes. */
function writeBuildMeta(distDir: string, meta: IncrementalResult): void {
  const { pages_rendered: _, documents_kept: _d, models_kept: _m, keys_computed: _k, pieces_copied: _p, ...published } = meta;
  writeFileAtomic(path.join(distDir, BUILD_META), JSON.stringify(published, null, 2) + '\n');
}
