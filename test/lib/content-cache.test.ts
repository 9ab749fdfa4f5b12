// The content loader's parse cache (issue 14, item 2): a cached load is the same snapshot as an uncached
// one through edits (even same-size edits that keep the mtime), additions, deletions and invalid files; a
// load that finds nothing new parses nothing, so it does not even rewrite the cache; a process reads the
// cache's base once while it stays the same file, and a listing reads the stat keys alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { ContentError, forgetLastSnapshot, loadSnapshot, loadVideos, loadVideosListed } from '../../src/lib/content/load.ts';
import { withWrites } from '../../src/lib/content/files.ts';
import { forgetParseCacheBases, parseCacheDeltaFile, parseCacheFile, warmParseCache } from '../../src/lib/content/parse-cache.ts';
import { statKey, statKeysDeltaFile, statKeysFile } from '../../src/lib/content/stat-keys.ts';

let root: string;
let content: string;
let cacheDir: string;
const cached = () => loadSnapshot(content, { cacheDir });
const uncached = () => loadSnapshot(content);
const cacheFile = () => parseCacheFile(cacheDir);
/** The cache as written: the base and the delta of the files changed since. */
const cacheText = () => [parseCacheFile(cacheDir), parseCacheDeltaFile(cacheDir)].map((f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '')).join('\n');
const videoFile = (id: string) => path.join(content, 'videos', `${id}.md`);
/** The files the cache holds an entry for: the base's, then the delta's changes. */
function cachedFiles(): Set<string> {
  const base = JSON.parse(fs.readFileSync(cacheFile(), 'utf8')) as { entries: Record<string, unknown> };
  const rels = new Set(Object.keys(base.entries));
  if (fs.existsSync(parseCacheDeltaFile(cacheDir))) {
    const delta = JSON.parse(fs.readFileSync(parseCacheDeltaFile(cacheDir), 'utf8')) as { entries: Record<string, unknown>; removed: string[] };
    for (const r of Object.keys(delta.entries)) rels.add(r);
    for (const r of delta.removed) rels.delete(r);
  }
  return rels;
}

/** A stat keys file's JSON: a base's (`id`; version 2 had none) or a delta's (`base`, `removed`). */
type StatKeysJson = { version: number; id?: string; base?: string; removed?: string[]; keys: Record<string, string> };
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as StatKeysJson;
/** The stat keys as written: the base's, with the delta naming it applied. */
function statKeysNow(): Record<string, string> {
  const base = readJson(statKeysFile(cacheDir));
  const keys = { ...base.keys };
  if (fs.existsSync(statKeysDeltaFile(cacheDir))) {
    const delta = readJson(statKeysDeltaFile(cacheDir));
    if (delta.base === base.id) {
      for (const rel of delta.removed!) delete keys[rel];
      Object.assign(keys, delta.keys);
    }
  }
  return keys;
}

/**
 * A same-size edit of a video's title with the mtime put back (only ctime moves): returns the title's new
 * first letter.
 */
function sameSizeEdit(id: string): string {
  const file = videoFile(id);
  const stat = fs.statSync(file);
  const text = fs.readFileSync(file, 'utf8');
  const title = /^title: "(.)/m.exec(text)!;
  const next = title[1] === 'Q' ? 'Z' : 'Q';
  const edited = text.replace(/^title: "./m, `title: "${next}`);
  expect(edited.length).toBe(text.length);
  fs.writeFileSync(file, edited);
  fs.utimesSync(file, stat.atime, stat.mtime);
  return next;
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-content-cache-'));
  content = path.join(root, 'content');
  cacheDir = path.join(root, 'var', 'cache');
  generateCorpus({ dir: content, videos: 24, seed: 5 });
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('loadSnapshot with a parse cache', () => {
  it('gives the uncached snapshot, cold and warm, and a warm load with nothing new parses nothing', () => {
    const reference = uncached();
    expect(cached()).toEqual(reference);
    expect(fs.existsSync(cacheFile())).toBe(true);
    const before = { text: cacheText(), mtime: fs.statSync(cacheFile()).mtimeMs };
    const warm = cached();
    expect(warm).toEqual(reference);
    expect(warm.contentHash).toBe(reference.contentHash);
    // Nothing parsed: the cache was not written again.
    expect(fs.statSync(cacheFile()).mtimeMs).toBe(before.mtime);
    expect(cacheText()).toBe(before.text);
  });

  it('loadVideos saves what it parsed of the videos and keeps every other file\'s entry', () => {
    cached();
    const before = cacheText();
    const relsBefore = cachedFiles();
    expect([...relsBefore].some((r) => r.startsWith('knowledge/')) && [...relsBefore].some((r) => r.startsWith('essays/'))).toBe(true);
    const first = uncached().videos[0];
    fs.writeFileSync(videoFile('vidsOnly001'), fs.readFileSync(videoFile(first.video_id), 'utf8').replace(/^video_id: .*$/m, 'video_id: "vidsOnly001"'));
    try {
      const videos = loadVideos(content, { cacheDir });
      expect(videos).toEqual(uncached().videos);
      expect(videos.map((v) => v.video_id)).toContain('vidsOnly001');
      // The new video's parse is saved; every file of every other kind keeps its entry.
      const after = cacheText();
      expect(after).not.toBe(before);
      expect([...cachedFiles()].sort()).toEqual([...relsBefore, 'videos/vidsOnly001.md'].sort());
      // Nothing new since: nothing written.
      loadVideos(content, { cacheDir });
      expect(cacheText()).toBe(after);
      forgetLastSnapshot();
      expect(cached()).toEqual(uncached());
    } finally {
      fs.rmSync(videoFile('vidsOnly001'));
    }
  });

  it('takes the video files as an earlier load listed them, with the files written since, instead of walking videos/ again', () => {
    const [a, b] = uncached().videos.map((v) => v.video_id);
    const texts = { a: fs.readFileSync(videoFile(a), 'utf8'), b: fs.readFileSync(videoFile(b), 'utf8') };
    try {
      // As summarise then update-index in a chain: list the videos, write one, hand the listing on with it.
      const { listing } = loadVideosListed(content, { cacheDir });
      const written = texts.a.replace(/^title: .*$/m, 'title: "Written by the job"');
      fs.writeFileSync(videoFile(a), written);
      const handed = loadSnapshot(content, { cacheDir, videos: withWrites(listing, new Map([[`videos/${a}.md`, written]])) });
      expect(handed.videosById.get(a)!.title).toBe('Written by the job');
      expect(handed).toEqual(uncached());

      // Someone else's edit after the listing is not seen by a load handed that listing (it did not walk
      // videos/), and is by the next load that walks it.
      const { listing: again } = loadVideosListed(content, { cacheDir });
      fs.writeFileSync(videoFile(b), texts.b.replace(/^title: .*$/m, 'title: "Edited by hand meanwhile"'));
      forgetLastSnapshot();
      expect(loadSnapshot(content, { cacheDir, videos: again }).videosById.get(b)!.title).not.toBe('Edited by hand meanwhile');
      // A listing of another content folder is not taken.
      expect(loadSnapshot(content, { cacheDir, videos: { ...again, contentDir: path.join(root, 'elsewhere') } }).videosById.get(b)!.title).toBe('Edited by hand meanwhile');
      forgetLastSnapshot();
      const walked = cached();
      expect(walked.videosById.get(b)!.title).toBe('Edited by hand meanwhile');
      expect(walked).toEqual(uncached());
    } finally {
      fs.writeFileSync(videoFile(a), texts.a);
      fs.writeFileSync(videoFile(b), texts.b);
      forgetLastSnapshot();
    }
  });

  it('re-reads an edited file, even one of the same size whose mtime was put back', () => {
    const id = uncached().videos[0].video_id;
    const next = sameSizeEdit(id);
    const snap = cached();
    expect(snap.videosById.get(id)!.title).toBe(uncached().videosById.get(id)!.title);
    expect(snap.videosById.get(id)!.title[0]).toBe(next);
    expect(snap).toEqual(uncached());
  });

  it('finds a new file and forgets a deleted one, in the snapshot and in the cache', () => {
    const template = fs.readFileSync(videoFile(uncached().videos[1].video_id), 'utf8');
    const fresh = 'cacheNew001';
    fs.writeFileSync(videoFile(fresh), template.replace(/^video_id: .*$/m, `video_id: ${fresh}`));
    const base = fs.readFileSync(cacheFile(), 'utf8');
    expect(cached().videosById.has(fresh)).toBe(true);
    expect(cacheText()).toContain(`videos/${fresh}.md`);
    // A few changed files go to the delta; the base is not written again.
    expect(fs.readFileSync(cacheFile(), 'utf8')).toBe(base);
    expect(fs.readFileSync(parseCacheDeltaFile(cacheDir), 'utf8')).toContain(`videos/${fresh}.md`);
    fs.rmSync(videoFile(fresh));
    const snap = cached();
    expect(snap.videosById.has(fresh)).toBe(false);
    expect(snap).toEqual(uncached());
    expect(cacheText()).not.toContain(`videos/${fresh}.md`);
  });

  it('reports an invalid file exactly as an uncached load does, and loads again once it is fixed', () => {
    const id = uncached().videos[2].video_id;
    const good = fs.readFileSync(videoFile(id), 'utf8');
    fs.writeFileSync(videoFile(id), good.replace(/^date: .*$/m, 'date: 2026-13-45'));
    const problems = (load: () => unknown) => {
      try {
        load();
      } catch (err) {
        if (err instanceof ContentError) return err.problems;
        throw err;
      }
      return [];
    };
    const expected = problems(uncached);
    expect(expected).toEqual([`videos/${id}.md: date: expected a date YYYY-MM-DD`]);
    expect(problems(cached)).toEqual(expected);
    expect(problems(cached)).toEqual(expected); // and again from the cache
    fs.writeFileSync(videoFile(id), good);
    expect(cached()).toEqual(uncached());
  });

  it('reads no file whose stat key vouches for its bytes, and still every file that changed', async () => {
    // Past the racy window, a load records each file's stat key; the next one reads only what changed.
    await new Promise((r) => setTimeout(r, 2100));
    expect(cached()).toEqual(uncached());
    const reads = vi.spyOn(fs, 'readFileSync');
    const contentReads = () => reads.mock.calls.filter(([f]) => String(f).startsWith(content + path.sep)).map(([f]) => path.relative(content, String(f)));
    try {
      expect(cached()).toEqual(uncached());
      reads.mockClear();
      const snap = cached();
      // Only the modelfiles and skills, whose text the snapshot carries, are read.
      expect(contentReads().every((f) => f.endsWith('.modelfile') || f.startsWith('skills'))).toBe(true);
      expect(snap.videos.length).toBeGreaterThan(0);
      // A same-size edit with the mtime put back moves ctime: the file is read again.
      const id = snap.videos[3].video_id;
      const next = sameSizeEdit(id);
      reads.mockClear();
      const edited = cached();
      expect(contentReads()).toContain(`videos/${id}.md`);
      expect(edited.videosById.get(id)!.title[0]).toBe(next);
      expect(edited).toEqual(uncached());
    } finally {
      reads.mockRestore();
    }
  });

  it('reads the base once per process while it is the same file, and again once another writer replaced it', () => {
    expect(cached()).toEqual(uncached());
    const reads = vi.spyOn(fs, 'readFileSync');
    const baseReads = () => reads.mock.calls.filter(([f]) => String(f) === cacheFile()).length;
    try {
      // An edit goes to the delta; the base stays the file this process read, so it is not read again.
      const id = uncached().videos[5].video_id;
      const file = videoFile(id);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^title: "/m, 'title: "Edited '));
      reads.mockClear();
      const edited = cached();
      expect(edited.videosById.get(id)!.title).toMatch(/^Edited /);
      expect(edited).toEqual(uncached());
      expect(baseReads()).toBe(0);
      // Another process replaces the base (write and rename, as saves do): the next load reads the new one.
      const text = fs.readFileSync(cacheFile(), 'utf8');
      fs.writeFileSync(`${cacheFile()}.other`, text);
      fs.renameSync(`${cacheFile()}.other`, cacheFile());
      reads.mockClear();
      expect(cached()).toEqual(uncached());
      expect(baseReads()).toBe(1);
      reads.mockClear();
      expect(cached()).toEqual(uncached());
      expect(baseReads()).toBe(0);
    } finally {
      reads.mockRestore();
    }
  });

  it('is written in ASCII (it reads back faster), and a cache written in UTF-8 is still used as it is', () => {
    const id = uncached().videos[3].video_id;
    const file = videoFile(id);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^title: "/m, 'title: "Čas za 🚀 '));
    fs.rmSync(cacheFile(), { force: true }); // the next save writes a new base, not a delta
    expect(cached()).toEqual(uncached());
    const base = fs.readFileSync(cacheFile());
    expect(isAscii(base)).toBe(true);
    expect(base.toString('latin1').includes('\\u010cas za \\ud83d\\ude80')).toBe(true); // Čas za 🚀, escaped
    // The same cache in UTF-8 (as caches were written before): read as it is, nothing parsed again, so
    // nothing rewritten.
    fs.writeFileSync(cacheFile(), JSON.stringify(JSON.parse(base.toString('latin1'))));
    const before = fs.readFileSync(cacheFile());
    expect(isAscii(before)).toBe(false);
    const warm = cached();
    expect(warm).toEqual(uncached());
    expect(warm.videosById.get(id)!.title).toMatch(/^Čas za 🚀 /);
    expect(fs.readFileSync(cacheFile()).equals(before)).toBe(true);
  });

  it('ignores a corrupt cache and replaces it', () => {
    fs.writeFileSync(cacheFile(), '{not json');
    expect(cached()).toEqual(uncached());
    expect(() => JSON.parse(fs.readFileSync(cacheFile(), 'utf8'))).not.toThrow();
  });
});

describe('the snapshot a process keeps from its last load', () => {
  /** A load that cannot reuse anything kept: what the content really is now (it forgets the kept snapshot). */
  const fresh = () => {
    forgetLastSnapshot();
    const snap = loadSnapshot(content, { cacheDir: path.join(root, 'var', 'other-cache') });
    forgetLastSnapshot();
    return snap;
  };

  it('is returned as it is while every file is the same, and given up by any edit, addition or deletion', () => {
    const first = cached();
    expect(cached()).toBe(first);
    const [a, b] = [first.videos[0].video_id, first.videos[1].video_id];

    fs.writeFileSync(videoFile(a), fs.readFileSync(videoFile(a), 'utf8').replace(/^title: "/m, 'title: "Kept? '));
    const edited = cached();
    expect(edited).not.toBe(first);
    expect(edited.videosById.get(a)!.title).toMatch(/^Kept\? /);
    expect(cached()).toBe(edited);
    expect(edited).toEqual(fresh());

    fs.writeFileSync(videoFile('keptNew001'), fs.readFileSync(videoFile(b), 'utf8').replace(/^video_id: .*$/m, 'video_id: keptNew001'));
    const added = cached();
    expect(added.videosById.has('keptNew001')).toBe(true);
    expect(added).toEqual(fresh());

    fs.rmSync(videoFile('keptNew001'));
    const removed = cached();
    expect(removed.videosById.has('keptNew001')).toBe(false);
    expect(removed).toEqual(fresh());
  });

  it('sees a file changed again right after the load that kept it (inside the racy window, same size, mtime put back)', () => {
    const kept = cached();
    const id = kept.videos[4].video_id;
    const next = sameSizeEdit(id);
    const after = cached();
    expect(after).not.toBe(kept);
    expect(after.videosById.get(id)!.title[0]).toBe(next);
    expect(after).toEqual(fresh());
  });

  it('is not handed to a load with another cache folder, nor kept over a parse cache that was lost', () => {
    const kept = cached();
    const other = loadSnapshot(content, { cacheDir: path.join(root, 'var', 'third-cache') });
    expect(other).not.toBe(kept);
    expect(other).toEqual(kept);
    // Kept for the folder of the last load only.
    cached();
    fs.rmSync(cacheDir, { recursive: true, force: true });
    const again = cached();
    expect(again).toEqual(kept);
    // The lost cache was made again whole (not a cache of stat keys without parses).
    expect(fs.existsSync(cacheFile())).toBe(true);
    expect(JSON.parse(fs.readFileSync(cacheFile(), 'utf8')).entries[`videos/${kept.videos[0].video_id}.md`].values.front).toBeTruthy();
  });
});

describe('the stat keys, apart from the parses', () => {
  it('loads again a file changed after the listing vouched for it, rather than report it invalid', async () => {
    await new Promise((r) => setTimeout(r, 2100)); // past the racy window: every file's stat key is recorded
    expect(cached()).toEqual(uncached());
    // The parses lost: a vouched file's bytes are read when it is assembled, after the listing.
    fs.rmSync(cacheFile());
    fs.rmSync(parseCacheDeltaFile(cacheDir), { force: true });
    forgetParseCacheBases();
    forgetLastSnapshot();
    const id = uncached().videos[0].video_id;
    const original = fs.readFileSync(videoFile(id), 'utf8');
    expect(original).toMatch(/^title: .*$/m);
    try {
      const edit = () => fs.writeFileSync(videoFile(id), original.replace(/^title: .*$/m, 'title: "Changed while loading"'));
      const snap = loadSnapshot(content, { cacheDir, lenient: true, onListed: edit });
      expect(snap.invalid).toEqual([]);
      expect(snap.videosById.get(id)?.title).toBe('Changed while loading');
      expect(snap).toEqual(uncached());
    } finally {
      fs.writeFileSync(videoFile(id), original);
    }
  });

  it('lists content/ from the stat keys alone: the parses are read after the listing, and either file may be lost', async () => {
    await new Promise((r) => setTimeout(r, 2100)); // past the racy window: the next load records every file's stat key
    expect(cached()).toEqual(uncached());
    expect(fs.existsSync(statKeysFile(cacheDir))).toBe(true);
    const reads = vi.spyOn(fs, 'readFileSync');
    const baseReads = () => reads.mock.calls.filter(([f]) => String(f) === cacheFile()).length;
    const contentReads = () => reads.mock.calls.filter(([f]) => String(f).startsWith(path.join(content, 'videos') + path.sep)).length;
    try {
      forgetParseCacheBases();
      forgetLastSnapshot();
      reads.mockClear();
      let atListing: { base: number; videos: number } | undefined;
      const snap = loadSnapshot(content, { cacheDir, onListed: () => (atListing = { base: baseReads(), videos: contentReads() }) });
      // Listed with no video read (the stat keys vouch for them) and the parses not read yet; then read once.
      expect(atListing).toEqual({ base: 0, videos: 0 });
      expect(baseReads()).toBe(1);
      expect(snap).toEqual(uncached());

      // Both read ahead (rebuild-site's thread while summarise runs): the load in the thread reads neither again.
      const statReads = () => reads.mock.calls.filter(([f]) => String(f) === statKeysFile(cacheDir)).length;
      forgetParseCacheBases();
      forgetLastSnapshot();
      reads.mockClear();
      warmParseCache(cacheDir);
      expect([baseReads(), statReads()]).toEqual([1, 1]);
      expect(cached()).toEqual(snap);
      expect([baseReads(), statReads()]).toEqual([1, 1]);

      // The stat keys lost: every file is read and hashed, nothing parsed again, and the keys are written again.
      // (A delta left behind names a base that is gone: ignored.)
      fs.rmSync(statKeysFile(cacheDir));
      forgetLastSnapshot();
      reads.mockClear();
      const unvouched = cached();
      expect(contentReads()).toBe(snap.videos.length);
      expect(unvouched).toEqual(uncached());
      expect(fs.existsSync(statKeysFile(cacheDir))).toBe(true);

      // The parses lost, the stat keys kept: the vouched files are read for the parses the cache lacks.
      fs.rmSync(cacheFile());
      fs.rmSync(parseCacheDeltaFile(cacheDir), { force: true });
      forgetParseCacheBases();
      forgetLastSnapshot();
      reads.mockClear();
      const unparsed = cached();
      expect(contentReads()).toBe(snap.videos.length);
      expect(unparsed).toEqual(uncached());
      expect(fs.existsSync(cacheFile())).toBe(true);
    } finally {
      reads.mockRestore();
    }
  });

  it("a load that takes its kept snapshot, handed summarise's listing of the videos, keeps their stat keys and parses", async () => {
    await new Promise((r) => setTimeout(r, 2100)); // past the racy window: every file's stat key is recorded
    forgetLastSnapshot();
    const kept = cached(); // this process's kept snapshot
    const statKeys = () => Object.keys(statKeysNow()).sort();
    const keysBefore = statKeys();
    const filesBefore = cachedFiles();
    expect(keysBefore.filter((rel) => rel.startsWith('videos/')).length).toBe(kept.videos.length);
    const { listing } = loadVideosListed(content, { cacheDir }); // summarise's
    expect(loadSnapshot(content, { cacheDir, videos: listing })).toBe(kept); // update-index's, from that listing
    expect(statKeys()).toEqual(keysBefore);
    expect(cachedFiles()).toEqual(filesBefore);
  });

  it("a thread reads the stat keys file once while it is the one it read or wrote (summarise's load, then update-index's)", async () => {
    const keyReads = (reads: { mock: { calls: unknown[][] } }) => reads.mock.calls.filter(([f]) => String(f) === statKeysFile(cacheDir)).length;
    fs.writeFileSync(videoFile('keysMemo001'), fs.readFileSync(videoFile(cached().videos[0].video_id), 'utf8').replace(/^video_id: .*$/m, 'video_id: keysMemo001'));
    await new Promise((r) => setTimeout(r, 2100)); // past the racy window: the next load records the new file's stat key
    const reads = vi.spyOn(fs, 'readFileSync');
    try {
      forgetParseCacheBases(); // and the stat keys this thread read
      forgetLastSnapshot();
      reads.mockClear();
      // The videos' load writes the new file's key; the whole load after it reads none (the file is the one written).
      loadVideos(content, { cacheDir });
      expect(keyReads(reads)).toBe(1);
      const written = fs.statSync(statKeysFile(cacheDir), { bigint: true }).ctimeNs;
      expect(cached()).toEqual(uncached());
      expect(keyReads(reads)).toBe(1);
      // Another process puts a file there (a rename: another inode): it is read.
      const copy = `${statKeysFile(cacheDir)}.copy`;
      fs.copyFileSync(statKeysFile(cacheDir), copy);
      fs.renameSync(copy, statKeysFile(cacheDir));
      expect(fs.statSync(statKeysFile(cacheDir), { bigint: true }).ctimeNs).not.toBe(written);
      forgetLastSnapshot();
      reads.mockClear();
      expect(cached()).toEqual(uncached());
      expect(keyReads(reads)).toBe(1);
      forgetLastSnapshot();
      expect(cached()).toEqual(uncached());
      expect(keyReads(reads)).toBe(1);
    } finally {
      reads.mockRestore();
      fs.rmSync(videoFile('keysMemo001'));
    }
  });
});

describe('the stat keys as a base and a delta', () => {
  const racyWindow = () => new Promise((r) => setTimeout(r, 2100));
  const baseFile = () => statKeysFile(cacheDir);
  const deltaFile = () => statKeysDeltaFile(cacheDir);
  const videosDir = () => path.join(content, 'videos') + path.sep;
  /** The videos/ files read by the calls a spy saw, by path under content/. */
  const videoReads = (reads: { mock: { calls: unknown[][] } }) =>
    reads.mock.calls
      .map(([f]) => String(f))
      .filter((f) => f.startsWith(videosDir()))
      .map((f) => path.relative(content, f))
      .sort();
  /** A load that lists content/ as another thread or a later run would (this thread's stat keys and snapshot forgotten), and the videos it read. */
  function load(): { snap: ReturnType<typeof cached>; read: string[] } {
    forgetParseCacheBases();
    forgetLastSnapshot();
    const reads = vi.spyOn(fs, 'readFileSync');
    try {
      const snap = cached();
      return { snap, read: videoReads(reads) };
    } finally {
      reads.mockRestore();
    }
  }
  /** Both stat keys files lost, then a load past the racy window writes a base of every file's key. */
  async function freshBase(): Promise<StatKeysJson> {
    fs.rmSync(baseFile(), { force: true });
    fs.rmSync(deltaFile(), { force: true });
    await racyWindow();
    expect(load().snap).toEqual(uncached());
    const base = readJson(baseFile());
    expect(base.version).toBe(3);
    expect(typeof base.id).toBe('string');
    expect(fs.existsSync(deltaFile())).toBe(false);
    return base;
  }
  const originals = new Map<string, string>();
  /** Rewrites a video's title (another size: a new stat key), to be put back after the test. */
  function edit(id: string, title: string): string {
    const file = videoFile(id);
    const text = fs.readFileSync(file, 'utf8');
    if (!originals.has(file)) originals.set(file, text);
    fs.writeFileSync(file, text.replace(/^title: "/m, `title: "${title} `));
    return `videos/${id}.md`;
  }
  const putBack = () => {
    for (const [file, text] of originals) fs.writeFileSync(file, text);
    originals.clear();
    forgetLastSnapshot();
  };

  it('a load that changes a few keys writes only the delta, and base and delta read back vouch for every file', async () => {
    const [a, b, c] = uncached().videos.map((v) => v.video_id);
    const copyOf = (id: string) => fs.readFileSync(videoFile(c), 'utf8').replace(/^video_id: .*$/m, `video_id: ${id}`);
    const [old, fresh] = ['statBase001', 'statDelta001'];
    fs.writeFileSync(videoFile(old), copyOf(old)); // in the base, deleted below
    try {
      const base = await freshBase();
      const before = { bytes: fs.readFileSync(baseFile()), ino: fs.statSync(baseFile()).ino };
      const changed = [edit(a, 'Delta A'), edit(b, 'Delta B'), `videos/${fresh}.md`].sort();
      fs.writeFileSync(videoFile(fresh), copyOf(fresh));
      await racyWindow(); // past it: the next load records the changed files' keys
      const first = load();
      expect(first.read).toEqual(changed);
      expect(first.snap).toEqual(uncached());
      // The base is the same file, byte for byte; the delta names it and holds the changed keys.
      expect(fs.readFileSync(baseFile()).equals(before.bytes)).toBe(true);
      expect(fs.statSync(baseFile()).ino).toBe(before.ino);
      const delta = readJson(deltaFile());
      expect(delta.base).toBe(base.id);
      expect(Object.keys(delta.keys).sort()).toEqual(changed);
      expect(delta.removed).toEqual([]);
      // Read back (base and delta), they vouch for every file: none read.
      const second = load();
      expect(second.read).toEqual([]);
      expect(second.snap).toEqual(uncached());
      // Files deleted: one the base holds is removed in the delta, the delta's own leaves it; the base is the same file.
      fs.rmSync(videoFile(old));
      fs.rmSync(videoFile(fresh));
      expect(load().snap).toEqual(uncached());
      const after = readJson(deltaFile());
      expect(after.removed).toEqual([`videos/${old}.md`]);
      expect(Object.keys(after.keys).sort()).toEqual(changed.filter((rel) => rel !== `videos/${fresh}.md`));
      expect(fs.readFileSync(baseFile()).equals(before.bytes)).toBe(true);
      expect(fs.statSync(baseFile()).ino).toBe(before.ino);
      expect(load().read).toEqual([]);
    } finally {
      for (const id of [old, fresh]) fs.rmSync(videoFile(id), { force: true });
      putBack();
    }
  });

  it('ignores a delta naming another base', async () => {
    await freshBase();
    const [x, y] = uncached().videos.map((v) => v.video_id);
    try {
      const rel = edit(x, 'Foreign');
      await racyWindow();
      expect(load().read).toEqual([rel]); // its key now in the delta
      // A delta of another base with a wrong key for x: its stat key as it is, with y's SHA-256.
      const ySha = createHash('sha256').update(fs.readFileSync(videoFile(y))).digest('hex');
      fs.writeFileSync(deltaFile(), JSON.stringify({ version: 3, base: 'another-base', removed: [], keys: { [rel]: `${statKey(videoFile(x))} ${ySha}` } }));
      // The base alone: its key for x is the one before the edit, so x is read again (and only x).
      const { snap, read } = load();
      expect(read).toEqual([rel]);
      expect(snap.videosById.get(x)!.title).toMatch(/^Foreign /);
      expect(snap).toEqual(uncached());
    } finally {
      putBack();
    }
  });

  it('a corrupt or misshapen delta over a base with an id: every file read again, the uncached snapshot, and a new base', async () => {
    for (const misshapen of [false, true]) {
      const base = await freshBase();
      fs.writeFileSync(deltaFile(), misshapen ? JSON.stringify({ version: 3, base: base.id, removed: 'all', keys: {} }) : '{not json');
      const { snap, read } = load();
      expect(read.length).toBe(snap.videos.length);
      expect(snap).toEqual(uncached());
      // The keys written again as a new base; the next load reads no video.
      expect(readJson(baseFile()).id).not.toBe(base.id);
      expect(fs.existsSync(deltaFile())).toBe(false);
      expect(load().read).toEqual([]);
    }
  });

  it('reads a version-2 file as a base without an id; the next save that changes a key writes a version-3 base', async () => {
    await freshBase();
    fs.writeFileSync(baseFile(), JSON.stringify({ version: 2, keys: statKeysNow() }));
    const v2 = fs.readFileSync(baseFile());
    expect(load().read).toEqual([]); // it vouches for every file
    expect(fs.readFileSync(baseFile()).equals(v2)).toBe(true); // nothing changed: not written
    const x = uncached().videos[6].video_id;
    try {
      const rel = edit(x, 'Upgraded');
      await racyWindow();
      const { snap, read } = load();
      expect(read).toEqual([rel]);
      expect(snap).toEqual(uncached());
      const now = readJson(baseFile());
      expect(now.version).toBe(3);
      expect(typeof now.id).toBe('string');
      expect(fs.existsSync(deltaFile())).toBe(false);
      expect(load().read).toEqual([]);
    } finally {
      putBack();
    }
  });

  it('a thread reads the delta again once another process replaced it, and not the one it wrote itself', async () => {
    await freshBase();
    const x = uncached().videos[7].video_id;
    const reads = vi.spyOn(fs, 'readFileSync');
    const readsOf = (file: string) => reads.mock.calls.filter(([f]) => String(f) === file).length;
    /** A load of this thread (its stat keys kept), and what it read: the stat keys base and delta, videos. */
    const again = () => {
      forgetLastSnapshot();
      reads.mockClear();
      const snap = cached();
      return { snap, base: readsOf(baseFile()), delta: readsOf(deltaFile()), read: videoReads(reads) };
    };
    try {
      const rel = edit(x, 'Memo');
      await racyWindow();
      forgetParseCacheBases();
      expect(again()).toMatchObject({ read: [rel] }); // writes the delta with x's key
      expect(Object.keys(readJson(deltaFile()).keys)).toEqual([rel]);
      // The delta in place is the one this thread wrote: neither file is read again.
      expect(again()).toMatchObject({ base: 0, delta: 0, read: [] });
      // Another process replaces the delta (write and rename), without x's key: the delta alone is read
      // (the base is the same file), and x with it.
      const other = readJson(deltaFile());
      delete other.keys[rel];
      fs.writeFileSync(`${deltaFile()}.other`, JSON.stringify(other));
      fs.renameSync(`${deltaFile()}.other`, deltaFile());
      const replaced = again();
      expect(replaced).toMatchObject({ base: 0, delta: 1, read: [rel] });
      // That load wrote x's key again: this thread's delta, not read again.
      expect(again()).toMatchObject({ base: 0, delta: 0, read: [] });
      reads.mockRestore();
      expect(replaced.snap).toEqual(uncached());
    } finally {
      reads.mockRestore();
      putBack();
    }
  });
});
