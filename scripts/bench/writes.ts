// bench writes: comments created per second through the real server (each with its audit event, in one
// transaction), single process, under 1, 8 and 64 concurrent clients (autocannon), with p99 latency.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { openDatabase } from '../../api/db/index.ts';
import { createAuditLog, auditOrigin } from '../../api/audit/index.ts';
import { createIdentity } from '../../api/auth/identity.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { startChild, table } from './util.ts';

export async function runWritesBench(args: string[]): Promise<Record<string, unknown>> {
  const seconds = Number(args[0] ?? 8);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-writes-'));
  try {
    // A user and an API key, made directly in the database the server will open.
    const db = openDatabase(path.join(dataDir, 'kb.sqlite'));
    const audit = createAuditLog(db, { dataDir, origin: auditOrigin('http://127.0.0.1'), checkpointEvery: 100, checkpointIntervalSeconds: 60 });
    const identity = createIdentity(db, audit, { keyPrefix: 'kb_', adminEmails: [], moderatorEmails: [], sessionTtlHours: 1 });
    const { user } = identity.signIn({ issuer: 'https://bench.local', subject: 'bench', email: 'bench@example.org', emailVerified: true });
    const { secret } = identity.createApiKey(user.id, { name: 'bench', expiresAt: null });
    db.close();

    const video = loadSnapshot(path.resolve('content')).videos[0].video_id;
    const server = await startChild('api/server.ts', [], {
      DATA_DIR: dataDir,
      DIST_DIR: path.join(dataDir, 'no-dist'),
      PORT: '0',
      HOST: '127.0.0.1',
      BASE_URL: 'http://127.0.0.1',
      WRITE_RATE_LIMIT_PER_MINUTE: '100000000',
    });
    const results: Record<string, unknown>[] = [];
    try {
      for (const connections of [1, 8, 64]) {
        const r = await autocannon({
          url: `${server.url}/api/comments`,
          method: 'POST',
          connections,
          duration: seconds,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
          body: JSON.stringify({ entity_type: 'video', entity_id: video, body: 'A benchmark comment with a few words in it.' }),
        });
        results.push({ connections, created_per_second: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, non_2xx: r.non2xx, errors: r.errors });
      }
    } finally {
      await server.stop();
    }
    const check = openDatabase(path.join(dataDir, 'kb.sqlite'));
    const comments = check.prepare('SELECT COUNT(*) FROM comments').pluck().get() as number;
    const events = check.prepare("SELECT COUNT(*) FROM audit_events WHERE kind = 'comment.create'").pluck().get() as number;
    check.close();
    console.log(`\ncomments created through POST /api/comments (each with its audit event), ${seconds} s per row`);
    console.log(table(results.map((r) => ({ clients: r.connections as number, 'comments/s': r.created_per_second as number, 'p50 ms': r.p50_ms as number, 'p99 ms': r.p99_ms as number, 'non-2xx': r.non_2xx as number }))));
    console.log(`\n${comments} comments stored, ${events} comment.create audit events`);
    return { results, comments_stored: comments, audit_events: events };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
