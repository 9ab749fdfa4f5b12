// Connecting a note repository through a real OAuth provider and git host on loopback: the browser flow,
// the token kept only encrypted, refusals (the host's "no", another session's link), and disconnecting.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../helpers/server.ts';
import { startGitHost, type GitHost } from './git-host.ts';
import { connect, getJson, person, putNote, serverFor } from './helpers.ts';

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

/** Every file under a folder, for searching bytes. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe('connecting a git host', () => {
  it('begins with the host authorize URL: code flow, PKCE S256, state, our callback', async () => {
    const p = await person(srv, 'begin@example.org');
    const res = await p.api('/api/auth/vcs/begin');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ mode: 'remote', host: new URL(host.origin).host, expires_in: 600 });
    const url = new URL(body.authorize_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${host.origin}/auth`);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('client_id')).toBe('kb-notes');
    expect(url.searchParams.get('redirect_uri')).toBe(`${srv.url}/api/auth/vcs/callback`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('scope')).toBe('repo');
    expect(url.searchParams.get('state')).toBe(body.state);
  });

  it('needs a browser session, and a redirect_uri on this site', async () => {
    expect((await srv.get('/api/auth/vcs/begin')).status).toBe(401);
    const p = await person(srv, 'redirect@example.org');
    const bad = await p.api(`/api/auth/vcs/begin?redirect_uri=${encodeURIComponent('https://evil.example/cb')}`);
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail[0].loc).toEqual(['query', 'redirect_uri']);
  });

  it('connects: callback → /account?pk=connected, clone of an empty repository, status reports it', async () => {
    host.createRepo('alice');
    host.nextLogin = 'alice';
    const p = await person(srv, 'alice@example.org', 'Alice');
    const before = await getJson(p, '/api/me/personal-knowledge');
    expect(before.body).toMatchObject({ connected: false, status: 'not_connected', mode: 'remote' });

    expect(await connect(p)).toBe('/account?pk=connected');
    const status = await getJson(p, '/api/me/personal-knowledge');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      connected: true,
      status: 'ok',
      mode: 'remote',
      host: new URL(host.origin).host,
      repository: `${host.origin}/alice/notes.git`,
      branch: 'main',
      last_error: null,
      unpushed_commits: 0,
    });
    expect(Date.parse(status.body.since)).toBeGreaterThan(Date.now() - 60_000);
    expect(status.body.last_sync).toBeTruthy();
    const list = await getJson(p, '/api/me/personal-knowledge/notes');
    expect(list.body).toMatchObject({ items: [], total: 0, stale: false });

    // The repository's git config names the remote but holds no credential.
    const config = fs.readFileSync(path.join(srv.dataDir, 'personal-knowledge', 'clones', `${p.userId}.git`, 'config'), 'utf8');
    expect(config).toContain(`${host.origin}/alice/notes.git`);
    expect(config).not.toMatch(/token|password|@127/i);

    // The connect is in the audit log, as the person's act, without the repository URL (it names the account).
    const events = (await (await srv.get('/api/audit?kind=personal_knowledge.connect&limit=200')).json()).items;
    const mine = events.filter((e: { subject_id: string }) => e.subject_id === p.userId);
    expect(mine).toHaveLength(1);
    expect(JSON.stringify(mine[0])).not.toContain('alice/notes');
  });

  it('keeps the token only encrypted: not in any table, not in any file under DATA_DIR', async () => {
    host.createRepo('tina');
    host.nextLogin = 'tina';
    const p = await person(srv, 'tina@example.org');
    expect(await connect(p)).toBe('/account?pk=connected');
    expect((await putNote(p, 'secret-test', '# Hi\n', { base_blob: null })).status).toBe(200);

    const tokens = host.issuedTokens('tina');
    expect(tokens.length).toBeGreaterThanOrEqual(2); // an access and a refresh token at least
    // Every text and blob cell of every table.
    const tables = (await srv.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()) as string[];
    let cells = '';
    for (const t of tables) {
      for (const row of (await srv.db.prepare(`SELECT * FROM "${t}"`).all()) as Record<string, unknown>[]) {
        for (const v of Object.values(row)) cells += Buffer.isBuffer(v) ? v.toString('latin1') + v.toString('hex') : String(v);
        cells += '\n';
      }
    }
    const row = (await srv.db.prepare('SELECT * FROM pk_connections WHERE user_id = ?').get(p.userId)) as Record<string, any>;
    expect(Buffer.isBuffer(row.token_enc)).toBe(true);
    expect(row.token_enc.length).toBeGreaterThan(29);
    (srv.db as unknown as { raw: { pragma(s: string): unknown } }).raw.pragma('wal_checkpoint(TRUNCATE)');
    const files = filesUnder(srv.dataDir).map((f) => fs.readFileSync(f).toString('latin1'));
    for (const token of tokens) {
      expect(cells).not.toContain(token);
      for (const content of files) expect(content.includes(token)).toBe(false);
    }
    // Over the wire the token goes in an Authorization header, never in a URL.
    const gitCalls = host.requests.filter((r) => r.url.startsWith('/tina/'));
    expect(gitCalls.length).toBeGreaterThan(0);
    for (const r of gitCalls) {
      expect(r.auth).toMatch(/^Basic /);
      for (const token of tokens) expect(r.url).not.toContain(token);
    }
    // And the key file beside it is private.
    expect(fs.statSync(path.join(srv.dataDir, 'keys', 'personal-knowledge.key')).mode & 0o777).toBe(0o600);
  });

  it('stores nothing when the person declines at the host: /account?pk=error&reason=access_denied', async () => {
    const p = await person(srv, 'decline@example.org');
    host.denyNext = true;
    expect(await connect(p)).toBe('/account?pk=error&reason=access_denied');
    expect((await getJson(p, '/api/me/personal-knowledge')).body.connected).toBe(false);
    expect(await srv.db.prepare('SELECT COUNT(*) FROM pk_connections WHERE user_id = ?').pluck().get(p.userId)).toBe(0);
    expect(await srv.db.prepare('SELECT COUNT(*) FROM pk_connect_flows WHERE user_id = ?').pluck().get(p.userId)).toBe(0);
  });

  it('refuses a callback in another session (a link begun by someone else connects nothing), and a replay', async () => {
    host.createRepo('mallory');
    host.nextLogin = 'mallory';
    const attacker = await person(srv, 'mallory@example.org');
    const victim = await person(srv, 'victim@example.org');
    const { authorize_url } = await (await attacker.api('/api/auth/vcs/begin')).json();
    // The attacker authorizes at the host, then hands the callback URL to the victim's browser.
    const atCallback = await attacker.browser.follow(authorize_url, {}, /\/api\/auth\/vcs\/callback/);
    const callbackUrl = new URL(atCallback.headers.get('location')!, srv.url).href;
    const r = await victim.browser.request(callbackUrl);
    expect(r.headers.get('location')).toBe('/account?pk=error&reason=session_mismatch');
    expect((await getJson(victim, '/api/me/personal-knowledge')).body.connected).toBe(false);
    // The flow was single-use: the attacker's own browser cannot finish it any more either.
    const replay = await attacker.browser.request(callbackUrl);
    expect(replay.headers.get('location')).toBe('/account?pk=error&reason=expired');
    expect((await getJson(attacker, '/api/me/personal-knowledge')).body.connected).toBe(false);
  });

  it('reports a repository the host does not have, and keeps nothing', async () => {
    host.nextLogin = 'nobody';
    const p = await person(srv, 'norepo@example.org');
    expect(await connect(p)).toBe('/account?pk=error&reason=repository_not_found');
    expect((await getJson(p, '/api/me/personal-knowledge')).body.connected).toBe(false);
    expect(fs.existsSync(path.join(srv.dataDir, 'personal-knowledge', 'clones', `${p.userId}.git`))).toBe(false);
    // The tokens the host just issued are handed back: we keep nothing, so neither should it.
    expect(await host.liveTokenCount(host.issuedTokens('nobody'))).toBe(0);
  });

  it('disconnects: 204, the token and the local clone are erased, the host revokes the token', async () => {
    host.createRepo('dora');
    host.nextLogin = 'dora';
    const p = await person(srv, 'dora@example.org');
    expect(await connect(p)).toBe('/account?pk=connected');
    expect((await putNote(p, 'keep-me', '# Kept at the host\n', { base_blob: null })).status).toBe(200);
    const clone = path.join(srv.dataDir, 'personal-knowledge', 'clones', `${p.userId}.git`);
    expect(fs.existsSync(clone)).toBe(true);
    const live = host.issuedTokens('dora');
    expect(await host.liveTokenCount(live)).toBeGreaterThan(0);

    const del = await p.api('/api/me/personal-knowledge', { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(fs.existsSync(clone)).toBe(false);
    expect(await srv.db.prepare('SELECT COUNT(*) FROM pk_connections WHERE user_id = ?').pluck().get(p.userId)).toBe(0);
    expect((await getJson(p, '/api/me/personal-knowledge')).body).toMatchObject({ connected: false, status: 'not_connected' });
    expect((await getJson(p, '/api/me/personal-knowledge/notes')).status).toBe(404);
    // The notes stay where they belong, at the host; the tokens we held no longer open it.
    expect(host.readOnHost('dora', 'notes/keep-me.md')).toBe('# Kept at the host\n');
    expect(await host.liveTokenCount(live)).toBe(0);
    // Disconnecting again is fine.
    expect((await p.api('/api/me/personal-knowledge', { method: 'DELETE' })).status).toBe(204);
  });
});
