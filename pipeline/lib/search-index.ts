// build-index: the keyword index and the embeddings of every searchable item, into DATA_DIR/index/ with
// a manifest, written to a temporary folder and swapped in (src/lib/search does the writing).
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { contentCacheDir } from '../../src/lib/content/parse-cache.ts';
import { buildSearchIndex, resolveEmbedderSetting } from '../../src/lib/search/index.ts';
import type { JobContext, JobResult } from './types.ts';

export async function buildIndex(ctx: JobContext): Promise<JobResult> {
  const snap = loadSnapshot(ctx.contentDir, { cacheDir: contentCacheDir(ctx.dataDir) });
  const embedder = await resolveEmbedderSetting(ctx.config.embedding, ctx.log);
  const started = performance.now();
  const index = await buildSearchIndex(snap, { dataDir: ctx.dataDir, embedder, log: ctx.log });
  const ms = Math.round(performance.now() - started);
  ctx.log(`build-index: ${index.manifest.items} items with ${index.manifest.embedder.name} in ${ms} ms`);
  return { counts: { items: index.manifest.items, rows: index.manifest.rows, bytes: index.manifest.bytes, ms }, changed: false, errors: [] };
}
