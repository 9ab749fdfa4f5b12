// A generated corpus with a full search index in a temporary folder, for the tests of update-index's delta
// (delta-keys.test.ts, doc-inputs-delta.test.ts): the content loaded through the parse cache as the pipeline
// does, its files edited in place, the index updated and its delta checked against every document's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { generateCorpus } from '../../../scripts/gen-corpus.ts';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import type { Snapshot } from '../../../src/lib/content/model.ts';
import { contentCacheDir } from '../../../src/lib/content/parse-cache.ts';
import { buildSearchIndex } from '../../../src/lib/search/index.ts';
import { updateSearchIndex, type DeltaFile } from '../../../src/lib/search/delta.ts';
import { docKey, documentsFromSnapshot } from '../../../src/lib/search/documents.ts';
import { documentHash, readDocInputs, type DocInputsState } from '../../../src/lib/search/manifest.ts';

export const builtin = { provider: 'builtin' as const, dimensions: 64 };

/** The folder (made now, under the system's temporary folder, named after `prefix`) and what the tests do in it. */
export function indexFixture(prefix: string) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const content = path.join(root, 'content');
  const dataDir = path.join(root, 'var');
  const dir = path.join(dataDir, 'index');
  const load = () => loadSnapshot(content, { cacheDir: contentCacheDir(dataDir) });
  const file = (rel: string) => path.join(content, rel);
  const edit = (rel: string, change: (text: string) => string) => fs.writeFileSync(file(rel), change(fs.readFileSync(file(rel), 'utf8')));
  const indexFile = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
  return {
    content,
    dataDir,
    dir,
    load,
    file,
    edit,
    indexFile,
    /**
     * A corpus of 40 videos generated with `seed` and its full index built; the snapshot, and a video that no
     * digest or concept names as a source (an edit to it moves its own key alone; deleting it breaks no link).
     */
    async build(seed: number): Promise<{ snap: Snapshot; uncited: string }> {
      generateCorpus({ dir: content, videos: 40, seed });
      const snap = load();
      await buildSearchIndex(snap, { dataDir, embedder: builtin });
      const digestCited = new Set(snap.digests.flatMap((d) => d.items.flatMap((i) => i.sources.map((s) => s.video_id))));
      return { snap, uncited: snap.videos.find((v) => !digestCited.has(v.video_id) && !snap.conceptsByVideo.has(v.video_id))!.video_id };
    },
    /**
     * Updates the index and checks that it wrote a delta whose new and changed documents are exactly those
     * whose hash differs from the base's; the snapshot, the base's hashes, the delta, and how many documents
     * it built and input keys it computed (from its log).
     */
    async update(): Promise<{ snap: Snapshot; base: Record<string, string>; delta: DeltaFile; built: number; computed: number }> {
      const snap = load();
      const logs: string[] = [];
      const r = await updateSearchIndex(snap, { dataDir, embedder: builtin, log: (m) => logs.push(m) });
      expect(r.mode, logs.join('\n')).toBe('delta');
      const base = indexFile('doc-hashes.json') as Record<string, string>;
      const delta = indexFile('delta.json') as DeltaFile;
      const expected = documentsFromSnapshot(snap).filter((d) => base[docKey(d.type, d.id)] !== documentHash(d));
      expect(delta.documents.map((d) => d.doc)).toEqual(expected);
      const text = logs.join('\n');
      return { snap, base, delta, built: Number(/; (\d+) of \d+ documents built/.exec(text)?.[1]), computed: Number(/; (\d+) input keys computed/.exec(text)?.[1]) };
    },
    /** The keys and record as the next update reads them (doc-inputs.json with its delta). */
    readBack(): DocInputsState {
      const { keys, record } = readDocInputs(dir);
      return { keys, record: record! };
    },
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
