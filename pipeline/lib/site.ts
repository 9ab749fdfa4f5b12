// rebuild-site: the incremental static build (src/lib/static-build/incremental.ts) rewrites only the files
// whose bytes change, atomically, and falls back to the full build (a fresh folder swapped in) when it must.
// A running server notices the new build-meta.json and reloads exactly the files it lists.
import { buildSiteIncremental } from '../../src/lib/static-build/incremental.ts';
import { progress, type Progress } from './progress.ts';
import type { JobContext, JobResult } from './types.ts';

export async function rebuildSite(ctx: JobContext): Promise<JobResult> {
  const env: Record<string, string | undefined> = {
    ...ctx.env,
    CONTENT_DIR: ctx.contentDir,
    DATA_DIR: ctx.dataDir,
    DIST_DIR: ctx.config.distDir,
    BASE_URL: ctx.config.baseUrl,
  };
  let bar: Progress | undefined;
  // In a chain after update-index: the snapshot it indexed (ChainState), not content/ walked again.
  const indexed = ctx.chain?.indexed;
  const meta = await buildSiteIncremental(env, {
    snapshot: indexed && indexed.contentDir === ctx.contentDir ? indexed.snapshot : undefined,
    log: ctx.log,
    onProgress: (done, total) => (bar ??= progress('rebuild-site (pages)', total)).tick(),
  });
  bar?.done();
  const seconds = (meta.built_in_ms / 1000).toFixed(1);
  if (meta.mode === 'full') ctx.log(`rebuild-site: full build, ${meta.files} files in ${seconds} s`);
  else ctx.log(`rebuild-site: ${meta.written!.length} files written, ${meta.removed!.length} removed, ${meta.pages_rendered} pages rendered, in ${seconds} s`);
  return {
    counts: {
      files: meta.files,
      written: meta.mode === 'full' ? meta.files : meta.written!.length,
      removed: meta.removed?.length ?? 0,
      pages_rendered: meta.mode === 'full' ? -1 : meta.pages_rendered,
      full: meta.mode === 'full' ? 1 : 0,
      ms: meta.built_in_ms,
    },
    changed: false,
    errors: [],
  };
}
