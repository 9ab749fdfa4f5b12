// The incremental path against the full one: ingest brings new videos, an editor changes one video and
// deletes another, the index and the site are updated incrementally (as the scheduler chains them) — and
// the result must be exactly what a full build of the same content makes: the same dist/client files,
// byte for byte, and the same search hits. Also: a running server applies the incremental build by
// replacing only the files it wrote or removed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { JOBS, followUps } from '../../pipeline/lib/jobs.ts';
import { runJob } from '../../pipeline/lib/run-job.ts';
import { runChain } from '../../pipeline/lib/chain.ts';
import { jobContext } from '../../pipeline/lib/context.ts';
import { readStatus } from '../../pipeline/lib/status.ts';
import { buildSite } from '../../src/lib/static-build/full.ts';
import { buildSiteIncremental } from '../../src/lib/static-build/incremental.ts';
import { renderStats, stagingFolder } from '../../src/lib/static-build/render.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { buildSearchIndex, loadSearchIndex, resolveEmbedderSetting, SearchService, type EmbedderSetting } from '../../src/lib/search/index.ts';
import { urlPathForDistFile } from '../../src/lib/representation.ts';
import { readManifest } from '../../src/lib/search/manifest.ts';
import { startTestServer, walk, type TestServer } from '../helpers/server.ts';
import { atomFeed, startFeedHost, type FeedHost } from './feeds.ts';

let host: FeedHost;
let root: string;
const dirs = (dist = 'dist', data = 'var') => ({
  CONTENT_DIR: path.join(root, 'content'),
  DATA_DIR: path.join(root, data),
  DIST_DIR: path.join(root, dist),
  BASE_URL: 'http://kb.test',
  ALLOW_DEV_IDP: 'true',
});
const env = (dist?: string, data?: string) => ({ ...process.env, ...dirs(dist, data) });
const quiet = (d?: string, data?: string) => ({ ...jobContext({}, env(d, data)), log: () => {} });
async function job(name: string) {
  const r = await runJob(name, quiet(), JOBS[name].run);
  expect(r.ok, `${name}: ${r.error}`).toBe(true);
  return r;
}
const videoFile = (id: string) => path.join(dirs().CONTENT_DIR, 'videos', `${id}.md`);

/** A video no other file links to, so it can be deleted without breaking the content's links. */
function unreferencedVideo(except: string[]): string {
  const all = fs.readdirSync(path.join(dirs().CONTENT_DIR, 'videos')).map((f) => f.replace(/\.md$/, ''));
  const others = walk(dirs().CONTENT_DIR).filter((f) => !f.startsWith('videos/')).map((f) => fs.readFileSync(path.join(dirs().CONTENT_DIR, f), 'utf8')).join('\n');
  const id = all.find((v) => !except.includes(v) && !others.includes(v));
  if (!id) throw new Error('the corpus has no unreferenced video');
  return id;
}

const embedding = (): Promise<EmbedderSetting> => resolveEmbedderSetting(quiet().config.embedding, () => {});
const QUERIES = ['agents', 'governance', 'fresh talk operations', 'adoption stalled managers', 'evaluation', 'edited headline', 'umetna inteligenca', 'roi'];

async function keywordIds(dataDir: string, contentDir: string, q: string): Promise<string[]> {
  const snap = loadSnapshot(contentDir);
  const index = await loadSearchIndex(path.join(dataDir, 'index'), await embedding());
  const svc = new SearchService(snap, index);
  const r = await svc.search({ q, hybrid: false, draft: true, limit: 100_000, agent: false });
  return r.hits.map((h) => `${h.type}:${h.id}`).sort();
}

/** Whether no process with this id is running (a render process that ended). */
const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

let edited: string;
let deleted: string;
let srv: TestServer;

beforeAll(async () => {
  host = await startFeedHost();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-incremental-'));
  generateCorpus({ dir: dirs().CONTENT_DIR, videos: 40, seed: 5 });
  for (const f of fs.readdirSync(path.join(dirs().CONTENT_DIR, 'channels'))) {
    const id = f.replace(/\.md$/, '');
    const file = path.join(dirs().CONTENT_DIR, 'channels', f);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^feed_url: .*$/m, `feed_url: ${host.url}/feeds/${id}.xml`));
    host.feeds.set(`/feeds/${id}.xml`, atomFeed(id, id, []));
  }
  // The base: a full index and a full site, as the nightly run leaves them.
  await job('build-index');
  const first = await job('rebuild-site');
  expect(first.counts.full).toBe(1);
  srv = await startTestServer({ contentDir: dirs().CONTENT_DIR, distDir: dirs().DIST_DIR, env: { DATA_DIR: dirs().DATA_DIR } });
}, 120_000);

afterAll(async () => {
  await srv?.stop();
  await host?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The jobs of a chain (update-index, then rebuild-site) as the scheduler's worker runs them: what each publishes, and when. */
function chainTests(): void {
  it('publishes in a chain the content update-index indexed; an edit made between the two reaches both in the next run', async () => {
    const titleOnSite = (id: string) => JSON.parse(fs.readFileSync(path.join(dirs().DIST_DIR, 'client', 'api', 'videos', id, 'index.json'), 'utf8')).title;
    const siteHash = () => JSON.parse(fs.readFileSync(path.join(dirs().DIST_DIR, 'build-meta.json'), 'utf8')).content_hash;
    const indexHash = () => readManifest(path.join(dirs().DATA_DIR, 'index'))!.content_hash;
    const before = titleOnSite(edited);
    const ran: string[] = [];
    let indexed = '';
    const chain = (between?: () => void) =>
      runChain('update-index', () => quiet(), async (name, r) => {
        expect(r.ok, `${name}: ${r.error}`).toBe(true);
        ran.push(name);
        if (name === 'update-index') {
          indexed = indexHash();
          between?.();
        }
        return followUps(name, r)[0] ?? null;
      });
    await chain(() => fs.writeFileSync(videoFile(edited), fs.readFileSync(videoFile(edited), 'utf8').replace(/^title: .*$/m, 'title: "Zorbleflux: retitled while the chain ran"')));
    expect(ran).toEqual(['update-index', 'rebuild-site']);
    // The site shows the content search was updated with (the running server, seeing the edit when it
    // reloads, may rebuild the index meanwhile: the index's hash is the one update-index left).
    expect(titleOnSite(edited)).toBe(before);
    expect(siteHash()).toBe(indexed);
    // The next run brings the edit to both.
    await chain();
    expect(titleOnSite(edited)).toBe('Zorbleflux: retitled while the chain ran');
    expect(siteHash()).toBe(indexed);
    expect(await keywordIds(dirs().DATA_DIR, dirs().CONTENT_DIR, 'zorbleflux')).toContain(`video:${edited}`);
  }, 180_000);

  it('starts the render process before the jobs that lead to rebuild-site, and stops it when the chain ends before', async () => {
    const lines: string[] = [];
    const chain = (stopAfter?: string) =>
      runChain('update-index', () => ({ ...quiet(), log: (m: string) => lines.push(m) }), async (name, r) => {
        expect(r.ok, `${name}: ${r.error}`).toBe(true);
        return name === stopAfter ? null : (followUps(name, r)[0] ?? null);
      });
    // update-index, then rebuild-site, which renders the edited page with the process started before update-index.
    fs.writeFileSync(videoFile(edited), fs.readFileSync(videoFile(edited), 'utf8').replace(/^title: .*$/m, 'title: "Rendered by the prepared process"'));
    const before = renderStats.lastPid;
    await chain();
    const pid = renderStats.lastPid;
    expect(pid).not.toBe(before);
    expect(lines.find((l) => / pages rendered by /.test(l))).toMatch(/^rebuild-site: [1-9]\d* pages rendered by .*the render process, started before this job, bundled the site by/);
    expect(lines.filter((l) => / pages rendered by /.test(l))).toHaveLength(1);
    expect(fs.readFileSync(path.join(dirs().DIST_DIR, 'client', 'videos', edited, 'index.html'), 'utf8')).toContain('Rendered by the prepared process');
    expect(gone(pid)).toBe(true);
    expect(fs.existsSync(stagingFolder(process.pid, pid, 1))).toBe(false);

    // The chain ends after update-index: rebuild-site's thread, working beside it, writes nothing; the process
    // it started is stopped, its folder gone.
    lines.length = 0;
    fs.writeFileSync(videoFile(edited), fs.readFileSync(videoFile(edited), 'utf8').replace(/^title: .*$/m, 'title: "Indexed, not yet published"'));
    await chain('update-index');
    expect(renderStats.lastPid).not.toBe(pid);
    expect(lines.some((l) => / files written /.test(l))).toBe(false);
    expect(fs.readFileSync(path.join(dirs().DIST_DIR, 'client', 'videos', edited, 'index.html'), 'utf8')).not.toContain('Indexed, not yet published');
    expect(gone(renderStats.lastPid)).toBe(true);
    expect(fs.existsSync(stagingFolder(process.pid, renderStats.lastPid, 1))).toBe(false);
    // The next run publishes it, as any chain would.
    await chain();
    expect(fs.readFileSync(path.join(dirs().DIST_DIR, 'client', 'videos', edited, 'index.html'), 'utf8')).toContain('Indexed, not yet published');
  }, 180_000);

  it('loads content/ once, in rebuild-site\'s thread, for update-index and the site, and writes dist/ only once update-index is done', async () => {
    const page = () => fs.readFileSync(path.join(dirs().DIST_DIR, 'client', 'videos', edited, 'index.html'), 'utf8');
    const chain = async (title: string, competing = false) => {
      const lines: string[] = [];
      fs.writeFileSync(videoFile(edited), fs.readFileSync(videoFile(edited), 'utf8').replace(/^title: .*$/m, `title: "${title}"`));
      // The chain's own thread (this one) reads no content file: the edited video is read, and content/ loaded,
      // in rebuild-site's thread alone (one snapshot for both jobs). Watched until update-index is done; the
      // test server in this process, reloading the previous build, reads content/ too: its reads are not the chain's.
      const read = fs.readFileSync;
      const chainReads: string[] = [];
      const reads = vi.spyOn(fs, 'readFileSync').mockImplementation(function (this: unknown, ...args: Parameters<typeof fs.readFileSync>) {
        const file = String(args[0]);
        if (file.startsWith(dirs().CONTENT_DIR + path.sep) && !new Error().stack?.includes(`${path.sep}api${path.sep}`)) chainReads.push(file);
        return read.apply(this, args);
      } as typeof fs.readFileSync);
      const contentReads = () => chainReads;
      await runChain('update-index', () => ({ ...quiet(), log: (m: string) => lines.push(m) }), async (name, r) => {
        expect(r.ok, `${name}: ${r.error}`).toBe(true);
        if (name === 'update-index') {
          expect(contentReads()).toEqual([]);
          reads.mockRestore();
          expect(r.counts).toMatchObject({ full: 0, invalid: 0 });
          // update-index is done and rebuild-site's turn has not come: its thread has loaded content/ for both,
          // rendered the changed pages (or gets there now), and waits for the go to write.
          for (let waited = 0; !lines.some((l) => / pages rendered by /.test(l)); waited += 50) {
            if (waited > 120_000) throw new Error(`rebuild-site rendered nothing beside update-index:\n${lines.join('\n')}`);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          expect(lines.some((l) => /^rebuild-site: the manifest read by [\d.]+ s, the content update-index loaded /.test(l))).toBe(true);
          expect(await keywordIds(dirs().DATA_DIR, dirs().CONTENT_DIR, title.split(' ')[0].toLowerCase())).toContain(`video:${edited}`);
          expect(page()).not.toContain(title);
          expect(readStatus(dirs().DATA_DIR).jobs['rebuild-site'].status).toBe('ok'); // the last run's: its turn has not come
          if (competing) await buildSiteIncremental(env(), {});
        }
        return followUps(name, r)[0] ?? null;
      });
      expect(page()).toContain(title);
      expect(readStatus(dirs().DATA_DIR).jobs['rebuild-site'].status).toBe('ok');
      return lines;
    };
    expect((await chain('Quuxwork out beside the index')).some((l) => /built again/.test(l))).toBe(false);
    // Another build changes dist/ while the thread waits for its turn: what it worked out is stale, it builds again.
    expect((await chain('Frobnicated after a build in between', true)).some((l) => /^rebuild-site: another build changed dist\/ meanwhile: built again/.test(l))).toBe(true);
  }, 240_000);

  it('with PIPELINE_SITE_BESIDE=off, builds the site after update-index in the chain’s own thread, from the content it indexed', async () => {
    const lines: string[] = [];
    fs.writeFileSync(videoFile(edited), fs.readFileSync(videoFile(edited), 'utf8').replace(/^title: .*$/m, 'title: "Built after the index"'));
    const ctx = () => ({ ...jobContext({}, { ...env(), PIPELINE_SITE_BESIDE: 'off' }), log: (m: string) => lines.push(m) });
    await runChain('update-index', ctx, async (name, r) => {
      expect(r.ok, `${name}: ${r.error}`).toBe(true);
      return followUps(name, r)[0] ?? null;
    });
    expect(fs.readFileSync(path.join(dirs().DIST_DIR, 'client', 'videos', edited, 'index.html'), 'utf8')).toContain('Built after the index');
    expect(lines.some((l) => /^rebuild-site: content handed on/.test(l))).toBe(true);
    expect(lines.some((l) => /^rebuild-site: the manifest read by .* the content update-index loaded/.test(l))).toBe(false);
  });
}

describe('the incremental pipeline', () => {
  it('ends with the same dist/ and the same search hits as a full build of the same content', async () => {
    const before = srv.staticSite;
    // New videos in two channels' feeds; an edit and a deletion by an editor.
    const fresh = (id: string, title: string) => ({ id, title, published: '2026-11-23T06:00:00+00:00', description: 'The team started from the work, not the model. Adoption stalled until managers changed targets. Costs per task fell by a third.' });
    host.feeds.set('/feeds/channel-1.xml', atomFeed('channel-1', 'One', [fresh('incr0000001', 'Fresh talk on operations'), fresh('incr0000002', 'Second fresh talk on operations')]));
    host.feeds.set('/feeds/channel-2.xml', atomFeed('channel-2', 'Two', [fresh('incr0000003', 'Third fresh talk on operations')]));
    const ingest = await job('ingest-videos');
    expect(ingest.counts.added).toBe(3);
    await job('summarise');
    edited = fs.readdirSync(path.join(dirs().CONTENT_DIR, 'videos')).map((f) => f.replace(/\.md$/, '')).find((v) => !v.startsWith('incr'))!;
    fs.writeFileSync(videoFile(edited), fs.readFileSync(videoFile(edited), 'utf8').replace(/^title: .*$/m, 'title: "An edited headline about governance"'));
    deleted = unreferencedVideo([edited]);
    fs.rmSync(videoFile(deleted));

    const update = await job('update-index');
    expect(update.counts).toMatchObject({ full: 0, added: 4, removed: 2 });
    const manifest = readManifest(path.join(dirs().DATA_DIR, 'index'))!;
    expect(manifest.delta).toMatchObject({ documents: 4, removed: 2 });
    expect(manifest.items).toBe(manifest.base_items! + 3 - 1);

    // The site: the incremental build, then a full build of the same content at the same time elsewhere.
    const inc = await buildSiteIncremental(env(), {});
    expect(inc.mode).toBe('incremental');
    // Without renderInProcess (a server's build), the pages render in a child process started early.
    expect(renderStats.peakShardRssMb).toBeGreaterThan(0);
    const total = walk(path.join(dirs().DIST_DIR, 'client')).length;
    expect(inc.files).toBe(total); // the count the build keeps as it writes and removes
    expect(inc.written!.length).toBeGreaterThan(3);
    expect(inc.written!.length).toBeLessThan(total / 3);
    expect(inc.written).toEqual(expect.arrayContaining(['videos/incr0000001/index.html', 'api/videos/incr0000001/index.json', `videos/${edited}/index.html`, 'api/latest/index.json']));
    expect(inc.removed).toEqual(expect.arrayContaining([`videos/${deleted}/index.html`, `api/videos/${deleted}/index.json`]));
    await buildSite(env('dist-full'), { generatedAt: inc.generated_at, renderInProcess: true });

    const a = path.join(dirs().DIST_DIR, 'client');
    const b = path.join(dirs('dist-full').DIST_DIR, 'client');
    const filesA = walk(a).sort();
    const filesB = walk(b).sort();
    expect(filesA).toEqual(filesB);
    const differ = filesA.filter((f) => !fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(b, f))));
    expect(differ).toEqual([]);

    // Search: the base plus the delta finds the same items as an index built whole from this content.
    const snap = loadSnapshot(dirs().CONTENT_DIR);
    await buildSearchIndex(snap, { dataDir: dirs('dist-full', 'var-full').DATA_DIR, embedder: await embedding() });
    let nonEmpty = 0;
    for (const q of QUERIES) {
      const incremental = await keywordIds(dirs().DATA_DIR, dirs().CONTENT_DIR, q);
      const full = await keywordIds(dirs('dist-full', 'var-full').DATA_DIR, dirs().CONTENT_DIR, q);
      expect(incremental, q).toEqual(full);
      if (full.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(5);
    expect(await keywordIds(dirs().DATA_DIR, dirs().CONTENT_DIR, 'edited headline')).toContain(`video:${edited}`);
    expect(await keywordIds(dirs().DATA_DIR, dirs().CONTENT_DIR, 'fresh talk operations')).toEqual(expect.arrayContaining(['video:incr0000001', 'video:incr0000003']));

    // The running server applied the build: new and changed files are served, removed ones are gone, and
    // every file the build did not touch is still the very entry it held before.
    let res: Response | undefined;
    for (let i = 0; i < 60 && srv.staticSite === before; i++) await new Promise((r) => setTimeout(r, 250));
    expect(srv.staticSite).not.toBe(before);
    res = await srv.get('/api/videos/incr0000001');
    expect(res.status).toBe(200);
    expect((await srv.get(`/videos/${edited}`, { headers: { Accept: 'text/html' } }).then((r) => r.text()))).toContain('An edited headline about governance');
    expect((await srv.get(`/api/videos/${deleted}`)).status).toBe(404);
    const touched = new Set([...inc.written!, ...inc.removed!].map(urlPathForDistFile));
    let same = 0;
    for (const [url, entries] of before.files) {
      if (touched.has(url)) continue;
      expect(srv.staticSite.files.get(url), url).toBe(entries);
      same++;
    }
    expect(same).toBeGreaterThan(total / 2);
    // The briefing moved forward with the build: its time, and the pipeline's last run (update-index).
    const latest = await srv.get('/api/latest').then((r) => r.json());
    expect(latest.generated_at).toBe(inc.generated_at);
    expect(inc.generated_at >= inc.previous!).toBe(true);
    expect(latest.freshness.pipeline_status.last_run_at).toBe(readStatus(dirs().DATA_DIR).jobs['update-index'].finished_at);
    expect(latest.latest_videos.map((v: { video_id: string }) => v.video_id)).toContain('incr0000001');
    const search = await srv.get('/api/search?q=fresh+talk+operations').then((r) => r.json());
    expect(search.hits.map((h: { id: string }) => h.id)).toContain('incr0000002');
  }, 180_000);

  chainTests();

  it('stops the render process it started early when nothing is to be rendered, and gives it the first shard of a large selection', async () => {
    const staging = (pid: number) => stagingFolder(process.pid, pid, 1);
    // Nothing changed since the last build: no page to render.
    const idle = await buildSiteIncremental(env(), {});
    expect(idle).toMatchObject({ mode: 'incremental', pages_rendered: 0 });
    expect(idle.written!.filter((f) => f.endsWith('.html'))).toEqual([]); // the briefing's time moved, no page
    const pid = renderStats.lastPid;
    expect(pid).toBeGreaterThan(0);
    expect(gone(pid)).toBe(true);
    expect(fs.existsSync(staging(pid))).toBe(false);

    // A change whose pages go to more than one process: the early one renders the first shard, new ones the others.
    fs.writeFileSync(videoFile(edited), fs.readFileSync(videoFile(edited), 'utf8').replace(/^title: .*$/m, 'title: "A headline edited twice"'));
    const sharded = await buildSiteIncremental({ ...env(), KB_PAGES_PER_SHARD: '1' }, {});
    expect(sharded.mode).toBe('incremental');
    expect(sharded.pages_rendered).toBeGreaterThan(1);
    expect(renderStats.shards).toBeGreaterThan(1);
    expect(sharded.written).toContain(`videos/${edited}/index.html`);
    expect(fs.readFileSync(path.join(dirs().DIST_DIR, 'client', 'videos', edited, 'index.html'), 'utf8')).toContain('A headline edited twice');
    expect(renderStats.lastPid).not.toBe(pid); // the early process of this build (the shards do not set it)
    expect(renderStats.readyMs).toBeGreaterThan(0); // it rendered pages: only the early process reports when it was ready
    expect(gone(renderStats.lastPid)).toBe(true);
    expect(fs.existsSync(staging(renderStats.lastPid))).toBe(false);
  }, 180_000);

  it('renders the same pages sharded across processes as in one process', async () => {
    const at = '2026-11-24T08:00:00Z';
    await buildSite(env('dist-one'), { generatedAt: at, renderInProcess: true });
    // Sharded as a server's build is (not renderInProcess): the first shard in the process started as the
    // build began, each handed the models this build fingerprinted (no snapshot loaded there).
    await buildSite({ ...env('dist-sharded'), KB_PAGES_PER_SHARD: '40' }, { generatedAt: at });
    expect(renderStats.shards).toBeGreaterThan(1);
    expect(renderStats.readyMs).toBeGreaterThan(0);
    const a = path.join(dirs('dist-one').DIST_DIR, 'client');
    const b = path.join(dirs('dist-sharded').DIST_DIR, 'client');
    expect(walk(b).sort()).toEqual(walk(a).sort());
    expect(walk(a).filter((f) => !fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(b, f))))).toEqual([]);
    // The server bundle (for the pages that need a session) comes along.
    expect(fs.existsSync(path.join(dirs('dist-sharded').DIST_DIR, 'server', 'entry.mjs'))).toBe(true);
  }, 180_000);

  it('makes no full build ahead of rebuild-site\'s turn: a chain that ends before it leaves no dist/', async () => {
    const ran: string[] = [];
    await runChain('update-index', () => quiet('dist-never'), async (name) => {
      ran.push(name);
      return null;
    });
    expect(ran).toEqual(['update-index']);
    expect(fs.existsSync(dirs('dist-never').DIST_DIR)).toBe(false);
  }, 120_000);

  it('falls back to a full build when there is no previous build to update', async () => {
    const r = await buildSiteIncremental(env('dist-new'), {});
    expect(r.mode).toBe('full');
    expect(r.fallback).toMatch(/no previous build/);
    expect(fs.existsSync(path.join(dirs('dist-new').DIST_DIR, 'site-manifest.json'))).toBe(true);
  }, 120_000);
});
