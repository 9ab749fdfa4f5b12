// One pipeline job in a process of its own, for the pipeline bench (pipeline.ts): runs the job through
// runJob with this process's environment, then prints one JSON line with its result, its time and the peak
// memory of this process and of the render shards it started. Run by the bench, not by hand:
//   node scripts/bench/pipeline-job.ts <job> [date]
import { JOBS } from '../../pipeline/lib/jobs.ts';
import { runJob } from '../../pipeline/lib/run-job.ts';
import { jobContext } from '../../pipeline/lib/context.ts';
import { renderStats } from '../../src/lib/static-build/render.ts';

const [job, date] = process.argv.slice(2);
if (!job || !JOBS[job]) {
  console.error('usage: node scripts/bench/pipeline-job.ts <job> [date]');
  process.exit(2);
}
renderStats.shards = 0;
const t = performance.now();
// The job's log lines (what took how long) go to stderr, which the bench shows.
const r = await runJob(job, { ...jobContext(date ? { date } : {}), log: (m) => console.error(`  ${m}`) }, JOBS[job].run);
const ms = Math.round(performance.now() - t);
const line = { job, ms, ok: r.ok, error: r.error, counts: r.counts, rss_mb: Math.round(process.resourceUsage().maxRSS / 1024), shards: renderStats.shards, shard_rss_mb: renderStats.peakShardRssMb };
process.stdout.write(`\nJOB ${JSON.stringify(line)}\n`);
