// The log's origin is fixed when the log is created and stored with it (issue 15, item 9): serving the same
// DATA_DIR under another BASE_URL keeps every past checkpoint verifiable under the published key, and
// AUDIT_ORIGIN sets it explicitly.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, testDatabaseEnv, type TestServer } from '../../helpers/server.ts';
import { withoutTrigger } from '../../helpers/raw-db.ts';
import { openCheckpoint } from '../../../src/lib/data/audit/checkpoint.ts';
import { createAuditLog } from '../../../src/lib/data/audit/index.ts';
import { openDatabase } from '../../../src/lib/data/db/index.ts';
import { loadConfig } from '../../../src/lib/config.ts';
import { verifyAuditLog } from '../../../scripts/audit-verify.ts';

const dirs: string[] = [];
const servers: TestServer[] = [];
// A DATA_DIR's database: none in the env on SQLite (DATA_DIR/kb.sqlite), one PostgreSQL database in the
// postgres project, the same for every server started on that DATA_DIR, as a restart would reopen it.
const databases = new Map<string, Record<string, string>>();
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  databases.clear();
});
function dataDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-audit-origin-'));
  dirs.push(d);
  return d;
}
async function databaseEnv(dir: string): Promise<Record<string, string>> {
  let env = databases.get(dir);
  if (!env) databases.set(dir, (env = await testDatabaseEnv()));
  return env;
}
/** The target openDatabase() takes for a DATA_DIR's database. */
async function databaseTarget(dir: string): Promise<string> {
  return (await databaseEnv(dir)).DATABASE_URL ?? path.join(dir, 'kb.sqlite');
}
async function start(env: { DATA_DIR: string } & Record<string, string>): Promise<TestServer> {
  const s = await startTestServer({ env: { ...(await databaseEnv(env.DATA_DIR)), ...env } });
  servers.push(s);
  return s;
}
async function stop(s: TestServer) {
  servers.splice(servers.indexOf(s), 1);
  await s.stop();
}
async function write(s: TestServer, n: number) {
  await s.db.transaction(async () => {
    for (let i = 0; i < n; i++) await s.audit.append({ kind: 'test.write', subjectType: 'thing', subjectId: `t${i}`, actor: 'system' });
  });
  await s.audit.checkpointNow();
}
const getJson = async <T>(s: TestServer, p: string): Promise<T> => (await (await s.get(p)).json()) as T;
type Key = { origin: string; key_name: string; key_id: string; verifier_key: string };
type Checkpoints = { items: { tree_size: number; note: string }[] };

describe('the audit log origin', () => {
  it('is fixed when the log is created: a later BASE_URL changes neither it nor the key, and old checkpoints still verify', async () => {
    const dir = dataDir();
    const a = await start({ DATA_DIR: dir, BASE_URL: 'http://a.test' });
    await write(a, 5);
    const before = await getJson<Key>(a, '/api/audit/pubkey');
    // A new log takes the tiles' URL prefix without its scheme (c2sp.org/tlog-tiles).
    expect(before.origin).toBe('a.test/api/audit');
    await stop(a);

    const b = await start({ DATA_DIR: dir, BASE_URL: 'http://b.example:8443/kb' });
    await write(b, 3);
    const after = await getJson<Key>(b, '/api/audit/pubkey');
    expect(after).toEqual(before);
    const { items } = await getJson<Checkpoints>(b, '/api/audit/checkpoints');
    expect(items.map((c) => c.tree_size)).toEqual([5, 8]);
    for (const c of items) expect(openCheckpoint(c.note, after.verifier_key)).toMatchObject({ origin: 'a.test/api/audit', size: c.tree_size });
    expect(await verifyAuditLog(b.url)).toMatchObject({ ok: true, events: 8, checkpoints: 2 });
  });

  it('is AUDIT_ORIGIN when set, and a log refuses to open under another AUDIT_ORIGIN', async () => {
    const dir = dataDir();
    const a = await start({ DATA_DIR: dir, AUDIT_ORIGIN: 'audit.example.org/kb-log' });
    await write(a, 2);
    const key = await getJson<Key>(a, '/api/audit/pubkey');
    expect(key).toMatchObject({ origin: 'audit.example.org/kb-log', key_name: 'audit.example.org/kb-log' });
    expect(key.verifier_key.startsWith('audit.example.org/kb-log+')).toBe(true);
    await stop(a);

    await expect(start({ DATA_DIR: dir, AUDIT_ORIGIN: 'other.example.org/log' })).rejects.toThrow(
      /AUDIT_ORIGIN is "other\.example\.org\/log", but the audit log .* was created with origin "audit\.example\.org\/kb-log"/,
    );
    // Unset again, another BASE_URL: the stored origin.
    const b = await start({ DATA_DIR: dir, BASE_URL: 'http://elsewhere.test' });
    expect((await getJson<Key>(b, '/api/audit/pubkey')).origin).toBe('audit.example.org/kb-log');
  });

  it('refuses an AUDIT_ORIGIN a checkpoint cannot carry', () => {
    for (const bad of ['kb.example.org/a log', 'kb+log']) expect(() => loadConfig({ AUDIT_ORIGIN: bad })).toThrow(/AUDIT_ORIGIN/);
  });

  it('of a log made before origins were stored is the one its newest checkpoint was signed under', async () => {
    const dir = dataDir();
    const target = await databaseTarget(dir);
    const db = await openDatabase(target);
    const old = await createAuditLog(db, { dataDir: dir, origin: 'old.test/audit', checkpointEvery: 1000, checkpointIntervalSeconds: 3600 });
    await db.transaction(() => old.append({ kind: 'test.write', subjectType: 'thing', subjectId: 'x', actor: 'system' }));
    await old.stop();
    await db.close();
    // As the database was before the origin had a table row (the table and its guards there, empty).
    const deleted = await withoutTrigger(target, 'audit_log_meta', 'audit_log_meta_no_delete', (raw) => raw.run('DELETE FROM audit_log_meta'));
    expect(deleted).toBe(1);

    const s = await start({ DATA_DIR: dir, BASE_URL: 'http://new.test' });
    const key = await getJson<Key>(s, '/api/audit/pubkey');
    expect(key.origin).toBe('old.test/audit');
    const { items } = await getJson<Checkpoints>(s, '/api/audit/checkpoints');
    expect(openCheckpoint(items[0].note, key.verifier_key)).toMatchObject({ origin: 'old.test/audit', size: 1 });
  });

  it('signs the empty tree at /api/audit/checkpoint before the first event', async () => {
    const s = await start({ DATA_DIR: dataDir(), BASE_URL: 'http://fresh.test' });
    const key = await getJson<Key>(s, '/api/audit/pubkey');
    const note = await (await s.get('/api/audit/checkpoint')).text();
    const cp = openCheckpoint(note, key.verifier_key);
    expect(cp).toMatchObject({ origin: 'fresh.test/api/audit', size: 0 });
    expect(cp!.root.equals(createHash('sha256').digest())).toBe(true);
    expect(await (await s.get('/api/audit/checkpoint')).text()).toBe(note);
  });
});
