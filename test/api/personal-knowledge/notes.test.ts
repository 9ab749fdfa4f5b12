// Notes in a connected repository on the loopback git host: write, read, list, history, delete; a change on
// the host meanwhile (409 with both versions); slugs that try to leave notes/ (422); and the host failing —
// a revoked token, an expired one, a host that is down — without losing the note that was sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../helpers/server.ts';
import { startGitHost, type GitHost } from './git-host.ts';
import { connect, getJson, person, putNote, serverFor, type Person } from './helpers.ts';

let host: GitHost;
let srv: TestServer;
beforeAll(async () => {
  host = await startGitHost();
  srv = await serverFor(host);
});
afterAll(async () => {
  await srv?.stop();
  await host?.stop();
});

async function connected(login: string): Promise<Person> {
  host.createRepo(login);
  host.nextLogin = login;
  const p = await person(srv, `${login}@example.org`, login[0].toUpperCase() + login.slice(1));
  expect(await connect(p)).toBe('/account?pk=connected');
  return p;
}

describe('notes', () => {
  let p: Person;
  beforeAll(async () => {
    p = await connected('nora');
  });

  it('writes a note in one commit with a clear message, pushed to the host', async () => {
    const w = await putNote(p, 'reading-list', '# Reading list\n\n- Designing Data-Intensive Applications\n', { base_blob: null });
    expect(w.status).toBe(200);
    expect(w.body).toMatchObject({ slug: 'reading-list', title: 'Reading list', action: 'create', pushed: true });
    expect(w.body.blob).toMatch(/^[0-9a-f]{40}$/);
    expect(w.etag).toBe(`"${w.body.blob}"`);
    expect(host.readOnHost('nora', 'notes/reading-list.md')).toBe('# Reading list\n\n- Designing Data-Intensive Applications\n');
    expect(host.logOnHost('nora')[0]).toBe('Create note reading-list');
    // The audit event names the note by pseudonym and commit, never by slug or text.
    const ev = (await (await srv.get('/api/audit?kind=personal_knowledge.note_create&limit=200')).json()).items.at(-1);
    expect(ev).toMatchObject({ subject_type: 'personal_knowledge_note', data: { commit: w.body.commit, pushed: true } });
    expect(ev.subject_id).toMatch(/^pkn_[0-9a-f]{24}$/);
    expect(JSON.stringify(ev)).not.toMatch(/reading-list|Designing/);
  });

  it('reads it back with its blob id as ETag, and lists it', async () => {
    const r = await getJson(p, '/api/me/personal-knowledge/notes/reading-list');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ slug: 'reading-list', title: 'Reading list', content: '# Reading list\n\n- Designing Data-Intensive Applications\n', stale: false });
    expect(r.etag).toBe(`"${r.body.blob}"`);
    expect(r.body.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Date.parse(r.body.updated)).toBeGreaterThan(Date.now() - 60_000);

    await putNote(p, 'ideas', '---\ntitle: Ideas for later\n---\nsome text\n', { base_blob: null });
    const list = await getJson(p, '/api/me/personal-knowledge/notes');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.items.map((n: { slug: string; title: string }) => [n.slug, n.title]).sort()).toEqual([
      ['ideas', 'Ideas for later'],
      ['reading-list', 'Reading list'],
    ]);
    for (const n of list.body.items) expect(n.updated).toBeTruthy();
    expect((await getJson(p, '/api/me/personal-knowledge/notes/no-such-note')).status).toBe(404);
  });

  it('updates with If-Match or base_blob; without one an existing note is 428', async () => {
    const cur = await getJson(p, '/api/me/personal-knowledge/notes/reading-list');
    const noBase = await putNote(p, 'reading-list', '# Reading list\n\nblind\n');
    expect(noBase.status).toBe(428);
    expect(noBase.body.current.blob).toBe(cur.body.blob);

    const viaHeader = await putNote(p, 'reading-list', '# Reading list\n\n- one\n', { message: 'Trim the list' }, { 'If-Match': cur.etag! });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.action).toBe('update');
    expect(host.logOnHost('nora')[0]).toBe('Update note reading-list');
    const same = await putNote(p, 'reading-list', '# Reading list\n\n- one\n', { base_blob: viaHeader.body.blob });
    expect(same.body).toMatchObject({ action: 'unchanged', blob: viaHeader.body.blob });
    expect(host.logOnHost('nora')[0]).toBe('Update note reading-list'); // no empty commit

    const badHeader = await putNote(p, 'reading-list', 'x', {}, { 'If-Match': 'W/"nope"' });
    expect(badHeader.status).toBe(422);
    expect(badHeader.body.detail[0].loc).toEqual(['header', 'if-match']);
  });

  it('refuses to overwrite a change made on the host meanwhile: 409 with both versions, nothing written', async () => {
    const read = await getJson(p, '/api/me/personal-knowledge/notes/reading-list');
    host.commitOnHost('nora', 'notes/reading-list.md', '# Reading list\n\n- one\n- added on the host\n', 'Edit on the host');
    const w = await putNote(p, 'reading-list', '# Reading list\n\n- one\n- added through the service\n', { base_blob: read.body.blob });
    expect(w.status).toBe(409);
    expect(w.body.detail).toMatch(/changed since you read it/);
    expect(w.body.current).toMatchObject({ slug: 'reading-list', content: '# Reading list\n\n- one\n- added on the host\n' });
    expect(w.body.current.blob).not.toBe(read.body.blob);
    expect(w.body.yours).toMatchObject({ slug: 'reading-list', base_blob: read.body.blob, content: '# Reading list\n\n- one\n- added through the service\n' });
    expect(host.readOnHost('nora', 'notes/reading-list.md')).toBe('# Reading list\n\n- one\n- added on the host\n');
    expect(host.logOnHost('nora')[0]).toBe('Edit on the host');

    // Merged by the client and sent with the current blob id, it goes through.
    const merged = await putNote(p, 'reading-list', '# Reading list\n\n- one\n- added on the host\n- added through the service\n', { base_blob: w.body.current.blob });
    expect(merged.status).toBe(200);

    // Creating a note that appeared on the host in between is a conflict too.
    host.commitOnHost('nora', 'notes/from-host.md', '# From the host\n', 'Add on the host');
    const create = await putNote(p, 'from-host', '# Mine\n', { base_blob: null });
    expect(create.status).toBe(409);
    expect(create.body.current.content).toBe('# From the host\n');
  });

  it('a host change racing the push: the write is decided again on the new state', async () => {
    const cur = await getJson(p, '/api/me/personal-knowledge/notes/reading-list');
    // Another note changes in between: ours goes on top of it.
    host.onNextPush = () => host.commitOnHost('nora', 'notes/race-other.md', '# Other\n', 'Race: another note');
    const ok = await putNote(p, 'reading-list', `${cur.body.content}- after a race\n`, { base_blob: cur.body.blob });
    expect(ok.status).toBe(200);
    expect(host.logOnHost('nora').slice(0, 2)).toEqual(['Update note reading-list', 'Race: another note']);
    // The same note changes in between: nothing is overwritten, 409 with the host's version.
    host.onNextPush = () => host.commitOnHost('nora', 'notes/reading-list.md', '# Reading list\n\nraced\n', 'Race: same note');
    const lost = await putNote(p, 'reading-list', '# Reading list\n\nmine\n', { base_blob: ok.body.blob });
    expect(lost.status).toBe(409);
    expect(lost.body.current.content).toBe('# Reading list\n\nraced\n');
    expect(host.readOnHost('nora', 'notes/reading-list.md')).toBe('# Reading list\n\nraced\n');
    expect((await getJson(p, '/api/me/personal-knowledge')).body.unpushed_commits).toBe(0);
  });

  it('reads the host change within the pull interval (here 0 s)', async () => {
    host.commitOnHost('nora', 'notes/ideas.md', '# Ideas, edited elsewhere\n', 'Rename ideas');
    const r = await getJson(p, '/api/me/personal-knowledge/notes/ideas');
    expect(r.body).toMatchObject({ title: 'Ideas, edited elsewhere', stale: false });
  });

  it('deletes a note in one commit (If-Match checked when sent)', async () => {
    const cur = await getJson(p, '/api/me/personal-knowledge/notes/ideas');
    const stale = await p.api('/api/me/personal-knowledge/notes/ideas', { method: 'DELETE', headers: { 'If-Match': `"${'0'.repeat(40)}"` } });
    expect(stale.status).toBe(409);
    const del = await p.api('/api/me/personal-knowledge/notes/ideas', { method: 'DELETE', headers: { 'If-Match': cur.etag! } });
    expect(del.status).toBe(200);
    expect(await del.json()).toMatchObject({ slug: 'ideas', action: 'delete', pushed: true, blob: null });
    expect(host.readOnHost('nora', 'notes/ideas.md')).toBeNull();
    expect(host.logOnHost('nora')[0]).toBe('Delete note ideas');
    expect((await getJson(p, '/api/me/personal-knowledge/notes/ideas')).status).toBe(404);
    expect((await p.api('/api/me/personal-knowledge/notes/ideas', { method: 'DELETE' })).status).toBe(404);
  });

  it('traces history, newest first: slug, action, message, author, time; scoped to a note; limited', async () => {
    const all = await getJson(p, '/api/me/personal-knowledge/history');
    expect(all.status).toBe(200);
    const seen = all.body.map((h: { slug: string; action: string }) => `${h.action} ${h.slug}`);
    expect(seen.slice(0, 3)).toEqual(['delete ideas', 'update ideas', 'update reading-list']);
    expect(seen).toContain('create from-host');
    expect(seen).toContain('create reading-list');
    const times = all.body.map((h: { time: string }) => h.time);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.body[0]).toMatchObject({ author: { name: 'Nora', email: expect.stringMatching(/@users\.noreply\./) }, message: expect.stringMatching(/^Delete note ideas/) });
    expect(all.body[1]).toMatchObject({ author: { name: 'Host Editor', email: 'editor@host.test' }, message: 'Rename ideas' });

    const one = await getJson(p, '/api/me/personal-knowledge/history?slug=reading-list');
    expect(one.body.map((h: { message: string }) => h.message.split('\n')[0])).toEqual([
      'Race: same note',
      'Update note reading-list',
      'Update note reading-list',
      'Edit on the host',
      'Update note reading-list',
      'Create note reading-list',
    ]);
    expect(one.body.map((h: { action: string }) => h.action)).toEqual(['update', 'update', 'update', 'update', 'update', 'create']);
    expect(one.body.every((h: { slug: string }) => h.slug === 'reading-list')).toBe(true);
    expect(one.body[4].message).toMatch(/Trim the list/);

    expect((await getJson(p, '/api/me/personal-knowledge/history?limit=2')).body).toHaveLength(2);
    expect((await getJson(p, '/api/me/personal-knowledge/history?limit=0')).status).toBe(422);
    expect((await getJson(p, '/api/me/personal-knowledge/history?limit=101')).status).toBe(422);
  });

  it('refuses slugs outside the safe alphabet with 422, so nothing can leave notes/', async () => {
    for (const slug of ['..%2F..%2Fetc%2Fpasswd', '..%2Fsecret', '..', '.hidden', 'a%2Fb', 'UPPER', 'x'.repeat(81), 'with%20space', 'dot.md', '-lead']) {
      const res = await p.api(`/api/me/personal-knowledge/notes/${slug}`, { method: 'PUT', json: { content: 'x', base_blob: null } });
      // A bare `..` is resolved away by the URL itself (→ another path, 404); everything else reaches the check.
      if (slug === '..') expect(res.status).toBe(404);
      else {
        expect(res.status, slug).toBe(422);
        expect((await res.json()).detail[0].loc).toEqual(['path', 'slug']);
      }
    }
    expect((await getJson(p, '/api/me/personal-knowledge/notes/..%2F..%2Fetc%2Fpasswd')).status).toBe(422);
    expect((await getJson(p, '/api/me/personal-knowledge/history?slug=..%2Fx')).status).toBe(422);
    expect((await putNote(p, 'x'.repeat(80), 'long but fine', { base_blob: null })).status).toBe(200);
  });

  it('needs a signed-in caller, and a connection', async () => {
    expect((await srv.get('/api/me/personal-knowledge/notes')).status).toBe(401);
    const stranger = await person(srv, 'stranger@example.org');
    expect((await getJson(stranger, '/api/me/personal-knowledge/notes')).status).toBe(404);
    expect((await putNote(stranger, 'x', 'y', { base_blob: null })).status).toBe(404);
  });
});

describe('when the host fails', () => {
  it('a revoked token: 502 with a clear detail, the note kept here, status says reconnect; reconnecting pushes it', async () => {
    const p = await connected('rita');
    expect((await putNote(p, 'before', '# Before\n', { base_blob: null })).status).toBe(200);
    await host.revokeAll('rita');

    const w = await putNote(p, 'during-outage', '# Written while revoked\n', { base_blob: null });
    expect(w.status).toBe(502);
    expect(w.body.host_error).toBe('unauthorized');
    expect(w.body.detail).toMatch(/revoked or has expired.*reconnect.*saved on this server/);
    expect(w.body.saved).toMatchObject({ pushed: false, commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(host.readOnHost('rita', 'notes/during-outage.md')).toBeNull();

    const status = await getJson(p, '/api/me/personal-knowledge');
    expect(status.body).toMatchObject({ connected: true, status: 'reauthorization_required', unpushed_commits: 1, last_error: { kind: 'unauthorized' } });
    // Reads go on from the copy here, marked stale.
    const r = await getJson(p, '/api/me/personal-knowledge/notes/during-outage');
    expect(r.body).toMatchObject({ content: '# Written while revoked\n', stale: true });
    const sync = await p.api('/api/me/personal-knowledge/sync', { method: 'POST' });
    expect(sync.status).toBe(502);

    // Reconnecting keeps the local clone and pushes what waited.
    host.nextLogin = 'rita';
    expect(await connect(p)).toBe('/account?pk=connected');
    expect(host.readOnHost('rita', 'notes/during-outage.md')).toBe('# Written while revoked\n');
    expect((await getJson(p, '/api/me/personal-knowledge')).body).toMatchObject({ status: 'ok', last_error: null, unpushed_commits: 0 });
  });

  it('never drops changes the host has not got without being told: disconnect is 409, switching accounts refused', async () => {
    const p = await connected('vera');
    await host.revokeAll('vera');
    expect((await putNote(p, 'unsent', '# Unsent\n', { base_blob: null })).status).toBe(502);

    const del = await p.api('/api/me/personal-knowledge', { method: 'DELETE' });
    expect(del.status).toBe(409);
    expect((await del.json()).detail).toMatch(/1 change\(s\) are saved on this server.*discard_unpushed=true/);
    expect((await getJson(p, '/api/me/personal-knowledge')).body.connected).toBe(true);

    // Authorizing another host account (another repository) would drop the clone: refused, nothing changes.
    host.createRepo('vera2');
    host.nextLogin = 'vera2';
    expect(await connect(p)).toBe('/account?pk=error&reason=unpushed_changes');
    expect((await getJson(p, '/api/me/personal-knowledge')).body).toMatchObject({ repository: `${host.origin}/vera/notes.git`, unpushed_commits: 1 });

    expect((await p.api('/api/me/personal-knowledge?discard_unpushed=true', { method: 'DELETE' })).status).toBe(204);
    expect((await getJson(p, '/api/me/personal-knowledge')).body.connected).toBe(false);
  });

  it('an expired access token is renewed with the refresh token, silently', async () => {
    const p = await connected('erin');
    const before = (await srv.db.prepare('SELECT token_enc FROM pk_connections WHERE user_id = ?').pluck().get(p.userId)) as Buffer;
    await host.expireAccessTokens('erin');
    const w = await putNote(p, 'after-expiry', '# Fine\n', { base_blob: null });
    expect(w.status).toBe(200);
    expect(host.readOnHost('erin', 'notes/after-expiry.md')).toBe('# Fine\n');
    const after = (await srv.db.prepare('SELECT token_enc FROM pk_connections WHERE user_id = ?').pluck().get(p.userId)) as Buffer;
    expect(after.equals(before)).toBe(false);
    const events = (await (await srv.get(`/api/audit?kind=personal_knowledge.token_refresh&subject_id=${p.userId}`)).json()).items;
    expect(events).toHaveLength(1);
    expect(events[0].actor).toBe('system');
  });

  it('a host that is down: 503 with Retry-After, the note kept here and pushed by the next write', async () => {
    const p = await connected('dana');
    host.down = true;
    try {
      const w = await putNote(p, 'offline', '# Offline\n', { base_blob: null });
      expect(w.status).toBe(503);
      expect(w.headers.get('retry-after')).toBe('30');
      expect(w.body).toMatchObject({ host_error: 'unreachable', saved: { pushed: false } });
      expect(w.body.detail).toMatch(/unreachable.*saved on this server/);
      expect((await getJson(p, '/api/me/personal-knowledge')).body).toMatchObject({ status: 'error', unpushed_commits: 1, last_error: { kind: 'unreachable' } });
      const list = await getJson(p, '/api/me/personal-knowledge/notes');
      expect(list.body).toMatchObject({ total: 1, stale: true });
    } finally {
      host.down = false;
    }
    const next = await putNote(p, 'online', '# Online\n', { base_blob: null });
    expect(next.status).toBe(200);
    expect(host.readOnHost('dana', 'notes/offline.md')).toBe('# Offline\n');
    expect(host.readOnHost('dana', 'notes/online.md')).toBe('# Online\n');
    expect((await getJson(p, '/api/me/personal-knowledge')).body).toMatchObject({ status: 'ok', unpushed_commits: 0 });
  });

  it('a note saved here while the host changed the same note: both kept, ours as a conflict copy', async () => {
    const p = await connected('olga');
    const first = await putNote(p, 'plan', '# Plan v1\n', { base_blob: null });
    host.down = true;
    try {
      expect((await putNote(p, 'plan', '# Plan v2 (offline)\n', { base_blob: first.body.blob })).status).toBe(503);
    } finally {
      host.down = false;
    }
    host.commitOnHost('olga', 'notes/plan.md', '# Plan v2 (host)\n', 'Edit plan on the host');
    const sync = await p.api('/api/me/personal-knowledge/sync', { method: 'POST' });
    expect(sync.status).toBe(200);
    expect(host.readOnHost('olga', 'notes/plan.md')).toBe('# Plan v2 (host)\n');
    const list = await getJson(p, '/api/me/personal-knowledge/notes');
    const copy = list.body.items.find((n: { slug: string }) => n.slug.startsWith('plan-conflict-'));
    expect(copy).toBeTruthy();
    expect(host.readOnHost('olga', `notes/${copy.slug}.md`)).toBe('# Plan v2 (offline)\n');
  });
});
