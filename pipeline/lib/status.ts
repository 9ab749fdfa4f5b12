// var/pipeline/status.json: the last run of every job (start, end, outcome, counts, error), and the last
// check of the whole content (the files that failed validation). It feeds `freshness.pipeline_status` of
// /api/latest and `npm run pipeline -- status`.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../src/lib/fs-atomic.ts';
import { withFileMutex } from './lock.ts';
import type { InvalidFile } from '../../src/lib/content/model.ts';

export interface JobRun {
  started_at: string;
  finished_at: string | null;
  status: 'running' | 'ok' | 'failed';
  counts: Record<string, number>;
  error: string | null;
  duration_ms: number | null;
}

export interface StatusFile {
  jobs: Record<string, JobRun>;
  /**
   * The newest load of the whole content by a job (update-index, build-index): when, by which job, and the
   * files that failed validation then (empty: every file is valid).
   */
  content?: ContentCheck;
}

export interface ContentCheck {
  checked_at: string;
  job: string;
  invalid: InvalidFile[];
}

export function statusPath(dataDir: string): string {
  return path.join(dataDir, 'pipeline', 'status.json');
}

export function readStatus(dataDir: string): StatusFile {
  try {
    const parsed = JSON.parse(fs.readFileSync(statusPath(dataDir), 'utf8')) as StatusFile;
    return parsed && typeof parsed.jobs === 'object' ? parsed : { jobs: {} };
  } catch {
    return { jobs: {} };
  }
}

/**
 * Read-modify-write of one job's entry, under a mutex: jobs run at the same time in worker threads of the
 * scheduler (and by hand in other processes), and without it one job's write could drop another's entry.
 */
export function recordRun(dataDir: string, job: string, run: JobRun, content?: ContentCheck): void {
  withFileMutex(`${statusPath(dataDir)}.lock`, () => {
    const status = readStatus(dataDir);
    status.jobs[job] = run;
    if (content) status.content = content;
    writeFileAtomic(statusPath(dataDir), JSON.stringify(status, null, 2) + '\n');
  });
}
