// Running a job: take its lock, record the start, run it, record the outcome and counts (or the error in
// one clear line). Every job, run by the daemon or by hand, goes through here.
import { acquireLock } from './lock.ts';
import { recordRun, type JobRun } from './status.ts';
import { sweepTempFiles } from '../../src/lib/fs-atomic.ts';
import type { JobContext, JobResult } from './types.ts';

export async function runJob(name: string, ctx: JobContext, fn: (ctx: JobContext) => Promise<JobResult>): Promise<JobResult & { ok: boolean; error: string | null }> {
  const release = acquireLock(ctx.dataDir, name);
  const started = new Date();
  const base: JobRun = { started_at: started.toISOString(), finished_at: null, status: 'running', counts: {}, error: null, duration_ms: null };
  recordRun(ctx.dataDir, name, base);
  try {
    // A run that died may have left temporary files in content/ (never a half-written file: they are
    // renamed into place whole). Swept when its lock is taken over, not at every start: the walk over
    // content/ takes ~1 s at 100k videos.
    if (release.tookOver) sweepTempFiles(ctx.contentDir);
    const result = await fn(ctx);
    const failed = result.errors.length > 0;
    const finished = new Date().toISOString();
    recordRun(
      ctx.dataDir,
      name,
      {
        ...base,
        finished_at: finished,
        status: failed ? 'failed' : 'ok',
        counts: result.counts,
        error: failed ? result.errors.join('; ') : null,
        duration_ms: Date.now() - started.getTime(),
      },
      result.invalid && { checked_at: finished, job: name, invalid: result.invalid },
    );
    return { ...result, ok: !failed, error: failed ? result.errors.join('; ') : null };
  } catch (err) {
    const message = (err as Error).message.split('\n')[0];
    recordRun(ctx.dataDir, name, { ...base, finished_at: new Date().toISOString(), status: 'failed', error: message, duration_ms: Date.now() - started.getTime() });
    return { counts: {}, changed: false, errors: [message], ok: false, error: message };
  } finally {
    release();
  }
}
