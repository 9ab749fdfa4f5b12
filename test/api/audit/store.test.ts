// The append path: one function inside the write's transaction, no gaps, no rewriting history. On SQLite,
// and in the postgres test project on PostgreSQL (each test a fresh database on the file's server).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { testDatabaseEnv } from '../../helpers/server.ts';
import { openDatabase, type Db } from '../../../src/lib/data/db/index.ts';
import { createAuditLog, type AuditLog } from '../../../src/lib/data/audit/index.ts';
import { MemoryTree, leafHash } from '../../../src/lib/data/audit/merkle.ts';
import { openCheckpoint } from '../../../src/lib/data/audit/checkpoint.ts';

const dirs: string[] = [];
const dbs: Db[] = [];
const workers: Worker[] = [];
/** A fresh log: DATA_DIR/kb.sqlite, or a fresh PostgreSQL database in the postgres project. */
async function setup(opts: { every?: number } = {}): Promise<{ db: Db; audit: AuditLog; dir: string; target: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-audit-'));
  dirs.push(dir);
  const target = (await testDatabaseEnv()).DATABASE_URL ?? path.join(dir, 'kb.sqlite');
  const db = await openDatabase(target);
  dbs.push(db);
  const audit = await createAuditLog(db, { dataDir: dir, origin: 'kb.test/audit', checkpointEvery: opts.every ?? 1000, checkpointIntervalSeconds: 3600 });
  return { db, audit, dir, target };
}
afterEach(async () => {
  // Writers still running (a test that failed or timed out) would keep creating files in the folder.
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
  for (const db of dbs.splice(0)) await db.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const event = (i: number) => ({ kind: 'test.write', subjectType: 'thing', subjectId: `t${i}`, actor: { userId: `user-${i % 3}` }, data: { n: i } });

describe('appending audit events', () => {
  it('refuses to append outside a transaction', async () => {
    const { audit } = await setup();
    await expect(audit.append(event(1))).rejects.toThrow(/inside the write transaction/);
  });

  it('numbers events 1, 2, 3 and leaves no gap when a write rolls back', async () => {
    const { db, audit } = await setup();
    await db.transaction(() => audit.append(event(1)));
    await expect(
      db.transaction(async () => {
        await audit.append(event(2));
        throw new Error('the write failed after its event');
      }),
    ).rejects.toThrow('the write failed');
    await db.transaction(() => audit.append(event(3)));
    const page = await audit.events({ afterSeq: 0, limit: 10 });
    expect(page.items.map((e) => [e.seq, e.subject_id])).toEqual([[1, 't1'], [2, 't3']]);
    expect(page.tree_size).toBe(2);
  });

  it('refuses UPDATE and DELETE on the log, even from our own connection', async () => {
    const { db, audit } = await setup();
    await db.transaction(() => audit.append(event(1)));
    await audit.checkpointNow();
    for (const sql of [
      "UPDATE audit_events SET kind = 'forged' WHERE seq = 1",
      'DELETE FROM audit_events WHERE seq = 1',
      `UPDATE audit_tree SET hash = ${db.dialect === 'postgres' ? "decode(repeat('00', 32), 'hex')" : 'zeroblob(32)'}`,
      'DELETE FROM audit_tree',
      "UPDATE audit_checkpoints SET note = 'x'",
      'DELETE FROM audit_checkpoints',
    ]) {
      await expect(db.prepare(sql).run(), sql).rejects.toThrow(/append-only/);
    }
    expect((await audit.events({ afterSeq: 0, limit: 10 })).items[0].kind).toBe('test.write');
  });

  it('publishes a pseudonym for the actor, never the user id, scoped to the subject (and the kind, for anonymous acts)', async () => {
    const { db, audit } = await setup();
    await db.transaction(async () => {
      await audit.append(event(0));
      await audit.append(event(3)); // same user-0, another subject
      await audit.append({ ...event(0), kind: 'test.edit' }); // same user-0, same subject
      await audit.append({ ...event(0), kind: 'test.flag', anonymous: true }); // same user and subject, anonymous
      await audit.append({ ...event(1), actor: 'pipeline' });
    });
    const [a, b, same, anon, c] = (await audit.events({ afterSeq: 0, limit: 10 })).items;
    expect(a.actor).toMatch(/^u_[0-9a-f]{24}$/);
    expect(b.actor).not.toBe(a.actor);
    expect(same.actor).toBe(a.actor);
    expect(anon.actor).toMatch(/^u_[0-9a-f]{24}$/);
    expect([a.actor, b.actor, same.actor]).not.toContain(anon.actor);
    expect(c.actor).toBe('pipeline');
    expect(JSON.stringify([a, b, same, anon, c])).not.toContain('user-0');
  });

  it('checkpoints every N events, with roots that match the entries', async () => {
    const { db, audit } = await setup({ every: 10 });
    for (let i = 1; i <= 35; i++) await db.transaction(() => audit.append(event(i)));
    expect((await audit.checkpoints(0, 100)).items.map((c) => c.tree_size)).toEqual([10, 20, 30]);
    await audit.checkpointNow();
    expect(await audit.checkpointNow()).toBeNull(); // nothing new
    const cps = (await audit.checkpoints(0, 100)).items;
    expect(cps.map((c) => c.tree_size)).toEqual([10, 20, 30, 35]);
    const tree = new MemoryTree();
    for (const e of (await audit.events({ afterSeq: 0, limit: 200 })).items) tree.append(leafHash(e.entry));
    const key = audit.publicKey().verifier_key;
    for (const cp of cps) {
      const parsed = openCheckpoint(cp.note, key)!;
      expect(parsed.root.equals(tree.root(cp.tree_size))).toBe(true);
    }
  });

  it('has no gaps under 64 concurrent writers on separate connections', async () => {
    // Each writer a thread with its own connection to the same database: the SQLite file, or in the
    // postgres project the same PostgreSQL database (issue 17: writers on several instances at once).
    const { dir, audit, target } = await setup();
    // An ES module, not an eval'd script, so that it can import the project's modules by URL.
    const workerCode = `
      import { workerData, parentPort } from 'node:worker_threads';
      try {
        const { openDatabase } = await import(workerData.dbModule);
        const { createAuditLog } = await import(workerData.auditModule);
        // 64 writers queue for one write lock on a loaded 2-core machine: wait as long as it takes.
        const db = await openDatabase(workerData.target, { lockTimeoutMs: 120000, poolSize: 1 });
        if (db.dialect === 'sqlite') db.raw.pragma('busy_timeout = 120000');
        const audit = await createAuditLog(db, { dataDir: workerData.dir, origin: 'kb.test/audit', checkpointEvery: 25, checkpointIntervalSeconds: 3600 });
        // Connected: wait until every writer is, so that all 64 write at once. (A shared-memory gate, not a
        // message: nothing here should depend on who else listens on parentPort.)
        parentPort.postMessage('ready');
        Atomics.wait(workerData.gate, 0, 0);
        for (let i = 0; i < workerData.count; i++) {
          await db.transaction(() => audit.append({ kind: 'test.concurrent', subjectType: 'worker', subjectId: String(workerData.id), actor: 'system', data: { i } }));
        }
        await db.close();
        parentPort.postMessage('done');
      } catch (e) {
        parentPort.postMessage('error: ' + (e && e.stack ? e.stack : e));
      }
    `;
    const workerUrl = new URL(`data:text/javascript,${encodeURIComponent(workerCode)}`);
    const count = 20;
    const gate = new Int32Array(new SharedArrayBuffer(4));
    const modules = {
      dbModule: new URL('../../../src/lib/data/db/index.ts', import.meta.url).href,
      auditModule: new URL('../../../src/lib/data/audit/index.ts', import.meta.url).href,
    };
    // Each writer answers 'ready' once connected, then its outcome ('done', or what failed): all have
    // stopped writing before the checks.
    const writers = Array.from({ length: 64 }, (_, id) => {
      const w = new Worker(workerUrl, { workerData: { target, dir, id, count, gate, ...modules } });
      workers.push(w);
      let onReady = () => {};
      const ready = new Promise<void>((resolve) => (onReady = resolve));
      const outcome = new Promise<string>((resolve) => {
        w.on('message', (m: string) => (m === 'ready' ? onReady() : resolve(m)));
        w.once('error', (e) => resolve(`error: ${e.stack ?? e}`));
        w.once('exit', (code) => resolve(`exited (${code}) without an answer`));
      });
      return { w, ready: Promise.race([ready, outcome]), outcome };
    });
    await Promise.all(writers.map((x) => x.ready));
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    const results = await Promise.all(writers.map((x) => x.outcome));
    await Promise.all(workers.splice(0).map((w) => w.terminate()));
    expect(results.filter((r) => r !== 'done')).toEqual([]);
    const all = [];
    for (let after = 0; ; ) {
      const page = await audit.events({ afterSeq: after, limit: 200 });
      all.push(...page.items);
      if (page.next_after_seq === null) break;
      after = page.next_after_seq;
    }
    expect(all).toHaveLength(64 * count);
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 64 * count }, (_, i) => i + 1));
    // Every writer's events all landed, and the stored tree matches the entries.
    for (let id = 0; id < 64; id++) expect(all.filter((e) => e.subject_id === String(id))).toHaveLength(count);
    const tree = new MemoryTree();
    for (const e of all) tree.append(leafHash(e.entry));
    const cps = (await audit.checkpoints(0, 100)).items;
    expect(cps.length).toBeGreaterThan(0);
    for (const cp of cps) expect(Buffer.from(cp.root_hash, 'base64').equals(tree.root(cp.tree_size))).toBe(true);
    // 64 threads (on PostgreSQL each with its connection's thread) load the modules first: half a minute
    // on a busy 2-core machine.
  }, 240_000);
});
