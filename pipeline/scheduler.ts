// The pipeline's scheduler: Bree runs each job in a worker thread on its cron schedule (UTC); a finished
// job's follow-ups run next in the same worker (a chain), unless they are running elsewhere. `npm start`
// runs it beside the server (unless PIPELINE=off), `npm run pipeline` alone. On a first start (no pipeline
// state in DATA_DIR yet) the derived jobs run once, so a fresh install shows the pipeline's proposals and
// a current index without waiting for the night. Changes to the content folder made by anyone (an editor's
// git pull, a file copied in, a deletion) and an admin's request (POST /api/admin/content-changed) run
// update-index and rebuild-site (runForChanges below).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Bree from 'bree';
import { JOBS, followUps } from './lib/jobs.ts';
import { statusPath } from './lib/status.ts';
import type { JobResult } from './lib/types.ts';
import { watchContent, type ContentWatcher } from './lib/watch.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** What a first start runs: the jobs derived from content/ alone (no network); their follow-ups chain. */
export const FIRST_START_JOBS = ['build-knowledge'] as const;

/**
 * Which job runs where. A worker runs its job and then, in the same thread, the follow-ups the scheduler
 * hands it (a chain: ingest-videos, summarise, update-index, rebuild-site), so the chained jobs share one
 * process's loaded snapshot and parse cache instead of each loading the corpus again (~7 s per job at
 * 100k videos). A follow-up that is already running (in its own worker or in another chain) is not run
 * twice: Bree would drop the run with a warning, and a second content change during build-index would
 * never reach the index. Such requests are remembered and coalesced into one more run when the running
 * one ends; that run sees every change.
 */
export class RunRequests {
  private readonly pending = new Set<string>();
  /** Jobs running inside another job's worker, with that worker's name. */
  private readonly chained = new Map<string, string>();
  private readonly isRunning: (job: string) => boolean;
  private readonly start: (job: string) => void;
  constructor(isRunning: (job: string) => boolean, start: (job: string) => void) {
    this.isRunning = isRunning;
    this.start = start;
  }
  private busy(job: string): boolean {
    return this.isRunning(job) || this.chained.has(job);
  }
  request(job: string): void {
    if (this.busy(job)) this.pending.add(job);
    else this.start(job);
  }
  /**
   * A worker Bree started (on its schedule or asked for) may run its own job unless a chain is running
   * that job now: then it ends at once, and the job runs once more when the chain's run of it ends. (The
   * job locks cannot tell: every worker thread has the scheduler's pid.)
   */
  mayStart(worker: string): boolean {
    if (!this.chained.has(worker)) return true;
    this.pending.add(worker);
    return false;
  }
  /**
   * The worker `worker` finished `job` (its own or a chained one), which calls for `wanted`: returns the
   * follow-up the worker runs next itself (the first one running nowhere), or null; the others are
   * requested. With `stop`, nothing more runs in this worker.
   */
  next(worker: string, job: string, wanted: readonly string[], stop = false): string | null {
    if (this.chained.get(job) === worker) {
      this.chained.delete(job);
      this.finished(job);
    }
    let here: string | null = null;
    for (const follow of wanted) {
      if (here === null && !stop && !this.busy(follow)) {
        here = follow;
        this.chained.set(follow, worker);
      } else this.request(follow);
    }
    return here;
  }
  /** Call when a worker has ended, normally or not: its job and any it ran for a chain are over. */
  ended(worker: string): void {
    for (const [job, by] of [...this.chained]) {
      if (by !== worker) continue;
      this.chained.delete(job);
      this.finished(job);
    }
    this.finished(worker);
  }
  private finished(job: string): void {
    if (this.pending.delete(job)) this.request(job);
  }
}

/**
 * A job's schedule: `PIPELINE_CRON_<JOB>` (e.g. PIPELINE_CRON_INGEST_VIDEOS) when set, `off` (or empty) for
 * none, else the job's default from pipeline/lib/jobs.ts. Null: the job runs only when chained or asked for.
 * @example scheduleOf('ingest-videos', { PIPELINE_CRON_INGEST_VIDEOS: 'off' }) // null
 */
export function scheduleOf(job: string, env: Record<string, string | undefined>): string | null {
  const set = env[`PIPELINE_CRON_${job.toUpperCase().replace(/-/g, '_')}`];
  if (set === undefined) return JOBS[job]?.cron ?? null;
  const cron = set.trim();
  return cron === '' || cron.toLowerCase() === 'off' ? null : cron;
}

export interface Scheduler {
  /** The jobs started now (the first-start ones, or PIPELINE_RUN_ON_START's). */
  readonly startedNow: readonly string[];
  /** The jobs that run on a schedule (none when every PIPELINE_CRON_<JOB> is off). */
  readonly scheduled: readonly string[];
  /** Stops the schedule and waits for running workers to end. */
  stop(): Promise<void>;
}

export interface SchedulerOptions {
  dataDir: string;
  env?: Record<string, string | undefined>;
  log?: (line: string) => void;
  /** Watch this content folder (pipeline/lib/watch.ts) and run update-index and rebuild-site for its changes. */
  watch?: { contentDir: string; quietMs: number; scanSeconds: number };
  /**
   * Admins' requests to publish content changes (POST /api/admin/content-changed, kept in the database the
   * server and the pipeline share): `poll` answers how many arrived since the last call. Read every 2 s.
   */
  requests?: { poll(): Promise<number>; close?(): Promise<void> };
  /** Told of each job a worker finished (npm start reloads its server when rebuild-site is done, not a second later). */
  onJobDone?: (job: string, ok: boolean) => void;
  /**
   * Told when an index job (INDEX_JOBS) is handed out: it lists the content now (npm start's server loads it
   * too, unless its load began after `changedAt`, the newest change seen, in performance.now() time).
   */
  onIndexing?: (changedAt: number) => void;
  /**
   * Told when the watched content folder starts changing while no job runs: update-index will run once the
   * folder is quiet (npm start's server starts loading the content meanwhile, as update-index's worker does).
   */
  onChanging?: () => void;
}

/** How often the scheduler reads admins' requests (SchedulerOptions.requests). */
export const REQUEST_POLL_MS = 2000;

/** The jobs that list the content folder as they start: a change seen before one is handed to a worker is in what it indexes. */
export const INDEX_JOBS: ReadonlySet<string> = new Set(['update-index', 'build-index']);

/** Bree's jobs: every job of pipeline/lib/jobs.ts, each in its own worker, on its schedule (scheduleOf) or none. */
function breeJobs(env: Record<string, string | undefined>) {
  return Object.keys(JOBS).map((name) => {
    const cron = scheduleOf(name, env);
    // Without a schedule Bree would run a job once at start; follow-up jobs run only when chained.
    return { name, path: path.join(here, 'jobs', `${name}.ts`), worker: { workerData: { job: name } }, ...(cron ? { cron } : { timeout: false as const }) };
  });
}

/**
 * Whether content listed from `listedAt` on (process.hrtime, the same clock in every thread: update-index's
 * worker loads the content before it is told to start) is newer than the newest change seen (`changedAt`,
 * this thread's performance.now()): only then may the job index it without listing the folder again.
 */
function listedSince(listedAt: bigint, changedAt: number): boolean {
  return changedAt < performance.now() - Number(process.hrtime.bigint() - listedAt) / 1e6;
}

/**
 * Reads admins' requests (SchedulerOptions.requests) every REQUEST_POLL_MS, one read at a time (a tick
 * while the last read still waits for the database is skipped), and calls `onRequests` when some arrived.
 * A read that fails (the database restarting) is said once and tried again at the next tick. `stop` waits
 * for the read under way.
 */
function pollRequests(source: { poll(): Promise<number> }, log: (line: string) => void, onRequests: () => void): { stop(): Promise<void> } {
  let failing: string | null = null;
  let reading: Promise<void> | null = null;
  let stopped = false;
  const read = async () => {
    let n = 0;
    try {
      n = await source.poll();
      if (failing) log('pipeline: admins\' requests are read again');
      failing = null;
    } catch (err) {
      // The database restarting: said once, tried again at the next tick.
      const message = (err as Error).message;
      if (failing !== message) log(`pipeline: admins' requests could not be read (${message}); retrying`);
      failing = message;
    }
    if (n === 0 || stopped) return;
    log(`pipeline: ${n} request${n === 1 ? '' : 's'} to publish content changes (POST /api/admin/content-changed)`);
    onRequests();
  };
  const timer = setInterval(() => {
    reading ??= read().finally(() => {
      reading = null;
    });
  }, REQUEST_POLL_MS);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await reading;
    },
  };
}

/**
 * Watches the content folder for the scheduler (pipeline/lib/watch.ts): `changing` on the first change of a
 * batch while no job runs (update-index's worker starts then: the site's render process, Astro's start and
 * bundling, and the content's load, while the folder settles), `quiet` once the folder is quiet.
 */
function watchForRuns(
  watch: NonNullable<SchedulerOptions['watch']>,
  log: (line: string) => void,
  on: { running(): boolean; changing(): void; quiet(at: number): void },
): ContentWatcher {
  return watchContent({
    ...watch,
    log,
    mayScan: () => !on.running(),
    onChanging: () => {
      if (on.running()) return;
      log('pipeline: content changing: update-index, then rebuild-site, once the folder is quiet');
      on.changing();
    },
    onChange: on.quiet,
  });
}

/**
 * Starts the jobs named by `PIPELINE_RUN_ON_START=a,b` (unknown names are said and skipped), else the
 * first-start jobs when DATA_DIR holds no pipeline state. Returns the jobs started, and whether as a first start.
 */
async function runOnStart(
  bree: Bree,
  env: Record<string, string | undefined>,
  firstStart: boolean,
  log: (line: string) => void,
): Promise<{ started: string[]; asFirstStart: boolean }> {
  const requested = (env.PIPELINE_RUN_ON_START ?? '')
    .split(',')
    .map((j) => j.trim())
    .filter(Boolean);
  const startNow = requested.length ? requested : firstStart ? [...FIRST_START_JOBS] : [];
  const started: string[] = [];
  for (const job of startNow) {
    if (!JOBS[job]) {
      log(`pipeline: PIPELINE_RUN_ON_START names an unknown job "${job}"`);
      continue;
    }
    await bree.run(job);
    started.push(job);
  }
  return { started, asFirstStart: firstStart && !requested.length };
}

/** Bree's options but the message handler: the job files, their schedules, and Bree's log lines in ours. */
function breeOptions(env: Record<string, string | undefined>, log: (line: string) => void) {
  const say = (...a: unknown[]) => log(`pipeline: ${a.join(' ')}`);
  return { root: path.join(here, 'jobs'), defaultExtension: 'ts', acceptedExtensions: ['.ts'], logger: { info: () => {}, warn: say, error: say } as never, jobs: breeJobs(env) };
}

/**
 * Starts Bree with every job of pipeline/lib/jobs.ts. `PIPELINE_CRON_<JOB>` overrides a schedule (`off`: none);
 * `PIPELINE_RUN_ON_START=a,b` runs those jobs at once (else the first-start jobs when DATA_DIR holds no
 * pipeline state).
 * @example const scheduler = await startScheduler({ dataDir: config.dataDir }); … await scheduler.stop();
 */
export async function startScheduler(opts: SchedulerOptions): Promise<Scheduler> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((line: string) => console.log(line));
  const firstStart = !fs.existsSync(statusPath(opts.dataDir));
  const bree = new Bree({
    ...breeOptions(env, log),
    // A worker asks before its own job and reports each job it ran, and waits for the answer each time:
    // the job to run next itself, or none.
    workerMessageHandler: (data) => {
      const { name, message } = data as unknown as { name: string; message: { start: string } | { fresh: string; listedAt: bigint } | { job: string; result: JobResult & { ok: boolean } } };
      if (!message || typeof message !== 'object') return; // not ours: the worker protocol sends objects
      let next: string | null;
      if ('fresh' in message) {
        // Either way the job covers every change seen until now (else it lists the folder after this answer).
        coveredAt = performance.now();
        bree.workers.get(name)?.postMessage({ fresh: listedSince(message.listedAt, newestChange()) });
        return;
      }
      if ('start' in message) {
        next = !stopping && requests.mayStart(name) ? name : null;
        // While the content folder settles, an index job waits to be told (its render process starts meanwhile).
        if (next && INDEX_JOBS.has(next) && watcher?.settling) {
          held.add(name);
          return;
        }
      } else {
        const { job, result } = message;
        log(`pipeline: ${job} ${result.ok ? 'ok' : 'FAILED'} ${JSON.stringify(result.counts)}${job === name ? '' : ` (chained in the ${name} worker)`}`);
        opts.onJobDone?.(job, result.ok);
        next = requests.next(name, job, followUps(job, result), stopping);
      }
      answer(name, next);
    },
  });
  let stopping = false;
  /**
   * Tells a worker what to run next (its own job, a follow-up, or null). An index job lists the content after
   * this answer: every change seen until now is in what it indexes (and rebuild-site, after it, publishes
   * that), the pipeline's own writes earlier in the chain included.
   */
  const answer = (name: string, next: string | null) => {
    if (next && INDEX_JOBS.has(next)) {
      coveredAt = performance.now();
      opts.onIndexing?.(newestChange());
    }
    bree.workers.get(name)?.postMessage({ next });
  };
  const requests = new RunRequests(
    (job) => bree.workers.has(job),
    (job) => {
      if (!stopping) void bree.run(job).catch((err: Error) => log(`pipeline: could not start ${job}: ${err.message}`));
    },
  );
  bree.on('worker deleted', (name: string) => {
    requests.ended(name);
    runForChanges(); // a change seen during the run that the run's index did not cover
  });

  // Content changes: when one was seen after the last index job was handed out (so no run covers it), and
  // the folder is quiet and no job runs, update-index runs, and rebuild-site after it in the same worker.
  // One chain at a time: a change seen during a run waits for it to end, and then runs once, however many
  // changes came meanwhile (a git pull of 200 files is one run).
  let changedAt = 0;
  let coveredAt = -Infinity;
  const newestChange = () => Math.max(changedAt, watcher?.changedAt ?? 0); // the watcher's, or an admin request's
  /** Workers of index jobs waiting for the content folder to be quiet before they are told to start. */
  const held = new Set<string>();
  const runForChanges = () => {
    if (stopping || changedAt <= coveredAt || watcher?.settling || bree.workers.size > 0) return;
    log('pipeline: content changed: update-index, then rebuild-site');
    requests.request('update-index');
  };
  const watcher = opts.watch
    ? watchForRuns(opts.watch, log, {
        running: () => stopping || bree.workers.size > 0,
        changing: () => {
          requests.request('update-index'); // its worker starts now, and waits for the quiet to be told to run
          opts.onChanging?.();
        },
        quiet: (at) => {
          changedAt = Math.max(changedAt, at);
          for (const name of held) answer(name, stopping ? null : name);
          held.clear();
          runForChanges();
        },
      })
    : null;
  const polling = opts.requests
    ? pollRequests(opts.requests, log, () => {
        changedAt = performance.now();
        runForChanges();
      })
    : undefined;
  await bree.start();
  const { started, asFirstStart } = await runOnStart(bree, env, firstStart, log);
  log(`pipeline: scheduler running (${Object.keys(JOBS).join(', ')})${started.length ? `; started now: ${started.join(', ')}${asFirstStart ? ' (first start)' : ''}` : ''}`);
  const scheduled = Object.keys(JOBS).filter((job) => scheduleOf(job, env) !== null);
  if (watcher) log(`pipeline: watching ${opts.watch!.contentDir} for changes (events${opts.watch!.scanSeconds > 0 ? `, and a scan every ${opts.watch!.scanSeconds} s` : ''}; ${opts.watch!.quietMs} ms of quiet before a run)`);
  return {
    startedNow: started,
    scheduled,
    stop: async () => {
      stopping = true; // a running chain ends with its current job (Bree tells its worker to cancel too)
      for (const name of held) answer(name, null);
      held.clear();
      watcher?.close();
      await polling?.stop();
      await opts.requests?.close?.();
      return bree.stop();
    },
  };
}
