// An editor's change reaches the site (issue 41): with `npm start` running (the server and its scheduler,
// every cron schedule off), files changed in CONTENT_DIR are published by update-index and rebuild-site
// without a restart and without a schedule: an essay added, a concept's body edited, a video deleted, a
// channel renamed, each served within 10 s everywhere it shows (page, API document, Markdown twin, lists,
// tags, keyword and hybrid search, related items, the briefing); a git pull of 200 files runs one chain; a
// file that fails validation leaves the rest published and its previous version served, named by
// `npm run pipeline -- status` and the briefing. Where content arrives by other means, an admin's
// POST /api/admin/content-changed runs the same chain.
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { npmStart as startNpm, stopGroup } from '../helpers/pipeline.ts';
import { fixtureContent } from '../helpers/content.ts';
import { databaseTarget, openDatabase } from '../../src/lib/data/db/index.ts';
import { auditOrigin, createAuditLog } from '../../src/lib/data/audit/index.ts';
import { createIdentity } from '../../src/lib/data/identity/index.ts';

let root: string;
const roots: string[] = [];
const children: ChildProcess[] = [];
const dirs = () => ({ CONTENT_DIR: path.join(root, 'content'), DIST_DIR: path.join(root, 'dist'), DATA_DIR: path.join(root, 'var') });
const content = (...p: string[]) => path.join(dirs().CONTENT_DIR, ...p);
const ADMIN = 'admin@example.com';
/** What an editor's git pull brings: 200 new video files, on a branch of the content's repository. */
const PULLED = Array.from({ length: 200 }, (_, i) => `gitPull${String(i).padStart(4, '0')}`);
const git = (...args: string[]) => execFileSync('git', ['-C', dirs().CONTENT_DIR, '-c', 'user.name=Editor', '-c', 'user.email=editor@example.com', ...args], { stdio: 'pipe' });

/** A content folder of its own for each test (a git repository, as editors keep it), its DATA_DIR beside. */
function freshRoot(): void {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-content-changes-'));
  roots.push(root);
  fs.cpSync(fixtureContent(), dirs().CONTENT_DIR, { recursive: true });
  // Not a first start: no first-start jobs (they would draft concepts into the folder this test changes).
  fs.mkdirSync(path.join(dirs().DATA_DIR, 'pipeline'), { recursive: true });
  fs.writeFileSync(path.join(dirs().DATA_DIR, 'pipeline', 'status.json'), '{"jobs":{}}\n');
  // The content is a git repository, as editors keep it; the branch `editors` holds 200 more videos.
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'content');
  git('checkout', '-q', '-b', 'editors');
  for (const [i, id] of PULLED.entries()) {
    fs.writeFileSync(
      content('videos', `${id}.md`),
      `---\nvideo_id: ${id}\ntitle: "Pulled video ${i}"\ndate: 2026-10-01\nchannel: ops-casebook\nlanguage: en\ntags: [operations]\nsummary: "A video an editor's pull brought."\nthumbnail_url: https://i.ytimg.com/vi/${id}/hqdefault.jpg\nurl: https://www.youtube.com/watch?v=${id}\nhighlight: false\n---\n`,
    );
  }
  git('add', '-A');
  git('commit', '-q', '-m', '200 videos');
  git('checkout', '-q', 'main');
}
beforeEach(freshRoot);
afterAll(async () => {
  for (const c of children) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

const npmStart = (env: Record<string, string>) => startNpm({ ...dirs(), ...env, ADMIN_EMAILS: ADMIN }, children);

/** Polls `probe` until it answers without throwing; the time it took from `since`. Fails with its last error after `ms`. */
async function within(ms: number, since: number, probe: () => Promise<void>): Promise<number> {
  for (;;) {
    try {
      await probe();
      return Date.now() - since;
    } catch (err) {
      if (Date.now() - since > ms) throw err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

type Hit = { type: string; id: string; title: string };
async function reader(base: string) {
  const get = (p: string) => fetch(`${base}${p}`);
  const json = async <T = Record<string, unknown>>(p: string, status = 200): Promise<T> => {
    const res = await get(p);
    if (res.status !== status) throw new Error(`${p}: ${res.status}, not ${status}`);
    return (await res.json()) as T;
  };
  const text = async (p: string, status = 200): Promise<string> => {
    const res = await get(p);
    if (res.status !== status) throw new Error(`${p}: ${res.status}, not ${status}`);
    return res.text();
  };
  const search = async (q: string, hybrid: boolean) =>
    (await json<{ hits: Hit[] }>(`/api/search?q=${encodeURIComponent(q)}&hybrid=${hybrid}&limit=50`)).hits.map((h) => `${h.type}:${h.id}`);
  return { get, json, text, search };
}

/** After the invalid edit: both invalid files named with why and what is served, and the essay's previous version served everywhere. */
async function expectInvalidEssayKept(r: Awaited<ReturnType<typeof reader>>, gone: string): Promise<void> {
  const latest = await r.json<{ freshness: { pipeline_status: { invalid_file_count: number; invalid_files: unknown[] } } }>('/api/latest');
  // Named with why and what is served: the essay at its previous version, and (since the video was
  // deleted) the concept that cited it, published without the citation.
  expect(latest.freshness.pipeline_status.invalid_file_count).toBe(2);
  expect(latest.freshness.pipeline_status.invalid_files).toEqual([
    { path: 'essays/editors-live-essay/en.md', reason: expect.stringMatching(/^title: /), served: 'previous' },
    { path: 'knowledge/eu-ai-act-deployer-obligations.md', reason: `sources: unknown video "${gone}"; body: link /videos/${gone} points at nothing`, served: 'current' },
  ]);
  // Its previous version stays served, everywhere.
  expect((await r.json<{ title: string; content: string }>('/api/essays/editors-live-essay')).content).toContain('zephyrquokka');
  expect(await r.text('/essays/editors-live-essay')).toContain('Editors publish live');
  expect(await r.search('zephyrquokka', false)).toContain('essay:editors-live-essay');
  expect(await r.search('brokenedit', false)).not.toContain('essay:editors-live-essay');
  const status = pipelineStatus();
  expect(status).toMatch(/content: 2 files failed validation/);
  expect(status).toMatch(/essays\/editors-live-essay\/en\.md: title: .*\(its last valid version is published\)/);
}

/** A failed attempt says what the service said last: CI retries a failed test, and shows only the last attempt's error. */
function reportFailure(err: unknown, output: string): void {
  console.error(`attempt failed: ${(err as Error).message}\n--- npm start's output, last 6,000 characters ---\n${output.slice(-6000)}`);
}

function ensure(ok: unknown, what: string): void {
  if (!ok) throw new Error(`not yet: ${what}`);
}

const pipelineStatus = () => {
  const { BASE_URL: _vite, ...inherited } = process.env;
  const r = spawnSync('npm', ['run', 'pipeline', '--', 'status'], { env: { ...inherited, ...dirs(), KB_NODE_QUIET: '1' }, encoding: 'utf8' });
  return r.stdout + r.stderr;
};

// Each test bounds its own waits (10 s a change, as the issue asks; 90 s for the pull); the test's timeout is
// the sum of those bounds, so that a slow machine fails on the bound it missed, never on a 60 s default that
// this journey (~40 s on a quiet machine) can reach under load.
describe('an editor’s change in CONTENT_DIR reaches the site while npm start runs', () => {
  it('publishes added, edited, deleted and renamed items within 10 s, a git pull in one chain, and keeps an invalid file’s previous version', async () => {
    const s = await npmStart({ PIPELINE_WATCH_SCAN_SECONDS: '2' });
    const r = await reader(s.url);
    const chains = () => (s.output().match(/pipeline: update-index ok/g) ?? []).length;
    try {
      await within(30_000, Date.now(), async () => ensure(/pipeline: watching .* for changes/.test(s.output()), 'the scheduler watching'));

      // An essay added (a new folder, as a copy or a pull brings it), with a tag no other item carries.
      let t = Date.now();
      fs.mkdirSync(content('essays', 'editors-live-essay'));
      fs.writeFileSync(
        content('essays', 'editors-live-essay', 'en.md'),
        '---\ntitle: "Editors publish live"\ndate: 2026-11-25\ndescription: "An essay added while the service runs."\ntags: [editorial-live]\n---\nThe zephyrquokka method of publishing: an editor saves, the site follows.\n',
      );
      const essayMs = await within(10_000, t, async () => {
        ensure((await r.text('/essays/editors-live-essay')).includes('Editors publish live'), 'the page');
        ensure((await r.json<{ title: string }>('/api/essays/editors-live-essay')).title === 'Editors publish live', 'the API document');
        ensure((await r.text('/essays/editors-live-essay.md')).includes('zephyrquokka'), 'the Markdown twin');
        ensure((await r.json<{ items: { slug: string }[] }>('/api/essays')).items.some((e) => e.slug === 'editors-live-essay'), 'the list of essays');
        ensure((await r.json<{ items: { tag: string }[] }>('/api/tags')).items.some((x) => x.tag === 'editorial-live'), 'the tag list');
        ensure((await r.text('/tags/editorial-live')).includes('Editors publish live'), 'the tag page');
        ensure((await r.search('zephyrquokka', false)).includes('essay:editors-live-essay'), 'keyword search');
        ensure((await r.search('zephyrquokka', true)).includes('essay:editors-live-essay'), 'hybrid search');
        ensure((await r.json<{ hits: Hit[] }>('/api/essays/editors-live-essay/related')).hits.length > 0, 'related items');
        const latest = await r.json<{ latest_essays: { slug: string }[]; stats: { essays: number } }>('/api/latest');
        ensure(latest.latest_essays[0]?.slug === 'editors-live-essay', 'the briefing');
      });
      expect(essayMs).toBeLessThan(10_000);

      // A concept's body edited.
      t = Date.now();
      const concept = content('knowledge', 'llmops.md');
      fs.writeFileSync(concept, `${fs.readFileSync(concept, 'utf8').trimEnd()}\n\nTeams that run models keep a flibbertigibbet ledger of every prompt change.\n`);
      // Saved again within the quiet period, after update-index's worker has loaded the content (it does as
      // the first change is seen): the run publishes the second save too, since it lists the folder again.
      await new Promise((res) => setTimeout(res, 600));
      fs.appendFileSync(concept, '\nA gallimaufry of reviews follows each change.\n');
      const conceptMs = await within(10_000, t, async () => {
        ensure((await r.text('/knowledge/llmops')).includes('gallimaufry'), 'the page, as saved the second time');
        ensure((await r.json<{ body: string }>('/api/knowledge/llmops')).body.includes('flibbertigibbet'), 'the API document');
        ensure((await r.text('/knowledge/llmops.md')).includes('flibbertigibbet'), 'the Markdown twin');
        ensure((await r.search('flibbertigibbet', false)).includes('knowledge:llmops'), 'keyword search');
        ensure((await r.search('flibbertigibbet ledger', true)).includes('knowledge:llmops'), 'hybrid search');
        ensure((await r.json<{ hits: Hit[] }>('/api/knowledge/llmops/related')).hits.length > 0, 'related items');
      });
      expect(conceptMs).toBeLessThan(10_000);

      // A video deleted: one a concept cites, among the newest (the briefing lists it).
      const gone = '1iL8WhMgIDR';
      const { title: goneTitle } = await r.json<{ title: string }>(`/api/videos/${gone}`);
      expect((await r.json<{ latest_videos: { video_id: string }[] }>('/api/latest')).latest_videos.map((v) => v.video_id)).toContain(gone);
      const videoCount = (await r.json<{ total: number }>('/api/videos')).total;
      t = Date.now();
      fs.rmSync(content('videos', `${gone}.md`));
      const deleteMs = await within(10_000, t, async () => {
        await r.text(`/videos/${gone}`, 404);
        await r.json(`/api/videos/${gone}`, 404);
        await r.text(`/videos/${gone}.md`, 404);
        await r.json(`/api/videos/${gone}/related`, 404);
        const list = await r.json<{ total: number; items: { video_id: string }[] }>('/api/videos?limit=200');
        ensure(list.total === videoCount - 1 && !list.items.some((v) => v.video_id === gone), 'the list of videos');
        ensure(!(await r.json<{ items: { video_id: string }[] }>('/api/videos?tag=eu-ai-act&limit=200')).items.some((v) => v.video_id === gone), 'its tag');
        ensure(!(await r.json<{ videos: { items: { video_id: string }[] } }>('/api/channels/ai-rulebook')).videos.items.some((v) => v.video_id === gone), 'its channel');
        ensure(!(await r.search(goneTitle, false)).includes(`video:${gone}`), 'keyword search');
        ensure(!(await r.search(goneTitle, true)).includes(`video:${gone}`), 'hybrid search');
        const citing = await r.json<{ sources: { id?: string }[] }>('/api/knowledge/eu-ai-act-deployer-obligations');
        ensure(!citing.sources.some((x) => x.id === gone), 'the concept that cited it');
        ensure(!(await r.json<{ hits: Hit[] }>('/api/knowledge/eu-ai-act-deployer-obligations/related')).hits.some((h) => h.id === gone), 'related items');
        const latest = await r.json<{ latest_videos: { video_id: string }[]; stats: { total_videos: number } }>('/api/latest');
        ensure(!latest.latest_videos.some((v) => v.video_id === gone) && latest.stats.total_videos === videoCount - 1, 'the briefing');
      });
      expect(deleteMs).toBeLessThan(10_000);

      // A channel's title (its name) changed.
      t = Date.now();
      const channel = content('channels', 'ops-casebook.md');
      fs.writeFileSync(channel, fs.readFileSync(channel, 'utf8').replace(/^name: .*$/m, 'name: The Operations Notebook'));
      const renameMs = await within(10_000, t, async () => {
        ensure((await r.text('/channels/ops-casebook')).includes('The Operations Notebook'), 'the page');
        ensure((await r.json<{ name: string }>('/api/channels/ops-casebook')).name === 'The Operations Notebook', 'the API document');
        ensure((await r.text('/channels/ops-casebook.md')).includes('The Operations Notebook'), 'the Markdown twin');
        ensure((await r.json<{ items: { channel_id: string; name: string }[] }>('/api/channels')).items.find((c) => c.channel_id === 'ops-casebook')?.name === 'The Operations Notebook', 'the list of channels');
        const { items } = await r.json<{ items: { video_id: string; channel: { name: string } }[] }>('/api/videos?channel=ops-casebook&limit=1');
        ensure(items[0]?.channel.name === 'The Operations Notebook', 'its videos');
        ensure((await r.text(`/videos/${items[0].video_id}`)).includes('The Operations Notebook'), 'its videos’ pages');
      });
      expect(renameMs).toBeLessThan(10_000);

      // A change made while a run is under way (its index already taken) is published by one more run after it.
      const runs = chains();
      const digest = content('digests', '2026-11-20.md');
      fs.writeFileSync(digest, fs.readFileSync(digest, 'utf8').replace(/^(# .*)$/m, '$1 (first edit)'));
      // update-index is done, rebuild-site (~2 s) runs: the next edit is not in what this run publishes.
      await within(30_000, Date.now(), async () => ensure(chains() > runs, 'update-index of the first edit'));
      t = Date.now();
      fs.writeFileSync(concept, fs.readFileSync(concept, 'utf8').replace('flibbertigibbet ledger', 'flibbertigibbet ledger and a marmalade log'));
      await within(20_000, t, async () => {
        ensure((await r.json<{ title: string }>('/api/digests/2026-11-20')).title.endsWith('(first edit)'), 'the first edit');
        ensure((await r.json<{ body: string }>('/api/knowledge/llmops')).body.includes('marmalade'), 'the edit made during the run');
      });
      expect(chains() - runs).toBe(2);

      // An editor's git pull of 200 files: one chain.
      const before = chains();
      t = Date.now();
      git('merge', '-q', '--ff-only', 'editors');
      await within(90_000, t, async () => {
        ensure((await r.json<{ total: number }>('/api/videos?channel=ops-casebook')).total >= 200, 'the pulled videos');
        await r.text(`/videos/${PULLED[199]}`);
      });
      // Quiet for longer than the quiet period and a scan: nothing else runs.
      await new Promise((res) => setTimeout(res, 5000));
      expect(chains() - before, s.output()).toBe(1);

      // An invalid file: the essay's title removed in the same change as another edit of the concept.
      t = Date.now();
      const essay = content('essays', 'editors-live-essay', 'en.md');
      fs.writeFileSync(essay, fs.readFileSync(essay, 'utf8').replace(/^title: .*\n/m, '').replace('zephyrquokka', 'brokenedit'));
      fs.writeFileSync(concept, `${fs.readFileSync(concept, 'utf8').trimEnd()}\n\nA second note on quillwort reviews.\n`);
      // The issue bounds the four changes above at 10 s; an invalid file's bound is that it is published at all.
      const invalidMs = await within(30_000, t, async () => {
        ensure((await r.json<{ body: string }>('/api/knowledge/llmops')).body.includes('quillwort'), 'the rest of the change');
        const latest = await r.json<{ freshness: { pipeline_status: { invalid_files: { path: string; reason: string; served: string }[] } } }>('/api/latest');
        // The concept that cited the deleted video is named since the deletion: wait for the essay.
        ensure(latest.freshness.pipeline_status.invalid_files.some((f) => f.path === 'essays/editors-live-essay/en.md'), 'the briefing names the invalid file');
      });
      console.log(`served after: essay ${essayMs} ms, concept ${conceptMs} ms, deletion ${deleteMs} ms, rename ${renameMs} ms, invalid file ${invalidMs} ms`);
      await expectInvalidEssayKept(r, gone);
      expect(s.output()).toMatch(/update-index: essays\/editors-live-essay\/en\.md fails validation \(title: /);
    } catch (err) {
      reportFailure(err, s.output());
      throw err;
    } finally {
      await stopGroup(s.child.pid!);
    }
  }, 300_000);

  it('runs the same chain for an admin’s POST /api/admin/content-changed (401/403 without the right credential, 202 with it)', async () => {
    // Keys for an admin and for someone else, made in the database the server reads.
    const db = await openDatabase(databaseTarget({ dataDir: dirs().DATA_DIR }));
    const audit = await createAuditLog(db, { dataDir: dirs().DATA_DIR, origin: auditOrigin('http://localhost:4321'), checkpointEvery: 100, checkpointIntervalSeconds: 60 });
    const identity = createIdentity(db, audit, { keyPrefix: 'kb_', adminEmails: [ADMIN], moderatorEmails: [], sessionTtlHours: 24, sessionIdleHours: 24 });
    const key = async (email: string) => (await identity.createApiKey((await identity.signIn({ issuer: 'https://idp.test', subject: email, email, emailVerified: true })).user.id, { name: 'hook', expiresAt: null })).secret;
    const adminKey = await key(ADMIN);
    const userKey = await key('editor@example.com');
    await audit.stop();
    await db.close();

    // Watching off: only the request publishes the change.
    const s = await npmStart({ PIPELINE_WATCH: 'off' });
    const r = await reader(s.url);
    const trigger = (headers: Record<string, string> = {}) => fetch(`${s.url}/api/admin/content-changed`, { method: 'POST', headers });
    try {
      await within(30_000, Date.now(), async () => ensure(/pipeline: scheduler running/.test(s.output()), 'the scheduler'));
      expect(s.output()).not.toMatch(/pipeline: watching/);
      const concept = content('knowledge', 'guardrails.md');
      fs.writeFileSync(concept, `${fs.readFileSync(concept, 'utf8').trimEnd()}\n\nPublished by a hook: the xylocarp review.\n`);
      expect((await trigger()).status).toBe(401);
      expect((await trigger({ Authorization: 'Bearer kb_not-a-key' })).status).toBe(401);
      const refused = await trigger({ Authorization: `Bearer ${userKey}` });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ detail: 'Requires the admin role' });
      // Nothing ran for those.
      await new Promise((res) => setTimeout(res, 3000));
      expect((await r.json<{ body: string }>('/api/knowledge/guardrails')).body).not.toContain('xylocarp');

      const t = Date.now();
      const res = await trigger({ Authorization: `Bearer ${adminKey}` });
      expect(res.status).toBe(202);
      expect(await res.json()).toMatchObject({ request_id: expect.any(Number), queued: ['update-index', 'rebuild-site'] });
      const ms = await within(15_000, t, async () => {
        ensure((await r.json<{ body: string }>('/api/knowledge/guardrails')).body.includes('xylocarp'), 'the API document');
        ensure((await r.text('/knowledge/guardrails')).includes('xylocarp'), 'the page');
        ensure((await r.search('xylocarp', false)).includes('knowledge:guardrails'), 'search');
      });
      expect(ms).toBeLessThan(15_000);
      // The request is an audit event, as every write is.
      const events = await r.json<{ items: { kind: string; subject_type: string }[] }>('/api/audit?kind=pipeline.content_changed');
      expect(events.items).toEqual([expect.objectContaining({ kind: 'pipeline.content_changed', subject_type: 'pipeline' })]);
    } catch (err) {
      reportFailure(err, s.output());
      throw err;
    } finally {
      await stopGroup(s.child.pid!);
    }
  }, 120_000);
});
