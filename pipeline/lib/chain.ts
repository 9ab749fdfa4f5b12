// A chain: one job, then the follow-ups it calls for, one after another in the same process (a Bree worker,
// or the pipeline bench's job process). The jobs of a run share what this process loaded (the content
// snapshot, the parse cache's base), so only the first pays for it, and hand on what the next one needs
// (ChainState: the snapshot update-index indexed, which rebuild-site publishes). Each job still goes
// through runJob: its own lock, status entry and result.
import { JOBS } from './jobs.ts';
import { runJob } from './run-job.ts';
import type { ChainState, JobContext, JobResult } from './types.ts';

export type RunResult = JobResult & { ok: boolean; error: string | null };

/**
 * Runs `first`, then what `next` answers for each finished job (null: the chain ends).
 * @example await runChain('ingest-videos', () => jobContext(), async (job, r) => followUps(job, r)[0] ?? null);
 */
export async function runChain(first: string, context: () => JobContext, next: (job: string, result: RunResult) => Promise<string | null>): Promise<void> {
  let job: string | null = first;
  const chain: ChainState = {};
  while (job) {
    if (!JOBS[job]) throw new Error(`pipeline: no job named "${job}"`);
    const result = await runJob(job, { ...context(), chain }, JOBS[job].run);
    job = await next(job, result);
  }
}
