// A chain: one job, then the follow-ups it calls for, one after another in the same process (a Bree worker,
// or the pipeline bench's job process). The jobs of a run share what this process loaded (the parse cache's
// base, summarise's listing of videos/) and hand on what the next one needs (ChainState). rebuild-site
// after summarise or update-index runs in a thread of its own, started before them, which runs update-index
// too, on the one snapshot both need (site-thread.ts); rebuild-site's turn in the chain is its go to publish. Before
// build-index, the site's render process is started instead. Each job still goes through runJob: its own
// lock, status entry and result.
import { JOBS, LEADS_TO_SITE, SITE_BESIDE } from './jobs.ts';
import { releaseLoaded } from './memory.ts';
import { runJob } from './run-job.ts';
import { startSiteThread } from './site-thread.ts';
import type { ChainState, JobContext, RunResult } from './types.ts';

/**
 * Runs `first`, then what `next` answers for each finished job (null: the chain ends). Before a job that
 * rebuild-site follows (LEADS_TO_SITE), rebuild-site's thread starts (SITE_BESIDE) or the site's render
 * process does, for rebuild-site to use (or the one `initial` holds: the worker starts it before it is
 * told to run); a chain that ends without rebuild-site stops them.
 * @example await runChain('ingest-videos', () => jobContext(), async (job, r) => followUps(job, r)[0] ?? null);
 */
export async function runChain(
  first: string,
  context: () => JobContext,
  next: (job: string, result: RunResult) => Promise<string | null>,
  /** What the chain starts with: the site's render process or rebuild-site's thread, content preloaded (ChainState). */
  initial: ChainState = {},
): Promise<void> {
  let job: string | null = first;
  const chain: ChainState = { ...initial };
  try {
    while (job) {
      if (!JOBS[job]) throw new Error(`pipeline: no job named "${job}"`);
      const ctx = { ...context(), chain };
      if (LEADS_TO_SITE.has(job) && !chain.render && !chain.site) {
        if (SITE_BESIDE.has(job) && ctx.config.pipelineSiteBeside) chain.site = startSiteThread(ctx);
        else chain.render = (await import('./site.ts')).prepareRender(ctx);
      }
      const site = job === 'rebuild-site' ? chain.site : undefined;
      chain.site = site ? undefined : chain.site;
      let result: RunResult;
      if (site) {
        const published = site.publish(); // the go first: the collection below holds this thread a moment
        releaseLoaded(chain); // what this thread loaded, given back for rebuild-site's thread to use (memory.ts)
        result = await published;
      } else result = await runJob(job, ctx, JOBS[job].run);
      job = await next(job, result);
    }
  } finally {
    await chain.site?.cancel();
    await chain.render?.render.cancel();
  }
}
