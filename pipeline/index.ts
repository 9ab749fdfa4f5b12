// The content pipeline. `npm run pipeline` runs the scheduler (Bree, one worker per job, cron schedules
// from configuration); `npm run pipeline -- run <job> [--date YYYY-MM-DD]` runs one job once and exits
// with its status; `npm run pipeline -- status` prints the last run of each job.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Bree from 'bree';
import { JOBS, followUps } from './lib/jobs.ts';
import { runJob } from './lib/run-job.ts';
import { jobContext } from './lib/context.ts';
import { readStatus } from './lib/status.ts';
import { LockedError } from './lib/lock.ts';
import type { JobResult } from './lib/types.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

function usage(): never {
  console.error(`usage: npm run pipeline [-- run <job> [--date YYYY-MM-DD] | status]\njobs: ${Object.keys(JOBS).join(', ')}`);
  process.exit(2);
}

async function runOnce(job: string, options: Record<string, string>): Promise<number> {
  if (!JOBS[job]) usage();
  const ctx = jobContext(options);
  try {
    const r = await runJob(job, ctx, JOBS[job].run);
    if (!r.ok) {
      console.error(`${job}: FAILED: ${r.error}`);
      return 1;
    }
    console.log(`${job}: ok ${JSON.stringify(r.counts)}`);
    return 0;
  } catch (err) {
    if (err instanceof LockedError) {
      console.error(`${job}: ${err.message}`);
      return 3;
    }
    throw err;
  }
}

function printStatus(): void {
  const status = readStatus(jobContext().dataDir);
  const rows = Object.keys(JOBS).map((job) => {
    const r = status.jobs[job];
    return r ? `${job.padEnd(14)} ${r.status.padEnd(7)} ${r.finished_at ?? r.started_at}  ${JSON.stringify(r.counts)}${r.error ? `  error: ${r.error}` : ''}` : `${job.padEnd(14)} never run`;
  });
  console.log(rows.join('\n'));
}

async function daemon(): Promise<void> {
  const bree = new Bree({
    root: path.join(here, 'jobs'),
    defaultExtension: 'ts',
    acceptedExtensions: ['.ts'],
    logger: { info: () => {}, warn: console.warn, error: console.error } as never,
    jobs: Object.entries(JOBS).map(([name, spec]) => {
      const cron = process.env[`PIPELINE_CRON_${name.toUpperCase().replace(/-/g, '_')}`] ?? spec.cron;
      // Without a schedule Bree would run a job once at start; follow-up jobs run only when chained.
      return { name, path: path.join(here, 'jobs', `${name}.ts`), worker: { workerData: { job: name } }, ...(cron ? { cron } : { timeout: false as const }) };
    }),
    workerMessageHandler: (data) => {
      const { job, result } = (data as unknown as { message: { job: string; result: JobResult & { ok: boolean } } }).message;
      console.log(`pipeline: ${job} ${result.ok ? 'ok' : 'FAILED'} ${JSON.stringify(result.counts)}`);
      for (const next of followUps(job, result)) {
        void bree.run(next).catch((err: Error) => console.error(`pipeline: could not start ${next}: ${err.message}`));
      }
    },
  });
  await bree.start();
  console.log(`pipeline: scheduler running (${Object.keys(JOBS).join(', ')}); Ctrl-C to stop`);
  // PIPELINE_RUN_ON_START=ingest-videos,build-digest runs those at once (their follow-ups chain as usual).
  for (const job of (process.env.PIPELINE_RUN_ON_START ?? '').split(',').map((j) => j.trim()).filter(Boolean)) {
    if (!JOBS[job]) console.error(`pipeline: PIPELINE_RUN_ON_START names an unknown job "${job}"`);
    else await bree.run(job);
  }
  const stop = async () => {
    await bree.stop();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { date: { type: 'string' } } });
const [command, job] = positionals;
if (command === 'run') {
  if (!job) usage();
  process.exit(await runOnce(job, values.date ? { date: values.date } : {}));
} else if (command === 'status') {
  printStatus();
} else if (command === undefined) {
  await daemon();
} else {
  usage();
}
