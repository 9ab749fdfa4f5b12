// Builds as the server takes them: dist/build-meta.json names the build in dist/, the content state the
// dynamic routes read is loaded to match it, and a running server watches for the pipeline's next build,
// loading its content and search index while the site is built (npm start's pipeline says when) and
// swapping in the files the build wrote once it is done.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../src/lib/config.ts';
import { loadSnapshot } from '../src/lib/content/load.ts';
import type { Snapshot } from '../src/lib/content/model.ts';
import { contentCacheDir } from '../src/lib/content/parse-cache.ts';
import { siteContext } from '../src/lib/site.ts';
import { openSearch, type SearchService } from '../src/lib/search/index.ts';
import { indexDir, readManifestAsync } from '../src/lib/search/manifest.ts';
import { loadStaticSite, patchStaticSite, type StaticSite } from './static/index.ts';
import type { ContentState } from './content/index.ts';
import { syncPublishedPosts } from './search/posts.ts';
import type { PostStore } from '../src/lib/data/posts/store.ts';

export interface BuildMeta {
  generated_at: string;
  base_url: string;
  content_hash: string;
  pipeline: { last_run_at: string | null; last_status: string };
  mode?: 'full' | 'incremental';
  /** Incremental builds: the build they changed and the files (under dist/client) written and removed. */
  previous?: string;
  written?: string[];
  removed?: string[];
}

/** What a new build replaces while the server runs: the content state, the prerendered files and search. */
export interface Live {
  content: ContentState;
  staticSite: StaticSite;
  search: SearchService;
}

const buildMetaFile = (distDir: string) => path.join(distDir, 'build-meta.json');

function parseBuildMeta(text: string): BuildMeta | null {
  try {
    return JSON.parse(text) as BuildMeta;
  } catch {
    return null;
  }
}

/** dist/build-meta.json, or null when there is none (or it is not JSON yet). At start-up; a running server uses readBuildMetaAsync. */
export function readBuildMeta(distDir: string): BuildMeta | null {
  let text: string;
  try {
    text = fs.readFileSync(buildMetaFile(distDir), 'utf8');
  } catch {
    return null;
  }
  return parseBuildMeta(text);
}

async function readBuildMetaAsync(distDir: string): Promise<BuildMeta | null> {
  const text = await fs.promises.readFile(buildMetaFile(distDir), 'utf8').catch(() => null);
  return text === null ? null : parseBuildMeta(text);
}

/**
 * The content state the dynamic routes read. When dist/ was built from this very content and origin (`meta`,
 * its build-meta.json), the build's generation time and pipeline status are reused, so a dynamic read equals
 * its prerendered file.
 */
export function loadContentState(config: Config, meta: BuildMeta | null, log: (m: string) => void = console.log): ContentState {
  return contentStateOf(config, meta, loadServedSnapshot(config, log), log);
}

/**
 * The content as the server serves it. Lenient: a file an editor got wrong is served at its last published
 * version (or left out), never a server that does not start or reload; the pipeline's status names it.
 */
function loadServedSnapshot(config: Config, log: (m: string) => void): Snapshot {
  const snapshot = loadSnapshot(config.contentDir, { cacheDir: contentCacheDir(config.dataDir), lenient: true });
  if (snapshot.invalid.length > 0) log(`server: ${snapshot.invalid.length} content file(s) failed validation and are served at their last valid version or left out (npm run pipeline -- status names them)`);
  return snapshot;
}

function contentStateOf(config: Config, meta: BuildMeta | null, snapshot: Snapshot, log: (m: string) => void): ContentState {
  const site = siteContext(config);
  if (meta && meta.content_hash === snapshot.contentHash && meta.base_url === config.baseUrl) {
    site.generatedAt = meta.generated_at;
    site.pipeline = meta.pipeline;
  } else if (meta || fs.existsSync(config.distDir)) {
    log('server: dist/ was built from other content or another BASE_URL; run `npm run build` (npm start does)');
  }
  return { snapshot, site };
}

/**
 * The pipeline's rebuild-site writes a new build-meta.json last, after a full build's swap or an
 * incremental build's file writes: reload the snapshot and the files (only those the incremental build
 * lists, when it built on the build this server holds), so the server never answers from a stale build.
 * A broken build, or one made for another origin, keeps the old.
 */
export function watchBuilds(config: Config, served: BuildMeta | null, log: (m: string) => void, live: Live, posts: PostStore, onSite: (site: StaticSite) => void) {
  const metaFile = buildMetaFile(config.distDir);
  const clientDir = path.join(config.distDir, 'client');
  let servedBuild = served?.generated_at ?? null;
  let reloading = Promise.resolve();
  /**
   * The next build's content, loaded as its index job lists the folder (prepareContent), and then with its
   * search index opened once that job is done (prepare); the reload of that build takes them, or drops them.
   */
  let preparedContent: Promise<Snapshot | null> | null = null;
  let prepared: Promise<{ snapshot: Snapshot; search: SearchService } | null> | null = null;
  const failed = (err: unknown) => {
    log(`server: the next build's content could not be prepared (${(err as Error).message.split('\n')[0]}); it is loaded with the build`);
    return null;
  };
  /** When the load of preparedContent began (performance.now()): it holds every change seen before then. */
  let contentLoadedAt = -Infinity;
  const prepareContent = (changedAt: number) => {
    if (preparedContent && contentLoadedAt > changedAt) return; // loaded since the newest change (as the folder settled)
    contentLoadedAt = performance.now();
    preparedContent = Promise.resolve()
      .then(() => loadServedSnapshot(config, log))
      .catch(failed);
  };
  const prepare = () => {
    const early = preparedContent;
    preparedContent = null;
    prepared = (async () => {
      // The snapshot of what the index was built from: the one loaded early if the content did not move
      // since, else loaded now; none when it moved after the index too (the reload loads what its build needs).
      const indexed = (await readManifestAsync(indexDir(config.dataDir)))?.content_hash ?? null;
      let snapshot = await early;
      if (snapshot?.contentHash !== indexed) snapshot = loadServedSnapshot(config, log);
      if (snapshot.contentHash !== indexed) return null;
      return { snapshot, search: await openSearch(config, snapshot, log, live.search) };
    })().catch(failed);
  };
  // Requests are answered throughout: the files are read asynchronously (the content snapshot is not yet).
  const reload = async () => {
    const meta = await readBuildMetaAsync(config.distDir);
    if (!meta || meta.generated_at === servedBuild) return;
    if (meta.base_url !== config.baseUrl) {
      log(`server: ignoring a build made for ${meta.base_url} (this server is ${config.baseUrl})`);
      return;
    }
    // What prepare loaded, when it is this build's content (a change since made another build).
    const ready = await prepared;
    prepared = null;
    const taken = ready && ready.snapshot.contentHash === meta.content_hash ? ready : null;
    const nextContent = contentStateOf(config, meta, taken?.snapshot ?? loadServedSnapshot(config, log), log);
    const patch = meta.mode === 'incremental' && meta.previous === servedBuild && meta.written && meta.removed;
    const nextSite = patch ? await patchStaticSite(live.staticSite, clientDir, meta.written!, meta.removed!) : await loadStaticSite(clientDir);
    const nextSearch = taken?.search ?? (await openSearch(config, nextContent.snapshot, log, live.search));
    await syncPublishedPosts(nextSearch, posts);
    live.content = nextContent;
    live.staticSite = nextSite;
    live.search = nextSearch;
    servedBuild = meta.generated_at;
    // Posts published while the new index opened went to the old service: sync again (safe twice).
    await syncPublishedPosts(nextSearch, posts);
    onSite(nextSite);
    log(patch ? `server: applied an incremental build (${meta.written!.length} files written, ${meta.removed!.length} removed)` : `server: reloaded a new build (${nextSite.fileCount} files)`);
  };
  // One reload at a time, in order: an incremental build patches the site the previous reload made.
  const reloadInOrder = () => {
    reloading = reloading.then(reload).catch((err) => {
      log(`server: a new build could not be loaded, keeping the previous one: ${(err as Error).message.split('\n')[0]}`);
    });
  };
  const onBuild = (cur: fs.Stats, prev: fs.Stats) => {
    if (cur.mtimeMs === prev.mtimeMs || cur.mtimeMs === 0) return;
    reloadInOrder();
  };
  fs.watchFile(metaFile, { interval: 1000 }, onBuild);
  return {
    reload: reloadInOrder,
    /** Loads the content now, unless a load under way or done began after `changedAt` (performance.now()). */
    prepareContent: (changedAt = Infinity) => {
      reloading = reloading.then(() => prepareContent(changedAt));
    },
    prepare: () => {
      reloading = reloading.then(prepare);
    },
    drop: () => {
      reloading = reloading.then(() => {
        prepared = preparedContent = null;
      });
    },
    stop: () => fs.unwatchFile(metaFile, onBuild),
  };
}
