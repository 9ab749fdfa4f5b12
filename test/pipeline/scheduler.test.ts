// The scheduler's bookkeeping under concurrency: follow-ups asked for while their job runs are kept and run
// once more afterwards (Bree drops them), and the status file keeps every job's entry when jobs in several
// worker threads record their runs at the same time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { RunRequests, scheduleOf } from '../../pipeline/scheduler.ts';
import { readStatus } from '../../pipeline/lib/status.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-scheduler-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('scheduleOf', () => {
  it('takes PIPELINE_CRON_<JOB> over the default, and off (or empty) for no schedule', () => {
    expect(scheduleOf('ingest-videos', {})).toBe('0 * * * *');
    expect(scheduleOf('ingest-videos', { PIPELINE_CRON_INGEST_VIDEOS: '*/30 * * * *' })).toBe('*/30 * * * *');
    expect(scheduleOf('ingest-videos', { PIPELINE_CRON_INGEST_VIDEOS: 'off' })).toBeNull();
    expect(scheduleOf('ingest-videos', { PIPELINE_CRON_INGEST_VIDEOS: ' OFF ' })).toBeNull();
    expect(scheduleOf('build-index', { PIPELINE_CRON_BUILD_INDEX: '' })).toBeNull();
    // A chained-only job gets a schedule when one is set, and keeps none otherwise.
    expect(scheduleOf('rebuild-site', {})).toBeNull();
    expect(scheduleOf('rebuild-site', { PIPELINE_CRON_REBUILD_SITE: '15 4 * * *' })).toBe('15 4 * * *');
  });
});

/** Bree's side of RunRequests: which workers run (by job name), and which the scheduler started. */
function setup() {
  const workers = new Set<string>();
  const started: string[] = [];
  const requests = new RunRequests(
    (job) => workers.has(job),
    (job) => {
      started.push(job);
      workers.add(job);
    },
  );
  const end = (worker: string) => {
    workers.delete(worker);
    requests.ended(worker);
  };
  return { workers, started, requests, end };
}

describe('RunRequests', () => {
  it('starts an idle job at once, and a running one once more after it ends (requests coalesced)', () => {
    const { started, requests, end } = setup();
    requests.request('build-index');
    expect(started).toEqual(['build-index']);
    // Two more content changes while the index is being built.
    requests.request('build-index');
    requests.request('build-index');
    expect(started).toEqual(['build-index']);
    end('build-index');
    expect(started).toEqual(['build-index', 'build-index']);
    end('build-index');
    expect(started).toEqual(['build-index', 'build-index']);
  });
});

describe('RunRequests: chains', () => {
  it("hands each follow-up to the worker that finished the job before it, and starts it nowhere else", () => {
    const { workers, started, requests, end } = setup();
    requests.request('ingest-videos');
    expect(requests.mayStart('ingest-videos')).toBe(true);
    expect(requests.next('ingest-videos', 'ingest-videos', ['summarise'])).toBe('summarise');
    expect(requests.next('ingest-videos', 'summarise', ['update-index'])).toBe('update-index');
    expect(requests.next('ingest-videos', 'update-index', ['rebuild-site'])).toBe('rebuild-site');
    expect(requests.next('ingest-videos', 'rebuild-site', [])).toBeNull();
    end('ingest-videos');
    expect(started).toEqual(['ingest-videos']);
    expect(workers.size).toBe(0);
  });

  it('asks for a follow-up running elsewhere once more when that run ends, not twice at once', () => {
    const { started, requests, end } = setup();
    requests.request('build-knowledge');
    expect(requests.next('build-knowledge', 'build-knowledge', ['update-index'])).toBe('update-index');
    // ingest's chain reaches update-index while build-knowledge's worker runs it.
    requests.request('ingest-videos');
    expect(requests.next('ingest-videos', 'ingest-videos', ['summarise'])).toBe('summarise');
    expect(requests.next('ingest-videos', 'summarise', ['update-index'])).toBeNull();
    end('ingest-videos');
    expect(started).toEqual(['build-knowledge', 'ingest-videos']);
    // The chain's run of update-index ends: the coalesced request starts it in a worker of its own.
    expect(requests.next('build-knowledge', 'update-index', ['rebuild-site'])).toBe('rebuild-site');
    expect(started).toEqual(['build-knowledge', 'ingest-videos', 'update-index']);
    // That worker's rebuild-site waits for the chain's, then runs once more.
    expect(requests.next('update-index', 'update-index', ['rebuild-site'])).toBeNull();
    expect(requests.next('build-knowledge', 'rebuild-site', [])).toBeNull();
    expect(started.at(-1)).toBe('rebuild-site');
    end('build-knowledge');
    end('update-index');
    expect(started).toEqual(['build-knowledge', 'ingest-videos', 'update-index', 'rebuild-site']);
  });

  it('keeps a scheduled worker from running a job a chain is running, and runs it after', () => {
    const { started, requests, end } = setup();
    requests.request('ingest-videos');
    expect(requests.next('ingest-videos', 'ingest-videos', ['summarise'])).toBe('summarise');
    // Bree starts a summarise worker by itself (a schedule set for it): it must not run beside the chain's.
    expect(requests.mayStart('summarise')).toBe(false);
    end('summarise');
    expect(started).toEqual(['ingest-videos']);
    expect(requests.next('ingest-videos', 'summarise', [])).toBeNull();
    expect(started).toEqual(['ingest-videos', 'summarise']);
  });

  it('lets a chain end with the job it runs when stopping, and frees what a dead worker was running', () => {
    const { started, requests, end } = setup();
    requests.request('ingest-videos');
    expect(requests.next('ingest-videos', 'ingest-videos', ['summarise'], true)).toBeNull();
    expect(started).toEqual(['ingest-videos', 'summarise']); // requested (the scheduler's start refuses while stopping)
    const b = setup();
    b.requests.request('build-knowledge');
    expect(b.requests.next('build-knowledge', 'build-knowledge', ['update-index'])).toBe('update-index');
    b.requests.request('update-index'); // asked for while the chain runs it: pending
    expect(b.started).toEqual(['build-knowledge']);
    b.end('build-knowledge'); // the worker died inside update-index
    expect(b.started).toEqual(['build-knowledge', 'update-index']);
    end('ingest-videos');
  });
});

describe('the status file', () => {
  it('keeps every job when worker threads record runs at the same time', async () => {
    const dataDir = path.join(root, 'var');
    const statusModule = pathToFileURL(path.resolve('pipeline/lib/status.ts')).href;
    const jobs = Array.from({ length: 6 }, (_, i) => `job-${i}`);
    await Promise.all(
      jobs.map(
        (job) =>
          new Promise<void>((resolve, reject) => {
            const w = new Worker(
              `const { recordRun } = await import(${JSON.stringify(statusModule)});
               for (let i = 0; i < 40; i++) recordRun(${JSON.stringify(dataDir)}, ${JSON.stringify(job)}, { started_at: new Date().toISOString(), finished_at: null, status: 'running', counts: { i }, error: null, duration_ms: null });`,
              { eval: true, type: 'module' } as never,
            );
            w.once('error', reject);
            w.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited ${code}`))));
          }),
      ),
    );
    const status = readStatus(dataDir);
    expect(Object.keys(status.jobs).sort()).toEqual(jobs);
    for (const job of jobs) expect(status.jobs[job].counts.i).toBe(39);
    expect(fs.existsSync(path.join(dataDir, 'pipeline', 'status.json.lock'))).toBe(false);
  });
});
