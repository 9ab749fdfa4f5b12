// Roles follow ADMIN_EMAILS and MODERATOR_EMAILS (issue 39, item 4): an address taken off a list loses its
// role at the next start, without signing in again, and at its next sign-in; one put on a list gains it.
// Each change is a public audit event by the system.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, testDatabaseEnv, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';

const dirs: string[] = [];
const servers: TestServer[] = [];
// One database per DATA_DIR (SQLite: DATA_DIR/kb.sqlite; postgres project: the same database for every
// server started on it), as a restart reopens it.
const databases = new Map<string, Record<string, string>>();
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  databases.clear();
});
function dataDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-roles-'));
  dirs.push(d);
  return d;
}
async function start(dir: string, env: Record<string, string>): Promise<TestServer> {
  let db = databases.get(dir);
  if (!db) databases.set(dir, (db = await testDatabaseEnv()));
  const s = await startTestServer({ env: { ...db, DATA_DIR: dir, ...env } });
  servers.push(s);
  return s;
}
async function stop(s: TestServer) {
  servers.splice(servers.indexOf(s), 1);
  await s.stop();
}

interface Event { seq: number; kind: string; subject_type: string; subject_id: string; actor: string; data: Record<string, unknown> }
const roleOf = async (s: TestServer, who: TestSession) => (await (await s.get('/api/auth/me', { headers: who.headers })).json()).user.role;
const publicRole = async (s: TestServer, who: TestSession) => (await (await s.get(`/api/users/${who.userId}`)).json()).role;
const roleEvents = async (s: TestServer): Promise<Event[]> => (await (await s.get('/api/audit?kind=user.role_change&limit=200')).json()).items;

describe('roles from the configuration', () => {
  it('are recomputed at start, down as well as up, for people who do not sign in again', async () => {
    const dir = dataDir();
    const a = await start(dir, { ADMIN_EMAILS: 'boss@example.org', MODERATOR_EMAILS: 'mod@example.org,Helper@Example.org' });
    const boss = await sessionFor(a, 'boss@example.org');
    const mod = await sessionFor(a, 'mod@example.org');
    const helper = await sessionFor(a, 'helper@example.org');
    const plain = await sessionFor(a, 'plain@example.org');
    expect([await roleOf(a, boss), await roleOf(a, mod), await roleOf(a, helper), await roleOf(a, plain)]).toEqual(['admin', 'moderator', 'moderator', 'user']);
    expect(await roleEvents(a)).toEqual([]); // new accounts carry their role in user.create
    expect((await a.get('/api/moderation/comments', { headers: mod.headers })).status).toBe(200);
    await stop(a);

    // boss is now only a moderator, mod is off the lists, plain became an admin; helper stays.
    const b = await start(dir, { ADMIN_EMAILS: 'PLAIN@example.org', MODERATOR_EMAILS: 'boss@example.org,helper@example.org' });
    // The sessions opened before the restart see the new roles at once, in every answer.
    expect([await roleOf(b, boss), await roleOf(b, mod), await roleOf(b, helper), await roleOf(b, plain)]).toEqual(['moderator', 'user', 'moderator', 'admin']);
    expect([await publicRole(b, boss), await publicRole(b, mod), await publicRole(b, plain)]).toEqual(['moderator', 'user', 'admin']);
    // A former moderator can no longer moderate.
    expect((await b.get('/api/moderation/comments', { headers: mod.headers })).status).toBe(403);
    const events = await roleEvents(b);
    expect(events.map((e) => ({ subject: `${e.subject_type}:${e.subject_id}`, actor: e.actor, data: e.data })).sort((x, y) => x.subject.localeCompare(y.subject))).toEqual(
      [
        { subject: `user:${boss.userId}`, actor: 'system', data: { role: 'moderator', previous: 'admin', source: 'configuration' } },
        { subject: `user:${mod.userId}`, actor: 'system', data: { role: 'user', previous: 'moderator', source: 'configuration' } },
        { subject: `user:${plain.userId}`, actor: 'system', data: { role: 'admin', previous: 'user', source: 'configuration' } },
      ].sort((x, y) => x.subject.localeCompare(y.subject)),
    );
    await stop(b);

    // The same lists again: nothing to change, no new events; signing in changes nothing either.
    const c = await start(dir, { ADMIN_EMAILS: 'plain@example.org', MODERATOR_EMAILS: 'boss@example.org,helper@example.org' });
    await sessionFor(c, 'mod@example.org');
    expect((await roleEvents(c)).length).toBe(3);
  });

  it('are recomputed at each sign-in, so a role another instance left behind does not stay', async () => {
    const s = await start(dataDir(), { ADMIN_EMAILS: 'boss@example.org' });
    const boss = await sessionFor(s, 'boss@example.org');
    const eve = await sessionFor(s, 'eve@example.org');
    // As an instance still running with an older list would have left them.
    await s.db.prepare("UPDATE users SET role = 'admin' WHERE id = ?").run(eve.userId);
    await s.db.prepare("UPDATE users SET role = 'user' WHERE id = ?").run(boss.userId);
    const eveAgain = await sessionFor(s, 'eve@example.org');
    const bossAgain = await sessionFor(s, 'boss@example.org');
    expect(await roleOf(s, eveAgain)).toBe('user');
    expect(await roleOf(s, bossAgain)).toBe('admin');
    const events = await roleEvents(s);
    expect(events.map((e) => [e.subject_id, e.actor, e.data.previous, e.data.role])).toEqual([
      [eve.userId, 'system', 'admin', 'user'],
      [boss.userId, 'system', 'user', 'admin'],
    ]);
  });
});
