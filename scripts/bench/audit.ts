// bench audit: appends per second inside write transactions (one event per transaction, as writes do,
// and batched), and proof generation time when the log holds 1M events.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/lib/data/db/index.ts';
import { createAuditLog } from '../../src/lib/data/audit/index.ts';
import { table } from './util.ts';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timeEach(n: number, fn: (i: number) => Promise<unknown>): Promise<{ mean_ms: number; p50_ms: number; p99_ms: number }> {
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await fn(i);
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { mean_ms: r(t.reduce((a, b) => a + b, 0) / n), p50_ms: r(percentile(t, 50)), p99_ms: r(percentile(t, 99)) };
}

export async function runAuditBench(args: string[]): Promise<Record<string, unknown>> {
  const target = Number(args[0] ?? 1_000_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-audit-'));
  try {
    const db = await openDatabase(path.join(dir, 'kb.sqlite'));
    const audit = await createAuditLog(db, { dataDir: dir, origin: 'bench.local/audit', checkpointEvery: 100, checkpointIntervalSeconds: 3600 });
    const ev = (i: number) => ({ kind: 'comment.create', subjectType: 'comment', subjectId: `c${i}`, actor: { userId: `user-${i % 500}` }, data: { entity_type: 'video', n: i } });

    // One event per transaction, as a write endpoint does (with a checkpoint every 100).
    const singles = 20_000;
    let t = performance.now();
    for (let i = 0; i < singles; i++) await db.transaction(() => audit.append(ev(i)));
    const singleRate = Math.round(singles / ((performance.now() - t) / 1000));

    // Fill to the target in batches of 1000 events per transaction.
    t = performance.now();
    let n = await audit.size();
    const fillStart = n;
    while (n < target) {
      const batch = Math.min(1000, target - n);
      await db.transaction(async () => {
        for (let j = 0; j < batch; j++) await audit.append(ev(n + j));
      });
      n += batch;
    }
    const batchRate = Math.round((n - fillStart) / ((performance.now() - t) / 1000));
    await audit.checkpointNow();

    const size = await audit.size();
    const rand = (k: number) => 1 + Math.floor(Math.random() * k);
    const inclusion = await timeEach(1000, () => audit.inclusion(rand(size), size));
    const inclusionOld = await timeEach(1000, () => {
      const ts = rand(size);
      return audit.inclusion(rand(ts), ts);
    });
    const consistency = await timeEach(1000, () => {
      const to = rand(size);
      return audit.consistency(rand(to), to);
    });
    const checkpoint = await timeEach(200, async () => {
      await db.transaction(() => audit.append(ev(-1)));
      await audit.checkpointNow();
    });
    const dbBytes = fs.statSync(path.join(dir, 'kb.sqlite')).size + (fs.existsSync(path.join(dir, 'kb.sqlite-wal')) ? fs.statSync(path.join(dir, 'kb.sqlite-wal')).size : 0);
    await db.close();

    console.log(`\naudit appends (SQLite WAL, synchronous=NORMAL)`);
    console.log(table([
      { mode: 'one event per write transaction (checkpoint every 100)', 'events/s': singleRate },
      { mode: '1000 events per transaction', 'events/s': batchRate },
    ]));
    console.log(`\nproofs at ${size.toLocaleString('en')} events (database ${(dbBytes / 1e6).toFixed(0)} MB)`);
    const row = (op: string, r: { mean_ms: number; p50_ms: number; p99_ms: number }) => ({ operation: op, 'mean ms': r.mean_ms, 'p50 ms': r.p50_ms, 'p99 ms': r.p99_ms });
    console.log(table([
      row('inclusion proof, current tree', inclusion),
      row('inclusion proof, random older tree', inclusionOld),
      row('consistency proof, random sizes', consistency),
      row('append + signed checkpoint', checkpoint),
    ]));
    return {
      appends_per_second: { single_event_transactions: singleRate, batched_1000: batchRate },
      events: size,
      database_bytes: dbBytes,
      inclusion_proof_ms: inclusion,
      inclusion_proof_older_tree_ms: inclusionOld,
      consistency_proof_ms: consistency,
      append_and_checkpoint_ms: checkpoint,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
