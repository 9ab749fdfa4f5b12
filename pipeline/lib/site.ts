// rebuild-site: the incremental static build (src/lib/static-build/incremental.ts) rewrites only the files
// whose bytes change, atomically, and falls back to the full build (a fresh folder swapped in) when it must.
// A running server notices the new build-meta.json and reloads exactly the files it lists.
import { buildSiteIncremental } from '../../src/lib/static-build/incremental.ts';
import { startRender } from '../../src/lib/static-build/render.ts';
import { releaseParses } from './memory.ts';
import { progressReport } from './progress.ts';
import type { ChainState, JobContext, JobResult } from './types.ts';

/** The environment the site is built with, from the job's. */
function buildEnv(ctx: JobContext): Record<string, string | undefined> {
  return { ...ctx.env, CONTENT_DIR: ctx.contentDir, DATA_DIR: ctx.dataDir, DIST_DIR: ctx.config.distDir, BASE_URL: ctx.config.baseUrl };
}

/**
 * Starts the site's render process for a rebuild-site later in this chain (runChain calls it before the
 * jobs that lead there), so that Astro's start and bundling overlap those jobs.
 */
export function prepareRender(ctx: JobContext): NonNullable<ChainState['render']> {
  const env = buildEnv(ctx);
  return { env, render: startRender(env) };
}

export async function rebuildSite(ctx: JobContext): Promise<JobResult> {
  const env = buildEnv(ctx);
  const bar = progressReport('rebuild-site (pages)');
  // In a chain, in its thread (site-thread.ts): the content update-index loaded there, and the go to write;
  // and the render process the chain started, if it was started for this same build.
  const beside = ctx.chain?.beside;
  const indexed = ctx.chain?.indexed;
  const prepared = ctx.chain?.render;
  if (ctx.chain) ctx.chain.render = undefined;
  // Started with this build's environment: every variable it had is unchanged (libraries the jobs loaded
  // may have added their own since, e.g. onnxruntime's ORT_DISABLE_TELEMETRY; rendering reads none of those).
  const same = prepared && Object.entries(prepared.env).every(([k, v]) => env[k] === v);
  if (prepared && !same) await prepared.render.cancel();
  const meta = await buildSiteIncremental(env, {
    snapshot: indexed && indexed.contentDir === ctx.contentDir ? indexed.snapshot : undefined,
    loaded: beside?.loaded,
    // In its thread: the parse cache's base this thread read goes once the content is loaded (memory.ts).
    onLoaded: beside ? releaseParses : undefined,
    beforeWrites: beside?.beforeWrites,
    render: same ? prepared.render : undefined,
    log: ctx.log,
    onProgress: bar.onProgress,
  });
  bar.finish();
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
