// A chain: one job, then the follow-ups it calls for, one after another in the same process (a Bree worker,
// or the pipeline bench's job process). The jobs of a run share what this process loaded (the content
// snapshot, the parse cache's base), so only the first pays for it, and hand on what the next one needs
// (ChainState: the snapshot update-index indexed, which rebuild-site publishes; the site's render process,
// started before the jobs that lead to rebuild-site). Each job still goes through runJob: its own lock,
// status entry and result.
import { JOBS, LEADS_TO_SITE } from './jobs.ts';
import { runJob } from './run-job.ts';
import type { ChainState, JobContext, JobResult } from './types.ts';

export type RunResult = JobResult & { ok: boolean; error: string | null };

/**
 * Runs `first`, then what `next` answers for each finished job (null: the chain ends). Before a job that
 * rebuild-site follows (LEADS_TO_SITE), the site's render process starts, for rebuild-site to use (or the
 * one `initial` holds: the worker starts it before it is told to run); a chain that ends
 * without rebuild-site stops it.
 * @example await runChain('ingest-videos', () => jobContext(), async (job, r) => followUps(job, r)[0] ?? null);
 */
export async function runChain(
  first: string,
  context: () => JobContext,
  next: (job: string, result: RunResult) => Promise<string | null>,
  /** What the chain starts with: the site's render process, content preloaded (ChainState). */
  initial: ChainState = {},
): Promise<void> {
  let job: string | null = first;
  const chain: ChainState = { ...initial };
  try {
    while (job) {
      if (!JOBS[job]) throw new Error(`pipeline: no job named "${job}"`);
      const ctx = { ...context(), chain };
      if (LEADS_TO_SITE.has(job) && !chain.render) chain.render = (await import('./site.ts')).prepareRender(ctx);
      const result = await runJob(job, ctx, JOBS[job].run);
      job = await next(job, result);
    }
  } finally {
    await chain.render?.render.cancel();
  }
}
