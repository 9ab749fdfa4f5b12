// summarise's record of the videos (pipeline/lib/summarise-record.ts): the videos to summarise and the tag
// vocabulary are what a load of every video gives, through edits, additions, deletions, invalid files and a
// lost or corrupt record; and with the record, summarise reads neither the parse cache's parses nor any
// video it knows that has a summary.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { loadSnapshot, loadVideos } from '../../src/lib/content/load.ts';
import { forgetParseCacheBases, parseCacheFile } from '../../src/lib/content/parse-cache.ts';
import { summariseRecordFile, videosToSummarise } from '../../pipeline/lib/summarise-record.ts';

let root: string;
let content: string;
let cacheDir: string;
const videoFile = (id: string) => path.join(content, 'videos', `${id}.md`);
const edit = (id: string, change: (text: string) => string) => fs.writeFileSync(videoFile(id), change(fs.readFileSync(videoFile(id), 'utf8')));
const unsummarise = (id: string) => edit(id, (t) => t.replace(/^summary: .*$/m, 'summary: ""'));

/** What summarise needs, as a lenient load of every video gives it (no record, no cache). */
function expected() {
  const videos = loadVideos(content, { lenient: true });
  return { todo: videos.filter((v) => v.summary === '').map((v) => v.video_id), vocabulary: [...new Set(videos.flatMap((v) => v.tags))].sort() };
}
function actual() {
  const r = videosToSummarise(content, cacheDir);
  return { todo: r.todo.map((v) => v.video_id), vocabulary: r.vocabulary };
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-summarise-record-'));
  content = path.join(root, 'content');
  cacheDir = path.join(root, 'var', 'cache');
  generateCorpus({ dir: content, videos: 40, seed: 11 });
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('videosToSummarise', () => {
  it('gives what a load of every video gives, and makes its record on the way', () => {
    const ids = loadVideos(content).map((v) => v.video_id);
    unsummarise(ids[2]);
    unsummarise(ids[7]);
    expect(expected().todo.sort()).toEqual([ids[2], ids[7]].sort());
    expect(actual()).toEqual(expected());
    expect(fs.existsSync(summariseRecordFile(cacheDir))).toBe(true);
    expect(actual()).toEqual(expected()); // from the record
  });

  it('with its record, reads neither the parse cache’s parses nor a video it knows has a summary', async () => {
    await new Promise((r) => setTimeout(r, 2100)); // past the racy window: stat keys vouch for every file from now
    const ids = loadVideos(content).map((v) => v.video_id);
    loadSnapshot(content, { cacheDir, lenient: true }); // the parse cache holds every file's parse
    actual();
    // Ingest brings a new video without a summary.
    fs.writeFileSync(videoFile('recordNew01'), fs.readFileSync(videoFile(ids[0]), 'utf8').replace(/^video_id: .*$/m, 'video_id: "recordNew01"').replace(/^summary: .*$/m, 'summary: ""'));
    forgetParseCacheBases();
    const reads = vi.spyOn(fs, 'readFileSync');
    try {
      const r = videosToSummarise(content, cacheDir);
      const files = reads.mock.calls.map(([f]) => String(f));
      reads.mockRestore();
      expect(files).not.toContain(parseCacheFile(cacheDir));
      const videoReads = files.filter((f) => f.startsWith(path.join(content, 'videos') + path.sep)).map((f) => path.basename(f, '.md'));
      // Read: the new file, and the videos waiting for a summary (their transcripts); no other.
      expect(new Set(videoReads)).toEqual(new Set(r.todo.map((v) => v.video_id)));
      expect(r.todo.map((v) => v.video_id)).toContain('recordNew01');
      // Each as a whole load gives it: what the summariser is handed (title, transcript, language).
      const all = new Map(loadVideos(content).map((v) => [v.video_id, v]));
      for (const v of r.todo) expect(v).toEqual(all.get(v.video_id));
    } finally {
      reads.mockRestore();
      fs.rmSync(videoFile('recordNew01'));
    }
    expect(actual()).toEqual(expected());
  });

  it('follows edits, deletions and invalid files: the vocabulary and the videos waiting are those of the files as they are', () => {
    const videos = loadVideos(content);
    const originals = new Map(videos.map((v) => [v.video_id, fs.readFileSync(videoFile(v.video_id), 'utf8')]));
    actual();
    // A summary written, a tag no other video has, a file made invalid, a file deleted.
    const waiting = expected().todo[0];
    edit(waiting, (t) => t.replace(/^summary: .*$/m, 'summary: "Written by an editor."'));
    edit(videos[3].video_id, (t) => t.replace(/^tags: .*$/m, 'tags: [only-in-this-test]'));
    edit(videos[4].video_id, (t) => t.replace(/^date: .*$/m, 'date: someday').replace(/^summary: .*$/m, 'summary: ""'));
    const deleted = videos[5];
    const deletedText = fs.readFileSync(videoFile(deleted.video_id), 'utf8');
    fs.rmSync(videoFile(deleted.video_id));
    const now = actual();
    expect(now).toEqual(expected());
    expect(now.todo).not.toContain(waiting);
    expect(now.todo).not.toContain(videos[4].video_id); // invalid: not summarised
    expect(now.vocabulary).toContain('only-in-this-test');
    // Put back: the tag leaves the vocabulary, the deleted video's come back.
    edit(videos[3].video_id, (t) => t.replace(/^tags: .*$/m, 'tags: [agents]'));
    fs.writeFileSync(videoFile(deleted.video_id), deletedText);
    expect(actual().vocabulary).not.toContain('only-in-this-test');
    expect(actual()).toEqual(expected());
    for (const [id, text] of originals) fs.writeFileSync(videoFile(id), text);
    expect(actual()).toEqual(expected());
  });

  it('makes a lost or corrupt record again, and gives the same answer meanwhile', () => {
    const before = actual();
    fs.writeFileSync(summariseRecordFile(cacheDir), '{not json');
    expect(actual()).toEqual(before);
    expect(() => JSON.parse(fs.readFileSync(summariseRecordFile(cacheDir), 'utf8'))).not.toThrow();
    // Lost with the parse cache (a first run): every video parsed through the parse cache, for the load after.
    fs.rmSync(summariseRecordFile(cacheDir));
    fs.rmSync(parseCacheFile(cacheDir));
    forgetParseCacheBases();
    expect(actual()).toEqual(before);
    const parses = JSON.parse(fs.readFileSync(parseCacheFile(cacheDir), 'utf8')) as { entries: Record<string, { values: { front?: unknown } }> };
    expect(Object.keys(parses.entries).filter((rel) => rel.startsWith('videos/') && parses.entries[rel].values.front).length).toBe(loadVideos(content).length);
    expect(actual()).toEqual(expected());
  });
});
