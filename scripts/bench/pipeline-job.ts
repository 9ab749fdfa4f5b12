// Pipeline jobs in a process of their own, for the pipeline bench (pipeline.ts): runs the job through
// runJob with this process's environment, then prints one JSON line with its result, its time and the peak
// memory and CPU time of this process and of the render shards it started. With --chain the job's follow-ups run next
// in this process, as they do in the scheduler's worker (pipeline/lib/chain.ts), one line each. Run by the
// bench, not by hand:
//   node scripts/bench/pipeline-job.ts <job> [date] [--chain]
import { parseArgs } from 'node:util';
import { JOBS, followUps } from '../../pipeline/lib/jobs.ts';
import { runChain } from '../../pipeline/lib/chain.ts';
import { jobContext } from '../../pipeline/lib/context.ts';
import { renderStats, resetRenderStats } from '../../src/lib/static-build/render.ts';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { chain: { type: 'boolean' } } });
const [job, date] = positionals;
if (!job || !JOBS[job]) {
  console.error('usage: node scripts/bench/pipeline-job.ts <job> [date] [--chain]');
  process.exit(2);
}
let t = performance.now();
// The first job's CPU time counts from the process's start, as its wall time does (the bench measures that).
let cpu: NodeJS.CpuUsage = { user: 0, system: 0 };
resetRenderStats(0);
// The job's log lines (what took how long) go to stderr, which the bench shows.
await runChain(job, () => ({ ...jobContext(date ? { date } : {}), log: (m) => console.error(`  ${m}`) }), async (name, r) => {
  const ms = Math.round(performance.now() - t);
  const used = process.cpuUsage(cpu);
  const line = {
    job: name,
    ms,
    // CPU time of this process (every thread: the garbage collector's too) and of the render shards it started.
    cpu_ms: Math.round((used.user + used.system) / 1000),
    shard_cpu_ms: renderStats.shardCpuMs,
    ok: r.ok,
    error: r.error,
    counts: r.counts,
    rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    shards: renderStats.shards,
    shard_rss_mb: renderStats.peakShardRssMb,
  };
  process.stdout.write(`\nJOB ${JSON.stringify(line)}\n`);
  t = performance.now();
  cpu = process.cpuUsage();
  resetRenderStats(0);
  return values.chain ? (followUps(name, r)[0] ?? null) : null;
});
