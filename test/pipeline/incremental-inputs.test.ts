// The incremental build keeps an item's documents and page model when the files they read did not change
// (src/lib/static-build/inputs.ts). Each test changes one kind of input a document reads, alone, and the
// incremental build must then equal a full build of the same content byte for byte: a key that misses an
// input leaves a stale file here. Each also checks the build kept most documents, so the keys are used.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { buildSite } from '../../src/lib/static-build/full.ts';
import { buildSiteIncremental, type IncrementalResult } from '../../src/lib/static-build/incremental.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import type { Snapshot } from '../../src/lib/content/model.ts';
import { walk } from '../helpers/server.ts';
import { CHANNEL_PAGE_SIZE } from '../../src/web/paging.ts';
import { readSiteManifest, SITE_MANIFEST_DELTA } from '../../src/lib/static-build/manifest.ts';
import { renderStats } from '../../src/lib/static-build/render.ts';

let root: string;
const dirs = (dist = 'dist') => ({ CONTENT_DIR: path.join(root, 'content'), DATA_DIR: path.join(root, 'var'), DIST_DIR: path.join(root, dist), BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true' });
const env = (dist?: string) => ({ ...process.env, ...dirs(dist) });
const content = (rel: string) => path.join(dirs().CONTENT_DIR, rel);
// Lenient, as the builds load it: a file that fails validation (the last test) is left out, not thrown.
const snap = (): Snapshot => loadSnapshot(dirs().CONTENT_DIR, { lenient: true });

/** Replaces a front matter line (`key: …`) of a content file. */
function setFront(rel: string, key: string, value: string): void {
  const text = fs.readFileSync(content(rel), 'utf8');
  const re = new RegExp(`^${key}: .*$`, 'm');
  expect(re.test(text), `${rel} has ${key}`).toBe(true);
  fs.writeFileSync(content(rel), text.replace(re, `${key}: ${value}`));
}

/** Adds a source to a concept's front matter. */
function addSource(slug: string, type: string, id: string): void {
  const rel = `knowledge/${slug}.md`;
  const text = fs.readFileSync(content(rel), 'utf8');
  fs.writeFileSync(content(rel), text.replace(/^sources:\n/m, `sources:\n  - type: ${type}\n    id: "${id}"\n`));
}

/**
 * The incremental build, then a full build of the same content elsewhere: the two dist/client trees are equal.
 * `kept`: files whose documents the build must keep, not even recompute. Their bytes in dist/ are made stale
 * first: a build that recomputed them would write them back (it writes what differs from dist/'s bytes); one
 * that kept them leaves them stale. They are restored before the comparison.
 */
async function incrementalEqualsFull(kept: string[] = []): Promise<IncrementalResult> {
  const client = path.join(dirs().DIST_DIR, 'client');
  const original = new Map(kept.map((rel) => [rel, fs.readFileSync(path.join(client, rel))]));
  const stale = (rel: string) => Buffer.concat([original.get(rel)!, Buffer.from('\nstale\n')]);
  for (const rel of kept) fs.writeFileSync(path.join(client, rel), stale(rel));
  // Rendered in this process, as the full builds here are (the pipeline's render process, started early, is
  // the path of incremental.test.ts): the same renderer, without a child's start per build.
  const inc = await buildSiteIncremental(env(), { renderInProcess: true });
  expect(inc.mode).toBe('incremental');
  if (inc.pages_rendered > 0) expect(renderStats.peakShardRssMb, 'rendered in this process').toBe(0);
  // The manifest the next build reads is the full build's base and this build's delta (manifest.ts).
  expect(fs.existsSync(path.join(dirs().DIST_DIR, SITE_MANIFEST_DELTA))).toBe(true);
  for (const rel of kept) {
    expect(inc.written, rel).not.toContain(rel);
    expect(fs.readFileSync(path.join(client, rel)).equals(stale(rel)), `${rel} was recomputed`).toBe(true);
    fs.writeFileSync(path.join(client, rel), original.get(rel)!);
  }
  await buildSite(env('dist-full'), { generatedAt: inc.generated_at, renderInProcess: true });
  const a = client;
  const b = path.join(dirs('dist-full').DIST_DIR, 'client');
  expect(walk(a)).toEqual(walk(b));
  expect(walk(a).filter((f) => !fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(b, f))))).toEqual([]);
  // What the next build reads (the full build's base with the deltas since) records what a full build does.
  const [ma, mb] = [readSiteManifest(dirs().DIST_DIR)!, readSiteManifest(dirs('dist-full').DIST_DIR)!];
  expect(ma.pages).toEqual(mb.pages);
  expect(new Set(ma.resources)).toEqual(new Set(mb.resources));
  expect(ma.key_record).toEqual(mb.key_record);
  // Most of the items' documents and models were kept, not recomputed.
  const s = snap();
  expect(inc.documents_kept).toBeGreaterThan(s.videos.length);
  expect(inc.models_kept).toBeGreaterThan(s.videos.length / 2);
  // Most keys were taken as recorded, not computed: none of their inputs changed (moved-keys.ts).
  expect(inc.keys_computed).toBeLessThan((s.videos.length + s.concepts.length + s.essays.length + 2 * s.digests.length) / 2);
  // /llms-full.txt was made with most items' pieces copied from the previous file (pieces.ts).
  expect(inc.pieces_copied).toBeGreaterThan(s.videos.length / 2);
  return inc;
}

const published = (s: Snapshot) => s.concepts.filter((c) => !c.draft);

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-inputs-'));
  generateCorpus({ dir: dirs().CONTENT_DIR, videos: 40, seed: 11 });
  await buildSite(env(), { renderInProcess: true });
}, 60_000);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('the incremental build keeps what did not change, and only that', () => {
  it('a video’s new title reaches the concepts citing it and the video’s own files', async () => {
    const s = snap();
    const c = published(s).find((x) => x.sources.some((src) => src.type === 'video'))!;
    const v = c.sources.find((src) => src.type === 'video')!.id;
    setFront(`videos/${v}.md`, 'title', '"A retitled video"');
    const inc = await incrementalEqualsFull();
    expect(inc.written).toEqual(expect.arrayContaining([`api/videos/${v}/index.json`, `videos/${v}/index.html`, `api/knowledge/${c.slug}/index.json`, `knowledge/${c.slug}/index.html`, `knowledge/${c.slug}.md`]));
  });

  it('a channel’s new name reaches every video of the channel', async () => {
    const s = snap();
    const channel = s.channels[1];
    setFront(`channels/${channel.channel_id}.md`, 'name', '"A renamed channel"');
    const inc = await incrementalEqualsFull();
    const videos = s.videosByChannel.get(channel.channel_id)!;
    expect(videos.length).toBeGreaterThan(0);
    expect(inc.written).toEqual(expect.arrayContaining(videos.map((v) => `api/videos/${v.video_id}/index.json`)));
  });

  it('a concept that starts citing a video, an essay and a digest is listed on the video, and shows their titles', async () => {
    const s = snap();
    const c = published(s)[2];
    const cites = (id: string) => c.sources.some((src) => 'id' in src && src.id === id);
    const v = s.videos.find((x) => !cites(x.video_id) && !(s.conceptsByVideo.get(x.video_id) ?? []).length)!;
    const essay = s.essays.find((e) => !cites(e.slug))!;
    addSource(c.slug, 'video', v.video_id);
    addSource(c.slug, 'essay', essay.slug);
    addSource(c.slug, 'digest', s.digests[1].date);
    const inc = await incrementalEqualsFull();
    expect(inc.written).toEqual(expect.arrayContaining([`api/videos/${v.video_id}/index.json`, `videos/${v.video_id}/index.html`, `api/knowledge/${c.slug}/index.json`]));
  });

  it('an essay’s and a digest’s new titles reach the concepts citing them', async () => {
    const s = snap();
    const c = published(s)[2];
    const essay = s.essaysBySlug.get(c.sources.find((src) => src.type === 'essay')!.id)!;
    const digest = c.sources.find((src) => src.type === 'digest')!.id;
    setFront(`essays/${essay.slug}/${essay.primary}.md`, 'title', '"A retitled essay"');
    const text = fs.readFileSync(content(`digests/${digest}.md`), 'utf8');
    fs.writeFileSync(content(`digests/${digest}.md`), text.replace(/^# .*$/m, '# A retitled digest'));
    const inc = await incrementalEqualsFull();
    expect(inc.written).toEqual(expect.arrayContaining([`api/knowledge/${c.slug}/index.json`, `api/digests/${digest}/index.json`]));
    expect(snap().conceptsBySlug.get(c.slug)!.sources.length).toBe(c.sources.length);
  });

  it('a body edit of a concept and of an essay it cites leaves the knowledge graph as it was, not even recomputed (its layout is ~1 s at 10k videos)', async () => {
    const s = snap();
    const c = published(s).find((x) => x.sources.some((src) => src.type === 'essay'))!;
    const essay = s.essaysBySlug.get(c.sources.find((src) => src.type === 'essay')!.id)!;
    for (const rel of [`knowledge/${c.slug}.md`, `essays/${essay.slug}/${essay.primary}.md`]) fs.appendFileSync(content(rel), '\nA sentence an editor added.\n');
    const inc = await incrementalEqualsFull(['api/graph/data/index.json', 'api/graph/index.html']);
    expect(inc.written).toEqual(expect.arrayContaining([`api/knowledge/${c.slug}/index.json`, `api/essays/${essay.slug}/index.json`]));
  });

  it('a video’s new title reaches the essay that names it; a translation’s new title reaches the essay’s other pages', async () => {
    const s = snap();
    const essay = s.essays.find((e) => e.languages.length > 1 && e.translations[e.primary]!.video)!;
    const v = essay.translations[essay.primary]!.video!;
    const other = essay.languages.find((l) => l !== essay.primary)!;
    setFront(`videos/${v}.md`, 'title', '"A video an essay names, retitled"');
    setFront(`essays/${essay.slug}/${other}.md`, 'title', '"Prevod z novim naslovom"');
    const inc = await incrementalEqualsFull();
    expect(inc.written).toEqual(expect.arrayContaining([`essays/${essay.slug}/index.html`, `essays/${essay.slug}/${other}/index.html`, `api/essays/${essay.slug}/index.json`]));
  });

  it('a video’s new address reaches the list of essays, whose items name it; a video nothing names leaves the lists of essays, digests and concepts', async () => {
    const s = snap();
    const essay = s.essays.find((e) => e.translations[e.primary]!.video)!;
    const v = essay.translations[essay.primary]!.video!;
    setFront(`videos/${v}.md`, 'url', `"https://www.youtube.com/watch?v=${v}&moved=1"`);
    const inc = await incrementalEqualsFull();
    expect(inc.written).toContain('api/essays/index.json');
    // A video no essay, digest or concept names: the three lists are kept, not even recomputed.
    const lone = s.videos.find((x) => !s.digestsByVideo.get(x.video_id)?.length && !s.conceptsByVideo.get(x.video_id)?.length && !s.essays.some((e) => e.languages.some((l) => e.translations[l]!.video === x.video_id)))!;
    setFront(`videos/${lone.video_id}.md`, 'title', '"A video nothing names, retitled"');
    const lists = ['api/essays/index.json', 'api/digests/index.json', 'api/knowledge/index.json', 'essays.md', 'digests.md', 'knowledge.md'];
    await incrementalEqualsFull(lists);
  });

  it('a related concept’s new title reaches the concepts relating to it', async () => {
    const s = snap();
    const from = published(s).find((x) => x.related.length > 0 && x.slug !== published(s)[2].slug)!;
    const to = from.related[0];
    setFront(`knowledge/${to}.md`, 'title', '"A retitled concept"');
    const inc = await incrementalEqualsFull();
    expect(inc.written).toEqual(expect.arrayContaining([`api/knowledge/${from.slug}/index.json`, `knowledge/${from.slug}.md`, `api/knowledge/${to}/index.json`]));
  });

  it('a concept turned draft leaves the pages of the videos it cited', async () => {
    const s = snap();
    const c = published(s).find((x) => x.sources.some((src) => src.type === 'video'))!;
    const v = c.sources.find((src) => src.type === 'video')!.id;
    setFront(`knowledge/${c.slug}.md`, 'draft', 'true');
    const inc = await incrementalEqualsFull();
    expect(inc.written).toEqual(expect.arrayContaining([`api/videos/${v}/index.json`, `videos/${v}/index.html`]));
    expect(inc.removed).toEqual(expect.arrayContaining([`knowledge/${c.slug}/index.html`]));
  });

  it('a video that moves to another channel moves both channels’ documents and keeps the others’', async () => {
    const s = snap();
    const [from, to, other] = s.channels.filter((c) => (s.videosByChannel.get(c.channel_id)?.length ?? 0) > 1);
    expect(other).toBeDefined();
    const v = s.videosByChannel.get(from.channel_id)![0];
    setFront(`videos/${v.video_id}.md`, 'channel', to.channel_id);
    // Another channel's documents are kept, not recomputed.
    const inc = await incrementalEqualsFull([`api/channels/${other.channel_id}/index.json`]);
    for (const c of [from, to]) expect(inc.written).toEqual(expect.arrayContaining([`api/channels/${c.channel_id}/index.json`, `channels/${c.channel_id}/index.html`]));
  });

  it('a channel that grows past a page gets its second page, and loses it when it shrinks back', async () => {
    const s = snap();
    const channel = s.channels[0];
    const model = s.videosByChannel.get(channel.channel_id)![0];
    const text = fs.readFileSync(content(`videos/${model.video_id}.md`), 'utf8');
    const have = s.videosByChannel.get(channel.channel_id)!.length;
    const added = Array.from({ length: CHANNEL_PAGE_SIZE + 1 - have }, (_, i) => `grow${String(i).padStart(7, '0')}`);
    for (const id of added) fs.writeFileSync(content(`videos/${id}.md`), text.replace(/^video_id: .*$/m, `video_id: "${id}"`));
    expect(snap().videosByChannel.get(channel.channel_id)!.length).toBeGreaterThan(CHANNEL_PAGE_SIZE);
    const grown = await incrementalEqualsFull();
    expect(grown.written).toEqual(expect.arrayContaining([`channels/${channel.channel_id}/page/2/index.html`]));
    for (const id of added) fs.rmSync(content(`videos/${id}.md`));
    const shrunk = await incrementalEqualsFull();
    expect(shrunk.removed).toEqual(expect.arrayContaining([`channels/${channel.channel_id}/page/2/index.html`]));
  });

  it('a digest added and one deleted move their neighbours’ links', async () => {
    const s = snap();
    const newest = s.digests[0];
    const next = new Date(Date.parse(`${newest.date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    fs.writeFileSync(content(`digests/${next}.md`), fs.readFileSync(content(`digests/${newest.date}.md`), 'utf8').replace(`date: ${newest.date}`, `date: ${next}`));
    // The oldest digest no other file links to or cites.
    const others = walk(dirs().CONTENT_DIR).filter((f) => !f.startsWith('digests/')).map((f) => fs.readFileSync(content(f), 'utf8')).join('\n');
    const named = (date: string) => others.includes(`/digests/${date}`) || new RegExp(`id: "?${date}"?$`, 'm').test(others);
    const gone = [...s.digests].reverse().find((d) => !named(d.date) && d.date !== newest.date)!;
    const i = s.digests.indexOf(gone);
    fs.rmSync(content(`digests/${gone.date}.md`));
    const inc = await incrementalEqualsFull();
    expect(inc.written).toEqual(expect.arrayContaining([`api/digests/${next}/index.json`, `digests/${newest.date}/index.html`]));
    if (s.digests[i - 1]) expect(inc.written).toContain(`digests/${s.digests[i - 1].date}/index.html`);
    expect(inc.removed).toEqual(expect.arrayContaining([`api/digests/${gone.date}/index.json`]));
  });

  it('content that fails validation: a broken edit keeps the file’s last published version, a deleted video leaves what cited it without it (issue 41)', async () => {
    const s = snap();
    const client = (rel: string) => JSON.parse(fs.readFileSync(path.join(dirs().DIST_DIR, 'client', rel), 'utf8'));
    const broken = published(s)[0];
    const rel = `knowledge/${broken.slug}.md`;
    const before = fs.readFileSync(content(rel), 'utf8');
    fs.writeFileSync(content(rel), before.replace(/^title: .*\n/m, '').replace(/\n---\n/, '\n---\nAn edit that broke the file.\n'));
    const citing = published(s).find((c) => c.slug !== broken.slug && c.sources.some((src) => src.type === 'video'))!;
    const video = citing.sources.find((src) => src.type === 'video')!.id;
    fs.rmSync(content(`videos/${video}.md`));
    const inc = await incrementalEqualsFull();
    expect(client(`api/knowledge/${broken.slug}/index.json`)).toMatchObject({ title: broken.title, body: broken.body });
    expect(inc.removed).toContain(`api/videos/${video}/index.json`);
    expect(client(`api/knowledge/${citing.slug}/index.json`).sources.map((x: { id?: string }) => x.id)).not.toContain(video);
    const invalid = client('api/latest/index.json').freshness.pipeline_status.invalid_files as { path: string; served: string }[];
    expect(invalid).toEqual(expect.arrayContaining([{ path: rel, reason: expect.stringMatching(/^title: /), served: 'previous' }, expect.objectContaining({ path: `knowledge/${citing.slug}.md`, served: 'current' })]));
    // Fixed, the file's own version is published.
    fs.writeFileSync(content(rel), before);
    await incrementalEqualsFull();
    expect(client('api/latest/index.json').freshness.pipeline_status.invalid_files.map((f: { path: string }) => f.path)).not.toContain(rel);
  });
});
