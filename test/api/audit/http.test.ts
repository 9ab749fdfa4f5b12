// The audit log over HTTP, and the verifier (npm run audit:verify) against the real server: it passes on
// an honest log and names the seq of a row changed behind the server's back.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { databaseOf, withoutTrigger } from '../../helpers/raw-db.ts';
import { verifyAuditLog } from '../../../scripts/audit-verify.ts';
import { leafHash, verifyConsistency, verifyInclusion } from '../../../src/lib/data/audit/merkle.ts';

// Async: the server under test lives in this process, so a blocking child call would deadlock it.
const run = promisify(execFile);
let srv: TestServer;
const N = 57;
beforeAll(async () => {
  srv = await startTestServer({ env: { AUDIT_CHECKPOINT_EVERY: '20' } });
  for (let i = 1; i <= N; i++) {
    await srv.db.transaction(() =>
      srv.audit.append({ kind: i % 2 ? 'comment.create' : 'post.create', subjectType: i % 2 ? 'comment' : 'post', subjectId: `s${i}`, actor: { userId: 'u1' }, data: { i } }),
    );
  }
  await srv.audit.checkpointNow(); // as the interval timer or shutdown would
});
afterAll(() => srv.stop());

const json = async (p: string, status = 200) => {
  const res = await srv.get(p);
  expect(res.status, p).toBe(status);
  return res.json();
};

describe('GET /api/audit', () => {
  it('pages in ascending seq with next_after_seq', async () => {
    const first = await json('/api/audit?limit=25');
    expect(first.items.map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(first.next_after_seq).toBe(25);
    expect(first.tree_size).toBe(N);
    const last = await json('/api/audit?after_seq=50&limit=25');
    expect(last.items.map((e: { seq: number }) => e.seq)).toEqual([51, 52, 53, 54, 55, 56, 57]);
    expect(last.next_after_seq).toBeNull();
    expect((await json('/api/audit')).items).toHaveLength(50);
  });

  it('filters by kind, subject_type and subject_id', async () => {
    const posts = await json('/api/audit?kind=post.create&limit=200');
    expect(posts.items).toHaveLength(Math.floor(N / 2));
    expect(posts.items.every((e: { kind: string }) => e.kind === 'post.create')).toBe(true);
    const one = await json('/api/audit?subject_type=comment&subject_id=s7');
    expect(one.items.map((e: { seq: number }) => e.seq)).toEqual([7]);
  });

  it('shows each event with its exact leaf data and no personal data', async () => {
    const e = (await json('/api/audit?limit=1')).items[0];
    expect(Object.keys(e).sort()).toEqual(['actor', 'created_at', 'data', 'entry', 'kind', 'leaf_hash', 'seq', 'subject_id', 'subject_type']);
    expect(leafHash(e.entry).toString('base64')).toBe(e.leaf_hash);
    expect(JSON.parse(e.entry)).toMatchObject({ seq: 1, kind: e.kind, actor: e.actor, data: { i: 1 } });
    expect(e.actor).not.toContain('u1');
  });

  it.each([
    ['/api/audit?limit=0', 'limit', 'greater_than_equal'],
    ['/api/audit?limit=201', 'limit', 'less_than_equal'],
    ['/api/audit?after_seq=-1', 'after_seq', 'greater_than_equal'],
    ['/api/audit?after_seq=x', 'after_seq', 'int_parsing'],
    ['/api/audit/checkpoints?limit=101', 'limit', 'less_than_equal'],
    ['/api/audit/checkpoints?after_seq=-3', 'after_seq', 'greater_than_equal'],
    ['/api/audit/proof/inclusion?tree_size=5', 'seq', 'missing'],
    ['/api/audit/proof/inclusion?seq=0&tree_size=5', 'seq', 'greater_than_equal'],
    ['/api/audit/proof/consistency?from=1', 'to', 'missing'],
  ])('%s -> 422 on %s', async (p, field, type) => {
    const body = await json(p, 422);
    expect(body.detail[0]).toMatchObject({ loc: ['query', field], type });
  });
});

describe('checkpoints, key and proofs', () => {
  it('publishes checkpoints every 20 events and at the end, signed by the published key', async () => {
    const page = await json('/api/audit/checkpoints');
    expect(page.items.map((c: { tree_size: number }) => c.tree_size)).toEqual([20, 40, 57]);
    const key = await json('/api/audit/pubkey');
    expect(key).toMatchObject({ algorithm: 'Ed25519', origin: 'kb.test/api/audit', key_name: 'kb.test/api/audit' });
    expect(key.public_key_pem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(Buffer.from(key.public_key, 'base64')).toHaveLength(32);
    expect(page.items[0].note.startsWith(`kb.test/api/audit\n20\n${page.items[0].root_hash}\n\n— kb.test/api/audit `)).toBe(true);
    const later = await json('/api/audit/checkpoints?after_seq=20&limit=1');
    expect(later.items.map((c: { tree_size: number }) => c.tree_size)).toEqual([40]);
    expect(later.next_after_seq).toBe(40);
  });

  it('serves inclusion and consistency proofs that verify against the checkpoints', async () => {
    const cps = (await json('/api/audit/checkpoints')).items;
    const root = (size: number) => Buffer.from(cps.find((c: { tree_size: number }) => c.tree_size === size).root_hash, 'base64');
    const events = (await json('/api/audit?limit=200')).items;
    for (const seq of [1, 13, 40]) {
      const p = await json(`/api/audit/proof/inclusion?seq=${seq}&tree_size=40`);
      expect(p.root_hash).toBe(root(40).toString('base64'));
      expect(verifyInclusion(seq - 1, 40, leafHash(events[seq - 1].entry), p.proof.map((h: string) => Buffer.from(h, 'base64')), root(40))).toBe(true);
    }
    const c = await json('/api/audit/proof/consistency?from=20&to=57');
    expect(verifyConsistency(20, 57, root(20), root(57), c.proof.map((h: string) => Buffer.from(h, 'base64')))).toBe(true);
    expect((await json(`/api/audit/proof/inclusion?seq=1&tree_size=${N + 1}`, 400)).detail).toMatch(/exceeds the log size/);
    expect((await json('/api/audit/proof/inclusion?seq=30&tree_size=20', 400)).detail).toMatch(/not in a tree of size 20/);
    expect((await json('/api/audit/proof/consistency?from=30&to=20', 400)).detail).toMatch(/larger than/);
  });

  it('documents the audit routes, proofs included, in /openapi.json', async () => {
    const doc = await json('/openapi.json');
    for (const p of ['/api/audit', '/api/audit/checkpoints', '/api/audit/pubkey', '/api/audit/proof/inclusion', '/api/audit/proof/consistency']) {
      expect(Object.keys(doc.paths)).toContain(p);
    }
    expect(doc.components.schemas.AuditPage).toBeDefined();
  });
});

describe('the verifier', () => {
  it('passes on an honest log, as a library and as npm run audit:verify', async () => {
    expect(await verifyAuditLog(srv.url)).toMatchObject({ ok: true, events: N, checkpoints: 3, state: { tree_size: N } });
    const { stdout: out } = await run(process.execPath, ['scripts/audit-verify.ts', srv.url]);
    expect(out.trim()).toBe(`OK: ${N} events, 3 signed checkpoints verified`);
  });

  it('names the seq of a row changed behind the server’s back', async () => {
    // Edit the database directly, on a connection of its own, as someone with access to the SQLite file or
    // the PostgreSQL server would: drop the guard, rewrite, restore.
    const changed = await withoutTrigger(databaseOf(srv), 'audit_events', 'audit_events_no_update', async (raw) => {
      const [row] = await raw.all<{ entry: string }>('SELECT entry FROM audit_events WHERE seq = 33');
      const entry = JSON.parse(row.entry);
      entry.data = { i: 'rewritten' };
      return raw.run('UPDATE audit_events SET entry = ? WHERE seq = 33', [JSON.stringify(entry)]);
    });
    expect(changed).toBe(1);
    // The guard is back.
    await expect(srv.db.prepare("UPDATE audit_events SET kind = 'forged' WHERE seq = 1").run()).rejects.toThrow(/append-only/);

    const r = await verifyAuditLog(srv.url);
    expect(r).toMatchObject({ ok: false, failedSeq: 33 });
    const failed = await run(process.execPath, ['scripts/audit-verify.ts', srv.url]).catch((err: { code: number; stdout: string }) => err);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stdout: string }).stdout).toMatch(/^FAIL at seq 33: /);
  });
});
