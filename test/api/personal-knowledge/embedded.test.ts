// The embedded default: with no VCS_* host configured, a bare repository per person on this server plays
// the host. The connect step still runs (begin → this server's own authorize step → callback), and the
// repository is a real one that `git` can clone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { connect, getJson, person, putNote } from './helpers.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true });
});
afterAll(() => srv?.stop());

describe('the embedded note store', () => {
  it('connects through this server\'s own authorize step, with PKCE and the session-bound state', async () => {
    const p = await person(srv, 'laptop@example.org', 'Lap Top');
    expect((await getJson(p, '/api/me/personal-knowledge')).body).toMatchObject({ connected: false, mode: 'embedded', host: 'this server' });
    const begin = await getJson(p, '/api/auth/vcs/begin');
    expect(begin.body.mode).toBe('embedded');
    const url = new URL(begin.body.authorize_url);
    expect(url.pathname).toBe('/api/auth/vcs/embedded/authorize');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');

    // Someone else's browser cannot use this link.
    const other = await person(srv, 'other@example.org');
    expect((await other.browser.request(url.href)).status).toBe(400);
    // A tampered challenge is refused too.
    const tampered = new URL(url);
    tampered.searchParams.set('code_challenge', 'A'.repeat(43));
    expect((await p.browser.request(tampered.href)).status).toBe(400);

    const last = await p.browser.follow(url.href, {}, /\/account\?/);
    expect(last.headers.get('location')).toBe('/account?pk=connected');
    const status = (await getJson(p, '/api/me/personal-knowledge')).body;
    expect(status).toMatchObject({ connected: true, status: 'ok', mode: 'embedded', host: 'this server', branch: 'main', repository: `personal-knowledge/hosted/${p.userId}.git` });
    // No third party, so no token: nothing secret is stored.
    expect(await srv.db.prepare('SELECT token_enc FROM pk_connections WHERE user_id = ?').pluck().get(p.userId)).toBeNull();
  });

  it('writes, reads, lists, traces and deletes notes in a real git repository', async () => {
    const p = await person(srv, 'writer@example.org', 'Writer');
    expect(await connect(p)).toBe('/account?pk=connected');
    const a = await putNote(p, 'first', '# First note\n', { base_blob: null });
    expect(a.body).toMatchObject({ action: 'create', pushed: true });
    const b = await putNote(p, 'first', '# First note, again\n', { base_blob: a.body.blob });
    expect(b.body.action).toBe('update');
    expect((await putNote(p, 'first', '# Stale\n', { base_blob: a.body.blob })).status).toBe(409);
    await putNote(p, 'second', '# Second\n', { base_blob: null });
    expect((await getJson(p, '/api/me/personal-knowledge/notes/first')).body.content).toBe('# First note, again\n');
    expect((await getJson(p, '/api/me/personal-knowledge/notes')).body.items.map((n: { slug: string }) => n.slug).sort()).toEqual(['first', 'second']);
    expect((await p.api('/api/me/personal-knowledge/notes/second', { method: 'DELETE' })).status).toBe(200);
    const history = (await getJson(p, '/api/me/personal-knowledge/history')).body.map((h: { action: string; slug: string }) => `${h.action} ${h.slug}`);
    expect(history).toEqual(['delete second', 'create second', 'update first', 'create first']);

    // The repository is git's own format: clone it and read the note.
    const bare = path.join(srv.dataDir, 'personal-knowledge', 'hosted', `${p.userId}.git`);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-embedded-clone-'));
    execFileSync('git', ['clone', '--quiet', bare, work]);
    expect(fs.readFileSync(path.join(work, 'notes', 'first.md'), 'utf8')).toBe('# First note, again\n');
    expect(fs.existsSync(path.join(work, 'notes', 'second.md'))).toBe(false);
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('disconnect keeps the store (as a host would); connecting again finds the notes', async () => {
    const p = await person(srv, 'again@example.org');
    expect(await connect(p)).toBe('/account?pk=connected');
    await putNote(p, 'kept', '# Kept\n', { base_blob: null });
    expect((await p.api('/api/me/personal-knowledge', { method: 'DELETE' })).status).toBe(204);
    expect((await getJson(p, '/api/me/personal-knowledge/notes')).status).toBe(404);
    expect(await connect(p)).toBe('/account?pk=connected');
    expect((await getJson(p, '/api/me/personal-knowledge/notes/kept')).body.content).toBe('# Kept\n');
  });

  it('runs writes of one person one at a time: concurrent creates of distinct notes all land', async () => {
    const p = await person(srv, 'busy@example.org');
    expect(await connect(p)).toBe('/account?pk=connected');
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => putNote(p, `n${i}`, `# Note ${i}\n`, { base_blob: null })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect((await getJson(p, '/api/me/personal-knowledge/notes')).body.total).toBe(8);
    expect((await getJson(p, '/api/me/personal-knowledge/history?limit=100')).body).toHaveLength(8);
  });

  it('documents every endpoint in /openapi.json', async () => {
    const doc = await (await srv.get('/openapi.json')).json();
    for (const [p, methods] of Object.entries({
      '/api/auth/vcs/begin': ['get'],
      '/api/auth/vcs/callback': ['get'],
      '/api/me/personal-knowledge': ['get', 'delete'],
      '/api/me/personal-knowledge/notes': ['get'],
      '/api/me/personal-knowledge/notes/{slug}': ['get', 'put', 'delete'],
      '/api/me/personal-knowledge/history': ['get'],
    })) {
      for (const m of methods) expect(doc.paths[p]?.[m], `${m} ${p}`).toBeTruthy();
    }
    const slug = doc.paths['/api/me/personal-knowledge/notes/{slug}'].put.parameters.find((x: { name: string }) => x.name === 'slug');
    expect(slug.schema).toMatchObject({ minLength: 1, maxLength: 80 });
    const limit = doc.paths['/api/me/personal-knowledge/history'].get.parameters.find((x: { name: string }) => x.name === 'limit');
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
  });
});
