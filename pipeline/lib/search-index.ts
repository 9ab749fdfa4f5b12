// build-index: the full search index (keyword index, the builtin embedder's retrained basis, every item's
// vectors) into DATA_DIR/index/, written to a temporary folder and swapped in; nightly, and whenever the
// incremental update finds its delta too large. update-index: after content changes, only the new, changed
// and deleted items, as a delta over that base (src/lib/search/delta.ts).
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { contentCacheDir } from '../../src/lib/content/parse-cache.ts';
import { buildSearchIndex, resolveEmbedderSetting } from '../../src/lib/search/index.ts';
import { updateSearchIndex } from '../../src/lib/search/delta.ts';
import { progressReport } from './progress.ts';
import { SERVED_AS, type InvalidFile, type Snapshot } from '../../src/lib/content/model.ts';
import type { JobContext, JobResult } from './types.ts';

/**
 * The content files the load found invalid, each in one line of the job's log: what the editor fixes, and
 * what is served meanwhile. They go to the status file (`npm run pipeline -- status`) with the result.
 */
export function reportInvalid(ctx: JobContext, job: string, invalid: readonly InvalidFile[]): void {
  for (const f of invalid) {
    ctx.log(`${job}: ${f.path} fails validation (${f.reasons.join('; ')}): ${SERVED_AS[f.served]}`);
  }
}

export async function buildIndex(ctx: JobContext): Promise<JobResult> {
  const snap = loadSnapshot(ctx.contentDir, { cacheDir: contentCacheDir(ctx.dataDir), lenient: true });
  reportInvalid(ctx, 'build-index', snap.invalid);
  const embedder = await resolveEmbedderSetting(ctx.config.embedding, ctx.log);
  const started = performance.now();
  const bar = progressReport('build-index (embedding)');
  const index = await buildSearchIndex(snap, { dataDir: ctx.dataDir, embedder, log: ctx.log, onProgress: bar.onProgress });
  bar.finish();
  const ms = Math.round(performance.now() - started);
  ctx.log(`build-index: ${index.manifest.items} items with ${index.manifest.embedder.name} in ${ms} ms`);
  return { counts: { items: index.manifest.items, rows: index.manifest.rows, bytes: index.manifest.bytes, invalid: snap.invalid.length, ms }, changed: false, errors: [], invalid: snap.invalid };
}

export async function updateIndex(ctx: JobContext): Promise<JobResult> {
  // In a chain after summarise: the video files as it listed them and wrote them (ChainState.videos), once.
  const videos = ctx.chain?.videos;
  const preloaded = ctx.chain?.preloaded;
  if (ctx.chain) ctx.chain.videos = ctx.chain.preloaded = undefined;
  // rebuild-site's thread, beside this one in a chain: it loads content/ once for both and runs this job there.
  const site = ctx.chain?.site;
  if (site) return site.index(videos);
  const snap =
    preloaded && preloaded.contentDir === ctx.contentDir ? preloaded.snapshot : loadSnapshot(ctx.contentDir, { cacheDir: contentCacheDir(ctx.dataDir), videos, lenient: true });
  if (ctx.chain) ctx.chain.indexed = { contentDir: ctx.contentDir, snapshot: snap }; // for rebuild-site, next in this thread
  return indexSnapshot(ctx, snap);
}

/** update-index's work once its content is loaded: the files that fail validation reported, the index brought up to `snap`. */
export async function indexSnapshot(ctx: JobContext, snap: Snapshot): Promise<JobResult> {
  reportInvalid(ctx, 'update-index', snap.invalid);
  const embedder = await resolveEmbedderSetting(ctx.config.embedding, ctx.log);
  const bar = progressReport('update-index (embedding)');
  const r = await updateSearchIndex(snap, { dataDir: ctx.dataDir, embedder, log: ctx.log, now: ctx.now, onProgress: bar.onProgress });
  bar.finish();
  ctx.log(`update-index: ${r.mode}${r.reason ? ` (${r.reason})` : ''}, ${r.manifest.items} items, ${r.added} new or changed, ${r.removed} removed, in ${r.ms} ms`);
  return { counts: { items: r.manifest.items, added: r.added, removed: r.removed, full: r.mode === 'full' ? 1 : 0, invalid: snap.invalid.length, ms: r.ms }, changed: false, errors: [], invalid: snap.invalid };
}

/**
 * update-index's content, loaded before the job is told to start (its worker does this while the scheduler
 * waits for the folder to be quiet), with the moment its listing began on the process's monotonic clock
 * (process.hrtime, the same in every thread): the scheduler compares it with the newest change it saw.
 * The load also warms this thread's parse cache and kept snapshot, so a load after a later change is cheaper.
 */
export function preloadContent(ctx: JobContext): { contentDir: string; snapshot: Snapshot; listedAt: bigint } {
  const listedAt = process.hrtime.bigint();
  const snapshot = loadSnapshot(ctx.contentDir, { cacheDir: contentCacheDir(ctx.dataDir), lenient: true });
  return { contentDir: ctx.contentDir, snapshot, listedAt };
}
