// The full static build: loads and validates content (failing with the file and field), renders every page
// with Astro into a fresh folder, writes every read-model document beside them, then dist/build-meta.json
// and dist/site-manifest.json, and swaps the folder in, so a running server or a CDN sync never sees a
// half-written dist/. The reference the incremental build (incremental.ts) must equal byte for byte.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type Config } from '../config.ts';
import { loadSnapshot } from '../content/load.ts';
import { contentCacheDir } from '../content/parse-cache.ts';
import { pageCount, pageFingerprints, type PagePrint } from '../pages/index.ts';
import { mergeInto, renderStats, startPages, startRender, type EarlyRender, type HandedModel } from './render.ts';
import { documentsFolder, swapFolder, sweepBuildLeftovers } from './leftovers.ts';
import { prerenderedResources } from '../resources.ts';
import { distFileFor } from '../representation.ts';
import { siteContext, type SiteContext } from '../site.ts';
import type { Snapshot } from '../content/model.ts';
import { chromeKey, listTree, rendererHash, SITE_MANIFEST_FORMAT, writeSiteManifest, type SiteManifest } from './manifest.ts';
import { InputKeys, pageGroup, siteInputs } from './inputs.ts';
import { writePiecesFile, type PieceSpans } from './pieces.ts';
import type { Piece, Representation } from '../representation.ts';

export interface BuildMeta {
  generated_at: string;
  base_url: string;
  content_hash: string;
  pipeline: { last_run_at: string | null; last_status: string };
  built_in_ms: number;
  files: number;
  /** How this dist/ came about: a full build, or an incremental one over the build of `previous`. */
  mode: 'full' | 'incremental';
  /** Incremental builds only: the generated_at of the build it changed, and the files it wrote and removed. */
  previous?: string;
  written?: string[];
  removed?: string[];
}

export interface BuildOptions {
  /** Where the build says what took how long (the pipeline's log; silent when absent). */
  log?: (m: string) => void;
  /** Told of each page rendered, with the number the build renders (for a progress bar). */
  onProgress?: (done: number, total: number) => void;
  /** The generation time to stamp (ISO 8601); now when absent. */
  generatedAt?: string;
  /** Render only these pages (page keys): the incremental build's selection file. */
  selectionFile?: string;
  /**
   * Render a small build's pages (one shard, at most IN_PROCESS_PAGES) in this process rather than in a
   * child: saves the child's start (~1.5 s of CPU: Node, Astro's modules) where that is most of the work.
   * Only for a process that ends after the build or builds many times (npm run build, the tests): Astro's
   * modules stay in its memory, which a server must not carry. An incremental build (buildSiteIncremental)
   * with it starts no render process early, and renders a selection of at most IN_PROCESS_PAGES here.
   */
  renderInProcess?: boolean;
  /**
   * A render process started with this same environment before this build (a pipeline chain starts one
   * while the jobs before rebuild-site run; the incremental build, before it finds it must build in full):
   * it renders the first shard. Without it, a build that renders in child processes starts one as it begins.
   */
  render?: EarlyRender;
  /**
   * Fail on content that does not validate (ContentError, naming every file and field), as `npm run build`
   * does. Without it the build publishes what is valid and, for a file that fails, its last published
   * version (LoadOptions.lenient): what the pipeline and `npm start` build.
   */
  strict?: boolean;
}

/** The most pages a build renders in its own process when allowed (renderInProcess). */
export const IN_PROCESS_PAGES = 1000;

/**
 * Up to this many pages, a full build hands the render processes the models it fingerprinted (~75 MB of
 * JSON at 10k videos' 21k pages), and they load no snapshot of their own; past it (200k pages at 100k
 * videos) the models would be GBs, and each render process loads the content itself.
 */
const FULL_MODELS_HANDOFF_MAX = 40_000;

/** Whether a build with these options renders `pages` pages in its own process (renderInProcess). */
export const rendersInProcess = (opts: BuildOptions, pages: number): boolean => opts.renderInProcess === true && pages <= IN_PROCESS_PAGES;

/**
 * Every anonymous read of src/lib/resources.ts as the file it is served from (see distFileFor): the read
 * model with default parameters, the same function the server calls for the dynamic twin. Astro renders
 * pages; these documents need no renderer, so the builds write them straight from the read model.
 */
export function* resourceFiles(
  snapshot: Snapshot,
  site: SiteContext,
  /** Filled with each file's rel as it is yielded (a caller that records them passes its own set: one set of ~570k paths at 100k videos, not two). */
  seen = new Set<string>(),
  /**
   * Asked of each document of an item's group: true keeps it (the incremental build: the group's inputs
   * are unchanged), and it is then only added to `seen`, not yielded, its body never made.
   */
  keep?: (group: string) => boolean,
): Generator<{ rel: string; group?: string; readonly body: Buffer; pieces?: () => Iterable<Piece> }> {
  const kept =
    keep &&
    ((group: string, path: string, type: Representation) => {
      const rel = distFileFor(path, type);
      if (seen.has(rel)) return true; // a path yielded before: skipped, as below
      if (!keep(group)) return false;
      seen.add(rel);
      return true;
    });
  for (const r of prerenderedResources(snapshot, site, kept)) {
    const rel = distFileFor(r.path, r.type);
    if (seen.has(rel)) continue;
    seen.add(rel);
    // The body is read (and a grouped document computed) only by a build that needs it.
    yield {
      rel,
      group: r.group,
      get body() {
        return Buffer.from(r.body, 'utf8');
      },
      // A document of hundreds of MB (/llms-full.txt): the builds write its pieces instead (pieces.ts).
      pieces: r.pieces,
    };
  }
}

/** What every build-meta.json says, whichever build wrote it. */
export function buildMetaOf(baseUrl: string, snapshot: Snapshot, site: SiteContext, started: number, fileCount: number): Omit<BuildMeta, 'mode'> {
  return {
    generated_at: site.generatedAt,
    base_url: baseUrl,
    content_hash: snapshot.contentHash,
    pipeline: site.pipeline,
    built_in_ms: Math.round(performance.now() - started),
    files: fileCount,
  };
}

/** The manifest's page records: each page's fingerprint and file (the prints themselves, no copy). */
export function pageRecords(prints: Map<string, PagePrint>): SiteManifest['pages'] {
  return Object.fromEntries(prints);
}

/** rename, or copy and delete when the two folders are on different disks. */
function moveDir(from: string, to: string): void {
  fs.rmSync(to, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(to), { recursive: true });
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    fs.cpSync(from, to, { recursive: true });
    fs.rmSync(from, { recursive: true, force: true });
  }
}

/** The full build: renders every page and writes every document into a folder of its own, then swaps it in as dist/. */
export async function buildSite(env: Record<string, string | undefined> = process.env, opts: BuildOptions = {}): Promise<BuildMeta> {
  const started = performance.now();
  const config = loadConfig(env);
  sweepBuildLeftovers(config.distDir, opts.log);
  const { snapshot, site, prints, rendering, t0 } = await startFullRender(env, config, opts);
  rendering.catch(() => {}); // awaited below; a failure while the documents are written must not go unhandled
  const secs = (t: number) => ((performance.now() - t) / 1000).toFixed(1);
  const folder = documentsFolder();
  const clientDir = path.join(folder, 'client');
  let rendered_: string | undefined;
  try {
    const { files, resources, keys, pieces } = writeDocuments(snapshot, site, prints, clientDir);
    opts.log?.(`build: ${resources.length} documents written in ${secs(t0)} s`);
    rendered_ = await rendering;
    const t1 = performance.now();
    const pagesDir = path.join(rendered_, 'client');
    for (const rel of listTree(pagesDir)) files.add(rel);
    mergeInto(clientDir, pagesDir);
    fs.renameSync(path.join(rendered_, 'server'), path.join(folder, 'server'));
    opts.log?.(`build: ${prints.size} pages rendered (${renderStats.shards} shard${renderStats.shards > 1 ? 's' : ''}) by ${secs(t0)} s, moved in ${secs(t1)} s; the content, models and fingerprints (and the models handed to the render) took ${((t0 - started) / 1000).toFixed(1)} s`);
    const staging = folder;
    const fileCount = files.size;
    writeSiteManifest(staging, {
      format: SITE_MANIFEST_FORMAT,
      renderer: rendererHash(),
      base_url: config.baseUrl,
      chrome: chromeKey(site.siteName, site.baseUrl),
      generated_at: site.generatedAt,
      content_hash: snapshot.contentHash,
      pages: pageRecords(prints),
      resources,
      file_count: fileCount,
      inputs_site: siteInputs(site),
      inputs: keys.record(),
      key_record: keys.keyRecord(),
      pieces,
    });
    const meta: BuildMeta = { ...buildMetaOf(config.baseUrl, snapshot, site, started, fileCount), mode: 'full' };
    fs.writeFileSync(path.join(staging, 'build-meta.json'), JSON.stringify(meta, null, 2) + '\n');
    swapIntoDist(config.distDir, staging);
    return meta;
  } finally {
    if (rendered_) fs.rmSync(rendered_, { recursive: true, force: true });
    else await rendering.then((dir) => fs.rmSync(dir, { recursive: true, force: true }), () => {});
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Loads the content, fingerprints every page and starts rendering them (in child processes, or here):
 * `rendering` is the folder the pages are rendered into, `t0` when this process handed them over. A build
 * that renders in child processes starts the first now: Astro starts and bundles the site (a few seconds,
 * whatever the content) while this one loads the content and fingerprints every page.
 */
async function startFullRender(
  env: Record<string, string | undefined>,
  config: Config,
  opts: BuildOptions,
): Promise<{ snapshot: Snapshot; site: SiteContext; prints: Map<string, PagePrint>; rendering: Promise<string>; t0: number }> {
  let early: EarlyRender | null = opts.render ?? (opts.renderInProcess ? null : startRender(env));
  let rendered = 0;
  try {
    const snapshot = loadSnapshot(config.contentDir, { cacheDir: contentCacheDir(config.dataDir), lenient: !opts.strict }); // strict: fails with the file and field
    const site = siteContext(config, opts.generatedAt ? new Date(opts.generatedAt) : undefined);
    const pages = pageCount(snapshot);
    // A large site built by `npm run build` (renderInProcess) renders in children too: the first starts now.
    if (!early && !rendersInProcess(opts, pages)) early = startRender(env);
    let models: Record<string, HandedModel> | null = early && pages <= FULL_MODELS_HANDOFF_MAX ? {} : null;
    const prints = pageFingerprints(snapshot, site, undefined, models ? (key, route, params, json) => void (models![key] = { route, params, json }) : undefined);
    const onPage = opts.onProgress && (() => opts.onProgress!(++rendered, prints.size));
    // Pages render in child processes while this one writes the documents into a folder of its own; the
    // pages (fewer files than the documents) then move in beside them.
    opts.onProgress?.(0, prints.size); // the pages' count starts with the render, not with its first page
    const { result: rendering } = await startPages(env, site.generatedAt, [...prints.keys()], { all: true, onPage, early, models: models && { site, pages: models } });
    models = null; // written to the render processes' files: not held while the documents are written
    return { snapshot, site, prints, rendering, t0: performance.now() };
  } catch (err) {
    await early?.cancel(); // unless it was told its pages (then startPages' result fails or ends it)
    throw err;
  }
}

/**
 * Writes every document of the read model under `clientDir`, and records each item's input key and where
 * its piece lies in the documents made of pieces, for the next incremental build. `files` is every file
 * dist/client will hold so far (a page's file may also be a document's: counted once).
 */
function writeDocuments(snapshot: Snapshot, site: SiteContext, prints: Map<string, PagePrint>, clientDir: string) {
  const files = new Set<string>();
  const resources: string[] = [];
  const dirs = new Set<string>();
  // Each item's input key, recorded for the next incremental build (src/lib/static-build/inputs.ts).
  const keys = new InputKeys(snapshot);
  /** Where each item's piece lies in the documents made of pieces, for the next incremental build. */
  const pieces: Record<string, PieceSpans> = {};
  for (const k of prints.keys()) {
    const g = pageGroup(k);
    if (g) keys.of(g);
  }
  for (const file of resourceFiles(snapshot, site)) {
    const { rel } = file;
    if (file.group) keys.of(file.group);
    const abs = path.join(clientDir, rel);
    const dir = path.dirname(abs);
    if (!dirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      dirs.add(dir);
    }
    // Moving the folder in keeps a file's inode and times, so the stat key of a pieces file holds in dist/ too.
    if (file.pieces) pieces[rel] = writePiecesFile(abs, file.pieces()).spans;
    else fs.writeFileSync(abs, file.body);
    files.add(rel);
    resources.push(rel);
  }
  return { files, resources, keys, pieces };
}

/** Puts the staged build in place of dist/: renamed in beside it, then swapped, so no reader sees half of one. */
function swapIntoDist(distDir: string, staging: string): void {
  // Named after this host and process: dist/ may be on a volume other hosts build on too (leftovers.ts).
  const incoming = swapFolder(distDir, 'new');
  const old = swapFolder(distDir, 'old');
  moveDir(staging, incoming);
  if (fs.existsSync(distDir)) fs.renameSync(distDir, old);
  fs.renameSync(incoming, distDir);
  fs.rmSync(old, { recursive: true, force: true });
}
