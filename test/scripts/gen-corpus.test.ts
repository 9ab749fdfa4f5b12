import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';

describe('gen-corpus', () => {
  it('writes a valid corpus with the sample proportions, the same for the same seed', () => {
    const a = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-gen-a-'));
    const b = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-gen-b-'));
    try {
      generateCorpus({ dir: a, videos: 600, seed: 11 });
      generateCorpus({ dir: b, videos: 600, seed: 11 });
      const snap = loadSnapshot(a);
      expect(snap.videos).toHaveLength(600);
      expect(snap.essays).toHaveLength(100);
      expect(snap.concepts).toHaveLength(400);
      expect(snap.digests.length).toBeGreaterThanOrEqual(140);
      expect(snap.concepts.filter((c) => c.draft).length).toBe(40);
      expect(snap.essays.filter((e) => e.languages.includes('sl')).length).toBeGreaterThan(0);
      expect(loadSnapshot(b).contentHash).toBe(snap.contentHash);
    } finally {
      fs.rmSync(a, { recursive: true, force: true });
      fs.rmSync(b, { recursive: true, force: true });
    }
  });
});
