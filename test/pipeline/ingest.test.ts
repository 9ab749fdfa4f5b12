// ingest-videos against a real HTTP feed host on loopback, in YouTube's feed format: new videos appear
// once, a second run adds nothing, and failures (500, timeout, malformed feed, unknown channel, a killed
// run) are reported clearly and lose nothing.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { runJob } from '../../pipeline/lib/run-job.ts';
import { jobContext } from '../../pipeline/lib/context.ts';
import { ingestVideos } from '../../pipeline/lib/ingest.ts';
import { summariseVideos } from '../../pipeline/lib/summarise.ts';
import { readStatus } from '../../pipeline/lib/status.ts';
import { atomFeed, startFeedHost, type FeedHost, type FeedVideo } from './feeds.ts';

let host: FeedHost;
let root: string;
let contentDir: string;
let dataDir: string;

const newVideos = (prefix: string, n: number, day = '2026-11-21'): FeedVideo[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${String(i).padStart(11 - prefix.length, '0')}`,
    title: `${prefix} video ${i}: what agents changed in claims handling`,
    published: `${day}T0${i % 10}:00:00+00:00`,
    description: 'The team started from the work, not the model. Adoption stalled until managers changed targets. An evaluation set caught regressions before release. Costs per task fell by a third.',
  }));

function pointChannelsAtHost(): string[] {
  const ids: string[] = [];
  for (const f of fs.readdirSync(path.join(contentDir, 'channels'))) {
    const id = f.replace(/\.md$/, '');
    ids.push(id);
    const file = path.join(contentDir, 'channels', f);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^feed_url: .*$/m, `feed_url: ${host.url}/feeds/${id}.xml`));
    host.feeds.set(`/feeds/${id}.xml`, atomFeed(id, id, []));
  }
  return ids;
}

const env = () => ({ ...process.env, CONTENT_DIR: contentDir, DATA_DIR: dataDir, DIST_DIR: path.join(root, 'dist'), BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true' });
const ingest = (options: Record<string, string> = {}) =>
  runJob('ingest-videos', { ...jobContext({ retries: '1', backoff_ms: '10', timeout_ms: '1500', ...options }, env()), log: () => {} }, ingestVideos);
const videoFiles = () => fs.readdirSync(path.join(contentDir, 'videos')).sort();

beforeEach(async () => {
  host = await startFeedHost();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-pipeline-'));
  contentDir = path.join(root, 'content');
  dataDir = path.join(root, 'var');
  generateCorpus({ dir: contentDir, videos: 20, seed: 5 });
});
afterEach(async () => {
  await host.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('ingest-videos', () => {
  it('adds new videos once, in the content format, and asks conditionally the second time', async () => {
    const [a, b] = pointChannelsAtHost();
    host.feeds.set(`/feeds/${a}.xml`, atomFeed(a, 'A', newVideos('aaaa', 3)));
    host.feeds.set(`/feeds/${b}.xml`, atomFeed(b, 'B', newVideos('bbbb', 2)));
    const before = videoFiles().length;
    const first = await ingest();
    expect(first).toMatchObject({ ok: true, counts: { added: 5 } });
    expect(videoFiles().length).toBe(before + 5);
    const snap = loadSnapshot(contentDir); // everything written loads
    const v = snap.videosById.get('aaaa0000000')!;
    expect(v).toMatchObject({ channel: a, date: '2026-11-21', summary: '', url: 'https://www.youtube.com/watch?v=aaaa0000000', thumbnail_url: 'https://i1.ytimg.com/vi/aaaa0000000/hqdefault.jpg' });
    expect(v.transcript).toMatch(/started from the work/);

    host.requests.length = 0;
    const second = await ingest();
    expect(second).toMatchObject({ ok: true, counts: { added: 0 } });
    expect(videoFiles().length).toBe(before + 5);
    expect(host.requests.filter((r) => r.status === 304).length).toBe(host.requests.length);
    expect(host.requests.every((r) => r.conditional)).toBe(true);
  });

  it('never overwrites a video file, even one the feed still lists', async () => {
    const [a] = pointChannelsAtHost();
    host.feeds.set(`/feeds/${a}.xml`, atomFeed(a, 'A', newVideos('edit', 1)));
    await ingest();
    const file = path.join(contentDir, 'videos', 'edit0000000.md');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: "Edited by a person"'));
    host.feeds.set(`/feeds/${a}.xml`, atomFeed(a, 'A', [...newVideos('edit', 1), ...newVideos('more', 1)])); // changed feed
    expect((await ingest()).counts.added).toBe(1);
    expect(fs.readFileSync(file, 'utf8')).toContain('Edited by a person');
  });

  it('reports a 500, a timeout and a malformed feed in one line each, keeps the other channels, and loses nothing', async () => {
    const [a, b, c, d] = pointChannelsAtHost();
    host.feeds.set(`/feeds/${a}.xml`, atomFeed(a, 'A', newVideos('okok', 2)));
    host.feeds.set(`/feeds/${b}.xml`, atomFeed(b, 'B', newVideos('fivh', 2)));
    host.feeds.set(`/feeds/${c}.xml`, atomFeed(c, 'C', newVideos('hang', 2)));
    host.feeds.set(`/feeds/${d}.xml`, atomFeed(d, 'D', newVideos('brkn', 2)));
    host.behaviour.set(`/feeds/${b}.xml`, 'error500');
    host.behaviour.set(`/feeds/${c}.xml`, 'hang');
    host.behaviour.set(`/feeds/${d}.xml`, 'malformed');
    const before = new Set(videoFiles());
    const r = await ingest({ timeout_ms: '300' });
    expect(r.ok).toBe(false);
    expect(r.counts.added).toBe(2);
    expect(r.error).toMatch(new RegExp(`channel ${b} .*HTTP 500 \\(after 2 attempts\\)`));
    expect(r.error).toMatch(new RegExp(`channel ${c} .*timed out after 300 ms`));
    expect(r.error).toMatch(new RegExp(`channel ${d} .*malformed feed`));
    expect(videoFiles().filter((f) => !before.has(f))).toEqual(['okok0000000.md', 'okok0000001.md']);
    expect(() => loadSnapshot(contentDir)).not.toThrow();
    const status = readStatus(dataDir).jobs['ingest-videos'];
    expect(status).toMatchObject({ status: 'failed', counts: { added: 2, errors: 3 } });
    // Once the host recovers, the next run takes in what it missed (failed feeds' validators were not kept).
    host.behaviour.clear();
    const again = await ingest();
    expect(again).toMatchObject({ ok: true, counts: { added: 6 } });
  });

  it('fetches several feeds at a time and takes them in channel by channel, as one after another would', async () => {
    const ids = pointChannelsAtHost();
    expect(ids.length).toBeGreaterThan(2);
    // The same video in two channels' feeds: the first channel in order takes it, as a run one feed at a time would.
    const shared = newVideos('shrd', 1);
    ids.forEach((id, i) => {
      host.feeds.set(`/feeds/${id}.xml`, atomFeed(id, id, [...newVideos(`ch${String(i).padStart(2, '0')}`, 1), ...shared]));
      host.behaviour.set(`/feeds/${id}.xml`, 'delayed');
    });
    host.behaviour.set(`/feeds/${ids[1]}.xml`, 'error500');
    const r = await ingest();
    expect(host.maxInFlight).toBeGreaterThan(1);
    expect(r.counts).toMatchObject({ added: ids.length, feeds_fetched: ids.length - 1, errors: 1 });
    expect(r.error).toMatch(new RegExp(`^channel ${ids[1]} .*HTTP 500`));
    const sharedFile = fs.readFileSync(path.join(contentDir, 'videos', `${shared[0].id}.md`), 'utf8');
    expect(sharedFile).toMatch(new RegExp(`^channel: "?${ids[0]}"?$`, 'm'));
    // One at a time (PIPELINE_FETCH_CONCURRENCY=1 or --concurrency 1): never two requests at once.
    await host.close();
    host = await startFeedHost();
    pointChannelsAtHost();
    for (const id of ids) host.behaviour.set(`/feeds/${id}.xml`, 'delayed');
    expect((await ingest({ concurrency: '1' })).ok).toBe(true);
    expect(host.maxInFlight).toBe(1);
  });

  it('takes single videos from the inbox and refuses an unknown channel there', async () => {
    const [a] = pointChannelsAtHost();
    const inbox = path.join(contentDir, 'inbox');
    fs.mkdirSync(inbox);
    fs.writeFileSync(path.join(inbox, 'good.json'), JSON.stringify([{ video_id: 'inbx0000001', title: 'Sent by hand', channel: a, date: '2026-11-20', description: 'A talk.' }]));
    fs.writeFileSync(path.join(inbox, 'bad.json'), JSON.stringify({ video_id: 'inbx0000002', title: 'Nowhere', channel: 'no-such-channel' }));
    const r = await ingest();
    expect(r.error).toBe('inbox/bad.json: unknown channel "no-such-channel"');
    expect(r.counts.added).toBe(1);
    expect(loadSnapshot(contentDir).videosById.get('inbx0000001')?.title).toBe('Sent by hand');
    expect(fs.existsSync(path.join(inbox, 'processed', 'good.json'))).toBe(true);
    expect(fs.existsSync(path.join(inbox, 'bad.json'))).toBe(true); // kept for a person to fix
  });

  it('leaves valid content when killed mid-run, and the next run completes', async () => {
    const [a, b] = pointChannelsAtHost();
    host.feeds.set(`/feeds/${a}.xml`, atomFeed(a, 'A', newVideos('kill', 3)));
    host.feeds.set(`/feeds/${b}.xml`, atomFeed(b, 'B', newVideos('late', 3)));
    host.behaviour.set(`/feeds/${b}.xml`, 'slow');
    const child = spawn(process.execPath, ['pipeline/index.ts', 'run', 'ingest-videos'], { env: env(), stdio: 'ignore' });
    // Kill it while it waits for the slow feed, after the first channel's videos are written.
    // (A loaded machine may take seconds to start the child: wait for the file, not a fixed time.)
    const written = path.join(contentDir, 'videos', 'kill0000002.md');
    for (let i = 0; i < 600 && !fs.existsSync(written); i++) await new Promise((r) => setTimeout(r, 50));
    expect(fs.existsSync(written)).toBe(true);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(fs.existsSync(path.join(dataDir, 'pipeline', 'locks', 'ingest-videos.lock'))).toBe(true);
    expect(readStatus(dataDir).jobs['ingest-videos'].status).toBe('running');
    expect(() => loadSnapshot(contentDir)).not.toThrow();
    // What a write cut short leaves (writeFileAtomic's temp name carries the writer's pid), and one being
    // written right now by a live process beside this run.
    const leftover = path.join(contentDir, 'videos', `.late0000000.md.${child.pid}.k1ll3d.tmp`);
    const inFlight = path.join(contentDir, 'videos', `.other.md.${process.pid}.l1v3.tmp`);
    fs.writeFileSync(leftover, 'half');
    fs.writeFileSync(inFlight, 'being written');
    host.behaviour.clear();
    const r = await ingest();
    expect(r.ok).toBe(true);
    expect(r.counts.added).toBe(3);
    // The run took over the dead run's lock and swept what it left, not what a live writer holds.
    expect(fs.existsSync(leftover)).toBe(false);
    expect(fs.existsSync(inFlight)).toBe(true);
    fs.rmSync(inFlight);
    const ids = loadSnapshot(contentDir).videos.map((v) => v.video_id);
    expect(ids.filter((id) => id.startsWith('kill') || id.startsWith('late')).sort()).toEqual(['kill0000000', 'kill0000001', 'kill0000002', 'late0000000', 'late0000001', 'late0000002']);
  });

  it('refuses to run twice at once', async () => {
    pointChannelsAtHost();
    const lockDir = path.join(dataDir, 'pipeline', 'locks');
    fs.mkdirSync(lockDir, { recursive: true });
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)']);
    fs.writeFileSync(path.join(lockDir, 'ingest-videos.lock'), String(sleeper.pid));
    try {
      await expect(ingest()).rejects.toThrow(/already running/);
    } finally {
      sleeper.kill();
    }
  });
});

describe('summarise', () => {
  it('summarises waiting videos extractively in their language and tags them from the vocabulary', async () => {
    const [a] = pointChannelsAtHost();
    host.feeds.set(`/feeds/${a}.xml`, atomFeed(a, 'A', newVideos('summ', 2)));
    await ingest();
    expect(loadSnapshot(contentDir).videos.filter((v) => v.summary === '').length).toBe(2);
    const r = await runJob('summarise', { ...jobContext({}, env()), log: () => {} }, (ctx) => summariseVideos(ctx));
    expect(r).toMatchObject({ ok: true, counts: { summarised: 2, waiting: 0 } });
    const v = loadSnapshot(contentDir).videosById.get('summ0000000')!;
    expect(v.summary.length).toBeGreaterThan(40);
    expect(v.summary).toMatch(/started from the work|evaluation set|Costs per task/);
    expect(v.tags).toEqual(expect.arrayContaining(['agents']));
  });
});

afterAll(() => {});
