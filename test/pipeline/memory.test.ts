// pipeline/lib/memory.ts: once its jobs are done, a chain's thread gives back what it loaded while
// rebuild-site's thread works on. What must hold: the chain's hand-ons are dropped, the next load in the thread
// loads anew (the snapshot it kept is gone) and gets the same content, and nothing else of the chain is touched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { releaseLoaded, releaseParses } from '../../pipeline/lib/memory.ts';
import type { ChainState } from '../../pipeline/lib/types.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { parseCacheFile } from '../../src/lib/content/parse-cache.ts';

let root: string;
const contentDir = () => path.join(root, 'content');
const cacheDir = () => path.join(root, 'cache');

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-memory-'));
  generateCorpus({ dir: contentDir(), videos: 8, seed: 4 });
  // A file changed within the last two seconds is read again by every load (its stat cannot vouch for its
  // bytes), and a load that reads a file keeps no snapshot for the next: the files must be older than that.
  await new Promise((resolve) => setTimeout(resolve, 2100));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("a chain's thread done loading", () => {
  it('drops the hand-ons and the kept snapshot, and the next load gets the same content anew', () => {
    const kept = loadSnapshot(contentDir(), { cacheDir: cacheDir() });
    expect(loadSnapshot(contentDir(), { cacheDir: cacheDir() })).toBe(kept); // kept for the next load of the same files
    const site = { index: async () => ({ counts: {}, changed: false, errors: [] }), publish: async () => ({ counts: {}, changed: false, errors: [], ok: true, error: null }), cancel: async () => {} };
    const chain: ChainState = { indexed: { contentDir: contentDir(), snapshot: kept }, preloaded: { contentDir: contentDir(), snapshot: kept }, site };
    releaseLoaded(chain);
    expect(chain).toEqual({ indexed: undefined, preloaded: undefined, videos: undefined, site });
    const again = loadSnapshot(contentDir(), { cacheDir: cacheDir() });
    expect(again).not.toBe(kept);
    expect(again.contentHash).toBe(kept.contentHash);
    expect(again.videos.map((v) => v.video_id)).toEqual(kept.videos.map((v) => v.video_id));
  });
});

describe('a thread done loading, working on with its snapshot (releaseParses)', () => {
  it('keeps the snapshot and forgets the parse cache’s base: the next load that needs a parse reads it again', () => {
    const kept = loadSnapshot(contentDir(), { cacheDir: cacheDir() });
    expect(loadSnapshot(contentDir(), { cacheDir: cacheDir() })).toBe(kept);
    const reads = vi.spyOn(fs, 'readFileSync');
    const baseReads = () => reads.mock.calls.filter(([f]) => String(f) === parseCacheFile(cacheDir())).length;
    const video = path.join(contentDir(), 'videos', `${kept.videos[0].video_id}.md`);
    const text = fs.readFileSync(video, 'utf8');
    try {
      releaseParses();
      expect(loadSnapshot(contentDir(), { cacheDir: cacheDir() })).toBe(kept); // the files unchanged: no parse needed
      expect(baseReads()).toBe(0);
      fs.writeFileSync(video, text.replace(/^title: "/m, 'title: "Released '));
      const edited = loadSnapshot(contentDir(), { cacheDir: cacheDir() });
      expect(edited.videos.find((v) => v.video_id === kept.videos[0].video_id)!.title).toMatch(/^Released /);
      expect(baseReads()).toBe(1); // forgotten: read again (a base kept in memory is not)
    } finally {
      reads.mockRestore();
      fs.writeFileSync(video, text);
    }
  });
});
