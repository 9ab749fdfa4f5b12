// The content pipeline. `npm run pipeline` runs the scheduler (Bree, one worker per job, cron schedules
// from configuration); `npm run pipeline -- run <job> [--date YYYY-MM-DD]` runs one job once and exits
// with its status; `npm run pipeline -- status` prints the last run of each job.
import { parseArgs } from 'node:util';
import { JOBS } from './lib/jobs.ts';
import { startScheduler } from './scheduler.ts';
import { runJob } from './lib/run-job.ts';
import { jobContext } from './lib/context.ts';
import { readStatus } from './lib/status.ts';
import { LockedError } from './lib/lock.ts';
import { ConfigError } from '../src/lib/config.ts';

const HELP = `usage: npm run pipeline [-- run <job> [--date YYYY-MM-DD] | status | --help]

  (no command)   run the scheduler: every job on its schedule, follow-ups chained (npm start runs it too)
  run <job>      run one job once and exit with its status (0 ok, 1 failed, 3 already running)
  status         print each job's last run

jobs:
${Object.entries(JOBS)
  .map(([name, spec]) => `  ${name.padEnd(16)} ${(spec.cron ?? 'after another job').padEnd(18)} ${spec.description}`)
  .join('\n')}`;

function usage(): never {
  console.error(HELP);
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
    if (!r) return `${job.padEnd(14)} never run`;
    const took = r.duration_ms !== null ? `${(r.duration_ms / 1000).toFixed(1)} s` : r.status === 'running' ? `running for ${Math.round((Date.now() - Date.parse(r.started_at)) / 1000)} s` : '';
    return `${job.padEnd(14)} ${r.status.padEnd(7)} ${r.finished_at ?? r.started_at}  ${took.padEnd(9)} ${JSON.stringify(r.counts)}${r.error ? `  error: ${r.error}` : ''}`;
  });
  console.log(rows.join('\n'));
}

async function daemon(): Promise<void> {
  const scheduler = await startScheduler({ dataDir: jobContext().dataDir });
  // With no schedule nothing keeps the process alive: it ends when the runs started now have chained theirs.
  if (!scheduler.scheduled.length) console.log('pipeline: no job has a schedule (every PIPELINE_CRON_<JOB> is off): the process ends when the jobs started now and their follow-ups are done');
  else console.log('pipeline: Ctrl-C to stop');
  const stop = async () => {
    await scheduler.stop();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

process.on('uncaughtException', (err) => {
  // A bad setting is the operator's to fix: one line naming it, not a stack trace.
  if (!(err instanceof ConfigError)) throw err;
  console.error(`pipeline: ${err.message}`);
  process.exit(1);
});

const { positionals, values } = parseArgs({ allowPositionals: true, options: { date: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
const [command, job] = positionals;
if (values.help) {
  console.log(HELP);
} else if (command === 'run') {
  if (!job) usage();
  process.exit(await runOnce(job, values.date ? { date: values.date } : {}));
} else if (command === 'status') {
  printStatus();
} else if (command === undefined) {
  await daemon();
} else {
  usage();
}
