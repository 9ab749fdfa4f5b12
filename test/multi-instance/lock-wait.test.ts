// A write that waits for the cross-instance write lock waits only for that (issue 40): while another
// connection holds the lock past PG_LOCK_TIMEOUT_MS, the instance keeps answering its health probe and the
// reads that need no database at once (before, every request of the process queued behind the blocked
// query), and the waiting write gets 503 with Retry-After when the lock timeout ends its wait (before:
// 500). Once the lock is free, writing works again.
import pg from 'pg';
import { expect, it } from 'vitest';
import { describePostgres } from '../helpers/postgres.ts';
import { call, writersOnTwoInstances } from './instances.ts';

const LOCK_TIMEOUT_MS = 2000;

describePostgres('a write waiting for a lock that another connection holds', () => {
  const w = writersOnTwoInstances(['waiting'], { env: { PG_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS) } });

  it('leaves health and reads answering at once, and answers the write 503 after the lock timeout', async () => {
    const holder = new pg.Client({ connectionString: w.group.databaseUrl });
    await holder.connect();
    try {
      // The advisory lock every write transaction takes for its audit append (src/lib/data/db/postgres.ts).
      await holder.query('BEGIN; SELECT pg_advisory_xact_lock(1801, 1)');
      const started = Date.now();
      let writeDoneAt = 0;
      const write = call(`${w.a.url}/api/comments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${w.keys[0]}` },
        json: { entity_type: 'video', entity_id: w.video, body: 'waiting for the lock' },
      }).then((r) => {
        writeDoneAt = Date.now();
        return r;
      });
      const probes: { path: string; status: number; ms: number; beforeWriteEnded: boolean }[] = [];
      while (!writeDoneAt && Date.now() - started < LOCK_TIMEOUT_MS + 10_000) {
        for (const path of ['/api/health', '/api/latest', '/api/videos?limit=1']) {
          const t = performance.now();
          const res = await fetch(`${w.a.url}${path}`);
          await res.arrayBuffer();
          probes.push({ path, status: res.status, ms: performance.now() - t, beforeWriteEnded: !writeDoneAt });
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      const answered = await write;
      expect(answered.status, JSON.stringify(answered.body)).toBe(503);
      expect(answered.body.detail).toMatch(/lock/);
      // The write waited for the lock timeout, not less (it was really blocked), and was answered then.
      expect(writeDoneAt - started).toBeGreaterThanOrEqual(LOCK_TIMEOUT_MS - 200);
      // Meanwhile the instance answered every probe, and the health probe said the database is fine.
      const during = probes.filter((p) => p.beforeWriteEnded);
      expect(during.length).toBeGreaterThanOrEqual(9);
      expect(during.filter((p) => p.status !== 200)).toEqual([]);
      // Each answer came at once, not queued behind the blocked write (which would take it to the lock timeout,
      // 2 s): the median a tenth of that, and none near it. The speed goal itself, /api/health's p99 under
      // 50 ms, is the bench's (`npm run bench -- writes`): on a test machine shared with other suites a probe
      // can wait for a core.
      const ms = during.map((p) => p.ms).sort((a, b) => a - b);
      expect(ms[Math.floor(ms.length / 2)], JSON.stringify(during)).toBeLessThan(LOCK_TIMEOUT_MS / 10);
      expect(ms.at(-1)).toBeLessThan(LOCK_TIMEOUT_MS / 4);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
    }
    const after = await call(`${w.a.url}/api/comments`, { method: 'POST', headers: { Authorization: `Bearer ${w.keys[0]}` }, json: { entity_type: 'video', entity_id: w.video, body: 'after the lock' } });
    expect(after.status).toBe(201);
  }, 120_000);
});
