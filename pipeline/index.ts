// The content pipeline. `npm run pipeline` runs the scheduler (Bree, one worker per job, cron schedules
// from configuration); `npm run pipeline -- run <job> [--date YYYY-MM-DD]` runs one job once and exits
// with its status; `npm run pipeline -- status` prints the last run of each job.
import { parseArgs } from 'node:util';
import { JOBS } from './lib/jobs.ts';
import { scheduleOf, startScheduler } from './scheduler.ts';
import { runJob } from './lib/run-job.ts';
import { jobContext } from './lib/context.ts';
import { readStatus } from './lib/status.ts';
import { SERVED_AS } from '../src/lib/content/model.ts';
import { LockedError } from './lib/lock.ts';
import { ConfigError } from '../src/lib/config.ts';
import { databaseTarget, openDatabase, pgOptions } from '../src/lib/data/db/index.ts';
import { contentRequests } from './lib/content-requests.ts';

const HELP = `usage: npm run pipeline [-- run <job> [--date YYYY-MM-DD] | status | --help]

  (no command)   run the scheduler: every job on its schedule, follow-ups chained, content changes published
                 (npm start runs it too)
  run <job>      run one job once and exit with its status (0 ok, 1 failed, 3 already running)
  status         print each job's last run, and the content files that failed validation

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
  // The newest check of the whole content: every file that failed validation, with why and what is served.
  const check = status.content;
  if (check) {
    rows.push(
      check.invalid.length === 0
        ? `content: every file valid (checked by ${check.job} at ${check.checked_at})`
        : `content: ${check.invalid.length} file${check.invalid.length === 1 ? '' : 's'} failed validation (checked by ${check.job} at ${check.checked_at}):`,
    );
    for (const f of check.invalid) rows.push(`  ${f.path}: ${f.reasons.join('; ')} (${SERVED_AS[f.served]})`);
  }
  console.log(rows.join('\n'));
}

async function daemon(): Promise<void> {
  const { config, dataDir, contentDir } = jobContext();
  // It watches the content folder and reads admins' requests until stopped. With watching off and no
  // schedule nothing keeps it alive: it ends when the runs started now have chained theirs.
  const stays = config.pipelineWatch.enabled || Object.keys(JOBS).some((job) => scheduleOf(job, process.env) !== null);
  // Admins' requests (POST /api/admin/content-changed on a server of this database) reach the scheduler
  // through the database: a connection of its own.
  const db = stays ? await openDatabase(databaseTarget(config), { ...pgOptions(config), applicationName: 'kb-pipeline' }) : null;
  const scheduler = await startScheduler({
    dataDir,
    watch: config.pipelineWatch.enabled ? { contentDir, quietMs: config.pipelineWatch.quietMs, scanSeconds: config.pipelineWatch.scanSeconds } : undefined,
    requests: db ? await contentRequests(db, dataDir, { close: () => db.close() }) : undefined,
  });
  if (!stays) console.log('pipeline: no job has a schedule (every PIPELINE_CRON_<JOB> is off) and PIPELINE_WATCH is off: the process ends when the jobs started now and their follow-ups are done');
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
