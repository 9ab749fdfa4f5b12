// Admins' requests to publish content changes, for deployments where content arrives by other means than
// the folder the scheduler watches (a git hook, CI): POST /api/admin/content-changed appends an audit event
// of this kind, so the request and its record are one write, and the scheduler, in the same process or in
// another one on the same database (npm run pipeline beside npm run serve, or the pipeline's instance of
// several on PostgreSQL), reads the events that arrived since it last looked. The last one read is kept in
// DATA_DIR/pipeline/requests.json, so a request made while the scheduler was stopped runs when it starts.
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../src/lib/data/db/index.ts';
import { writeFileAtomic } from '../../src/lib/fs-atomic.ts';

/** The audit event kind of a request (subject `pipeline` / `content`). */
export const CONTENT_CHANGED_EVENT = 'pipeline.content_changed';

/** The jobs a request runs, in order (the answer of POST /api/admin/content-changed names them). */
export const CONTENT_CHANGED_JOBS = ['update-index', 'rebuild-site'] as const;

/** What the scheduler polls (SchedulerOptions.requests). */
export interface ContentRequests {
  /** How many requests arrived since the last call. */
  poll(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The requests source the scheduler polls: `poll()` answers how many requests arrived since the last call.
 * @example startScheduler({ dataDir, requests: await contentRequests(db, dataDir) })
 */
export async function contentRequests(db: Db, dataDir: string, opts: { close?: () => Promise<void> } = {}): Promise<ContentRequests> {
  const file = path.join(dataDir, 'pipeline', 'requests.json');
  const newestSeq = db.prepare<[string], number | bigint | string>('SELECT COALESCE(MAX(seq), 0) FROM audit_events WHERE kind = ?').pluck();
  const seqsAfter = db.prepare<[string, number], number | bigint | string>('SELECT seq FROM audit_events WHERE kind = ? AND seq > ? ORDER BY seq').pluck();
  let after: number;
  try {
    after = Number((JSON.parse(fs.readFileSync(file, 'utf8')) as { after_seq: unknown }).after_seq);
    if (!Number.isSafeInteger(after) || after < 0) throw new Error('not a seq');
  } catch {
    after = Number((await newestSeq.get(CONTENT_CHANGED_EVENT)) ?? 0); // first start: earlier requests were made for runs long done
    writeFileAtomic(file, JSON.stringify({ after_seq: after }) + '\n');
  }
  return {
    async poll() {
      const seqs = (await seqsAfter.all(CONTENT_CHANGED_EVENT, after)).map(Number);
      if (seqs.length === 0) return 0;
      after = seqs[seqs.length - 1];
      writeFileAtomic(file, JSON.stringify({ after_seq: after }) + '\n');
      return seqs.length;
    },
    async close() {
      await opts.close?.();
    },
  };
}
