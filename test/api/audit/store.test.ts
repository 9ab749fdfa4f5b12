// The append path in SQLite: one function inside the write's transaction, no gaps, no rewriting history.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../api/db/index.ts';
import { createAuditLog, type AuditLog } from '../../../api/audit/index.ts';
import { MemoryTree, leafHash } from '../../../api/audit/merkle.ts';
import { openCheckpoint } from '../../../api/audit/checkpoint.ts';

const dirs: string[] = [];
const dbs: Db[] = [];
function setup(opts: { every?: number } = {}): { db: Db; audit: AuditLog; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-audit-'));
  dirs.push(dir);
  const db = openDatabase(path.join(dir, 'kb.sqlite'));
  dbs.push(db);
  const audit = createAuditLog(db, { dataDir: dir, origin: 'kb.test/audit', checkpointEvery: opts.every ?? 1000, checkpointIntervalSeconds: 3600 });
  return { db, audit, dir };
}
afterEach(() => {
  for (const db of dbs.splice(0)) if (db.open) db.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const event = (i: number) => ({ kind: 'test.write', subjectType: 'thing', subjectId: `t${i}`, actor: { userId: `user-${i % 3}` }, data: { n: i } });

describe('appending audit events', () => {
  it('refuses to append outside a transaction', () => {
    const { audit } = setup();
    expect(() => audit.append(event(1))).toThrow(/inside the write transaction/);
  });

  it('numbers events 1, 2, 3 and leaves no gap when a write rolls back', () => {
    const { db, audit } = setup();
    db.transaction(() => audit.append(event(1))).immediate();
    expect(() =>
      db.transaction(() => {
        audit.append(event(2));
        throw new Error('the write failed after its event');
      }).immediate(),
    ).toThrow('the write failed');
    db.transaction(() => audit.append(event(3))).immediate();
    const page = audit.events({ afterSeq: 0, limit: 10 });
    expect(page.items.map((e) => [e.seq, e.subject_id])).toEqual([[1, 't1'], [2, 't3']]);
    expect(page.tree_size).toBe(2);
  });

  it('refuses UPDATE and DELETE on the log, even from our own connection', () => {
    const { db, audit } = setup();
    db.transaction(() => audit.append(event(1))).immediate();
    audit.checkpointNow();
    for (const sql of [
      "UPDATE audit_events SET kind = 'forged' WHERE seq = 1",
      'DELETE FROM audit_events WHERE seq = 1',
      'UPDATE audit_tree SET hash = zeroblob(32)',
      'DELETE FROM audit_tree',
      "UPDATE audit_checkpoints SET note = 'x'",
      'DELETE FROM audit_checkpoints',
    ]) {
      expect(() => db.prepare(sql).run(), sql).toThrow(/append-only/);
    }
    expect(audit.events({ afterSeq: 0, limit: 10 }).items[0].kind).toBe('test.write');
  });

  it('publishes a pseudonym for the actor, never the user id, scoped to the subject (and the kind, for anonymous acts)', () => {
    const { db, audit } = setup();
    db.transaction(() => {
      audit.append(event(0));
      audit.append(event(3)); // same user-0, another subject
      audit.append({ ...event(0), kind: 'test.edit' }); // same user-0, same subject
      audit.append({ ...event(0), kind: 'test.flag', anonymous: true }); // same user and subject, anonymous
      audit.append({ ...event(1), actor: 'pipeline' });
    }).immediate();
    const [a, b, same, anon, c] = audit.events({ afterSeq: 0, limit: 10 }).items;
    expect(a.actor).toMatch(/^u_[0-9a-f]{24}$/);
    expect(b.actor).not.toBe(a.actor);
    expect(same.actor).toBe(a.actor);
    expect(anon.actor).toMatch(/^u_[0-9a-f]{24}$/);
    expect([a.actor, b.actor, same.actor]).not.toContain(anon.actor);
    expect(c.actor).toBe('pipeline');
    expect(JSON.stringify([a, b, same, anon, c])).not.toContain('user-0');
  });

  it('checkpoints every N events, with roots that match the entries', () => {
    const { db, audit } = setup({ every: 10 });
    for (let i = 1; i <= 35; i++) db.transaction(() => audit.append(event(i))).immediate();
    expect(audit.checkpoints(0, 100).items.map((c) => c.tree_size)).toEqual([10, 20, 30]);
    audit.checkpointNow();
    expect(audit.checkpointNow()).toBeNull(); // nothing new
    const cps = audit.checkpoints(0, 100).items;
    expect(cps.map((c) => c.tree_size)).toEqual([10, 20, 30, 35]);
    const tree = new MemoryTree();
    for (const e of audit.events({ afterSeq: 0, limit: 200 }).items) tree.append(leafHash(e.entry));
    const key = audit.publicKey().verifier_key;
    for (const cp of cps) {
      const parsed = openCheckpoint(cp.note, key)!;
      expect(parsed.root.equals(tree.root(cp.tree_size))).toBe(true);
    }
  });

  it('has no gaps under 64 concurrent writers on separate connections', async () => {
    const { dir, audit } = setup();
    const file = path.join(dir, 'kb.sqlite');
    const workerCode = `
      const { workerData, parentPort } = require('node:worker_threads');
      (async () => {
        const { openDatabase } = await import(workerData.dbModule);
        const { createAuditLog } = await import(workerData.auditModule);
        const db = openDatabase(workerData.file);
        // 64 writers queue for one write lock on a loaded 2-core machine: wait as long as it takes.
        db.pragma('busy_timeout = 120000');
        const audit = createAuditLog(db, { dataDir: workerData.dir, origin: 'kb.test/audit', checkpointEvery: 25, checkpointIntervalSeconds: 3600 });
        for (let i = 0; i < workerData.count; i++) {
          db.transaction(() => audit.append({ kind: 'test.concurrent', subjectType: 'worker', subjectId: String(workerData.id), actor: 'system', data: { i } })).immediate();
        }
        db.close();
        parentPort.postMessage('done');
      })().catch((e) => { parentPort.postMessage('error: ' + e.stack); });
    `;
    const count = 20;
    const modules = {
      dbModule: new URL('../../../api/db/index.ts', import.meta.url).href,
      auditModule: new URL('../../../api/audit/index.ts', import.meta.url).href,
    };
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, id) =>
        new Promise<string>((resolve, reject) => {
          const w = new Worker(workerCode, { eval: true, workerData: { file, dir, id, count, ...modules } });
          w.once('message', resolve);
          w.once('error', reject);
        }),
      ),
    );
    expect(results.filter((r) => r !== 'done')).toEqual([]);
    const all = [];
    for (let after = 0; ; ) {
      const page = audit.events({ afterSeq: after, limit: 200 });
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
    const cps = audit.checkpoints(0, 100).items;
    expect(cps.length).toBeGreaterThan(0);
    for (const cp of cps) expect(Buffer.from(cp.root_hash, 'base64').equals(tree.root(cp.tree_size))).toBe(true);
  });
});
