// update-index's input keys (doc-inputs.json) as a base and a delta: a run writes only what changed since
// the base (doc-inputs.delta.json), not the whole record again. What the next run reads back (base with its
// delta) must be exactly what the whole file would have held; a delta of another base is ignored; one that
// cannot be read leaves no keys (every key computed, none wrongly kept); the file of the whole form (version
// 2) is read and replaced by a base; a full build leaves a base alone. What a thread read ahead is used only
// while the index files are those it read.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Snapshot } from '../../src/lib/content/model.ts';
import { shortItemHash } from '../../src/lib/content/assemble.ts';
import { buildSearchIndex } from '../../src/lib/search/index.ts';
import { prefetchIndexInputs } from '../../src/lib/search/delta.ts';
import { docKey, documentsFromSnapshot } from '../../src/lib/search/documents.ts';
import { searchInputs } from '../../src/lib/search/inputs.ts';
import { docInputsOf, documentHashes, readDocInputs, writeDocInputs, type DocInputsState } from '../../src/lib/search/manifest.ts';
import { builtin, indexFixture } from './helpers/index-fixture.ts';

const fx = indexFixture('kb-doc-inputs-');
const { dataDir, dir, load, file, edit, update, readBack } = fx;
const retitle = (id: string, word: string) => edit(`videos/${id}.md`, (t) => t.replace(/^title: "/m, `title: "${word} `));
const base = () => path.join(dir, 'doc-inputs.json');
const deltaFile = () => path.join(dir, 'doc-inputs.delta.json');
const readJson = (f: string) => JSON.parse(fs.readFileSync(f, 'utf8'));
const documents = (s: Snapshot) => s.videos.length + s.essays.length + s.digests.length + s.concepts.length + s.personas.length;

/** What the whole file would hold for this snapshot: every key computed, every document hashed. */
function wholeState(snap: Snapshot): DocInputsState {
  const hashes = documentHashes(documentsFromSnapshot(snap));
  return docInputsOf(searchInputs(snap), (k) => hashes[k]);
}

let videos: string[];
let gone: string;
beforeAll(async () => {
  // gone: a video no digest or concept cites, to delete; an edit to any video moves its own key alone.
  const { snap, uncited } = await fx.build(12);
  gone = uncited;
  videos = snap.videos.map((v) => v.video_id).filter((id) => id !== gone);
});
afterAll(() => fx.remove());

describe('doc-inputs.json as a base and a delta', () => {
  it('a full build writes a base with an id and no delta', () => {
    expect(readJson(base())).toMatchObject({ version: 3, id: expect.any(String) });
    expect(fs.existsSync(deltaFile())).toBe(false);
  });

  it('an update writes only the delta; the next reads back what the whole file would hold and computes only the moved keys', async () => {
    const before = fs.readFileSync(base());
    const stat = fs.statSync(base());
    retitle(videos[0], 'Edited');
    const first = await update();
    expect(first.computed).toBe(1);
    // The base is the same file, untouched; the delta names it and holds the one document's entries.
    expect(fs.readFileSync(base()).equals(before)).toBe(true);
    expect(fs.statSync(base())).toMatchObject({ ino: stat.ino, mtimeMs: stat.mtimeMs });
    const delta = readJson(deltaFile());
    expect(delta.base).toBe(readJson(base()).id);
    expect(Object.keys(delta.keys.set)).toEqual([docKey('video', videos[0])]);
    expect(readBack()).toEqual(wholeState(first.snap));

    // A second run over the delta: its key alone is computed (the first video's is taken from the delta).
    retitle(videos[1], 'Edited');
    const second = await update();
    expect(second).toMatchObject({ computed: 1, built: 1 });
    expect(fs.readFileSync(base()).equals(before)).toBe(true);
    expect(Object.keys(readJson(deltaFile()).keys.set).sort()).toEqual([docKey('video', videos[0]), docKey('video', videos[1])].sort());
    expect(readBack()).toEqual(wholeState(second.snap));

    // A video that comes and one that goes: entries set and removed, read back the same.
    fs.writeFileSync(file('videos/inputsNew001.md'), fs.readFileSync(file(`videos/${videos[2]}.md`), 'utf8').replace(/^video_id: .*$/m, 'video_id: inputsNew001'));
    fs.rmSync(file(`videos/${gone}.md`));
    const third = await update();
    expect(third.computed).toBe(1);
    expect(readJson(deltaFile()).keys.removed).toEqual([docKey('video', gone)]);
    expect(readBack()).toEqual(wholeState(third.snap));
  });

  it('a delta naming another base is ignored (it is older than the base)', async () => {
    // A delta of another base that says the edited video did not change: applied, its old key would be taken
    // as recorded (and the check the tests run with, KB_CHECK_INPUT_KEYS=1, would throw).
    retitle(videos[4], 'Ignored');
    const snap = load();
    const delta = readJson(deltaFile());
    const key = docKey('video', videos[4]);
    delta.base = 'another-base';
    delta.items.set[key] = shortItemHash(snap.itemHashes.get(`video:${videos[4]}`)!);
    delta.keys.set[key] = readBack().keys[key];
    fs.writeFileSync(deltaFile(), JSON.stringify(delta));
    // The base alone: the three documents the ignored delta held, and the edited one, computed.
    const r = await update();
    expect(r.computed).toBe(4);
    expect(readBack()).toEqual(wholeState(r.snap));
  });

  for (const [what, text] of [
    ['cannot be parsed', () => '{"version":3,"base":'],
    ['has another shape', () => JSON.stringify({ ...readJson(deltaFile()), items: { set: {}, removed: null } })],
  ] as const) {
    it(`a delta of this base that ${what} leaves no keys: every key computed, every document built, none wrongly kept`, async () => {
      retitle(videos[5], 'Corrupt');
      const snap = load();
      expect(fs.existsSync(deltaFile())).toBe(true);
      fs.writeFileSync(deltaFile(), text());
      expect(readDocInputs(dir)).toEqual({ keys: {} });
      const r = await update();
      expect(r).toMatchObject({ computed: documents(snap), built: documents(snap) });
      // That run had no base to write a delta over: a new one, and no delta.
      expect(fs.existsSync(deltaFile())).toBe(false);
      expect(readBack()).toEqual(wholeState(r.snap));
      // A delta again for the next run to corrupt.
      retitle(videos[0], 'Again');
      expect((await update()).computed).toBe(1);
    });
  }

  it('the whole form (version 2, no id) is read with its record, and the run after writes a base', async () => {
    const state = readBack();
    fs.writeFileSync(base(), JSON.stringify({ version: 2, ...state }));
    // The delta left beside it names a base the file is not: ignored.
    expect(fs.existsSync(deltaFile())).toBe(true);
    retitle(videos[1], 'Whole');
    const r = await update();
    expect(r).toMatchObject({ computed: 1, built: 1 });
    expect(readJson(base())).toMatchObject({ version: 3, id: expect.any(String) });
    expect(fs.existsSync(deltaFile())).toBe(false);
    expect(readBack()).toEqual(wholeState(r.snap));
  });

  it('a full build writes a new base and leaves no delta', async () => {
    retitle(videos[2], 'Before the build');
    await update();
    const id = readJson(base()).id;
    expect(fs.existsSync(deltaFile())).toBe(true);
    const snap = load();
    await buildSearchIndex(snap, { dataDir, embedder: builtin });
    expect(readJson(base())).toMatchObject({ version: 3, id: expect.not.stringMatching(`^${id}$`) });
    expect(fs.existsSync(deltaFile())).toBe(false);
    expect(readBack()).toEqual(wholeState(snap));
  });
});

describe("an update's largest inputs read ahead (prefetchIndexInputs)", () => {
  const readsOf = (reads: { mock: { calls: unknown[][] } }, f: string) => reads.mock.calls.filter(([p]) => String(p) === f).length;

  it('are taken by the next update while the index files are the ones read: the same delta, neither file read again', async () => {
    retitle(videos[5], 'Prefetched');
    prefetchIndexInputs(dataDir);
    const reads = vi.spyOn(fs, 'readFileSync');
    try {
      const { snap } = await update();
      expect(readsOf(reads, base())).toBe(0);
      expect(readsOf(reads, path.join(dir, 'doc-hashes.json'))).toBe(1); // update()'s own check of the delta
      expect(readBack()).toEqual(wholeState(snap));
    } finally {
      reads.mockRestore();
    }
  });

  it('are read again when a build replaced the index files in between: the delta is over the new base', async () => {
    retitle(videos[6], 'Stale');
    prefetchIndexInputs(dataDir);
    await buildSearchIndex(load(), { dataDir, embedder: builtin }); // the nightly build, say: every file new
    retitle(videos[7], 'Fresh');
    const reads = vi.spyOn(fs, 'readFileSync');
    try {
      // update() checks the delta against the new base's hashes: the old base's would list videos[6] as changed.
      const { snap, built } = await update();
      expect(readsOf(reads, base())).toBe(1);
      expect(built).toBe(1);
      expect(readBack()).toEqual(wholeState(snap));
    } finally {
      reads.mockRestore();
    }
  });
});

describe('writeDocInputs', () => {
  const state = (n: number, salt = 's'): DocInputsState => {
    const keys: DocInputsState['keys'] = {};
    const items: Record<string, string> = {};
    for (let i = 0; i < n; i++) {
      keys[`video:${i}`] = [`in${i}`, `h${i}`];
      items[`video:${i}`] = `i${i}`;
    }
    return { keys, record: { salt, items, cites: { 'essay:a': ['video:1', 'video:2'], 'essay:b': ['video:3'] } } };
  };
  const copy = (s: DocInputsState): DocInputsState => structuredClone(s);
  const got = (d: string): DocInputsState => {
    const { keys, record } = readDocInputs(d);
    return { keys, record: record! };
  };
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-doc-inputs-w-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** Each step changes a state as a run would, and names the documents whose keys or items it changed. */
  const steps: [string[], (s: DocInputsState) => void][] = [
    [
      ['video:5', 'video:6', 'video:new'],
      (s) => {
        s.keys['video:5'] = ['in5b', 'h5b'];
        s.record.items['video:5'] = 'i5b';
        delete s.keys['video:6'];
        delete s.record.items['video:6'];
        s.keys['video:new'] = ['n', 'n'];
        s.record.items['video:new'] = 'n';
        s.record.cites['essay:a'] = ['video:1'];
      },
    ],
    [
      // Back as in the base, removed again, and one the delta added goes.
      ['video:5', 'video:6', 'video:new'],
      (s) => {
        s.keys['video:5'] = ['in5', 'h5'];
        s.keys['video:6'] = ['in6', 'h6'];
        delete s.keys['video:new'];
        delete s.record.cites['essay:b'];
        s.record.cites['essay:c'] = ['video:9'];
      },
    ],
    [
      ['video:6'],
      (s) => {
        delete s.keys['video:6'];
        s.record.cites['essay:b'] = ['video:3'];
      },
    ],
  ];

  for (const named of [false, true]) {
    it(`reads back each state through deltas over one base (set, removed, set again), until the delta grows too large${named ? ', given the documents changed' : ''}`, () => {
      expect(writeDocInputs(tmp, state(3000), { keys: {} })).toBe('base');
      const baseText = fs.readFileSync(path.join(tmp, 'doc-inputs.json'), 'utf8');
      let s = state(3000);
      for (const [docs, step] of steps) {
        expect(got(tmp)).toEqual(s);
        const next = copy(s);
        step(next);
        expect(writeDocInputs(tmp, next, readDocInputs(tmp), named ? { docs, documents: 3000 } : undefined)).toBe('delta');
        expect(fs.readFileSync(path.join(tmp, 'doc-inputs.json'), 'utf8')).toBe(baseText);
        s = next;
      }
      expect(got(tmp)).toEqual(s);
      // Past 1,000 entries changed (and a tenth of ~6,000): a new base, and the delta goes.
      const big = copy(s);
      const moved = Array.from({ length: 1001 }, (_, i) => `video:${i}`);
      for (const k of moved) big.keys[k] = ['moved', 'moved'];
      expect(writeDocInputs(tmp, big, readDocInputs(tmp), named ? { docs: moved, documents: 3000 } : undefined)).toBe('base');
      expect(fs.existsSync(path.join(tmp, 'doc-inputs.delta.json'))).toBe(false);
      expect(got(tmp)).toEqual(big);
    });
  }

  it('a run that names too few of the documents it changed is caught by the check the tests run with', () => {
    writeDocInputs(tmp, state(10), { keys: {} });
    const next = state(10);
    next.keys['video:1'] = ['x', 'y'];
    next.keys['video:2'] = ['x', 'y'];
    expect(() => writeDocInputs(tmp, next, readDocInputs(tmp), { docs: ['video:1'], documents: 10 })).toThrow('an entry changed outside the documents the run named');
  });

  it('writes a base when the salt changed or nothing was read', () => {
    writeDocInputs(tmp, state(10), { keys: {} });
    const other = state(10, 'other code');
    other.keys['video:1'] = ['x', 'y'];
    expect(writeDocInputs(tmp, other, readDocInputs(tmp))).toBe('base');
    expect(got(tmp)).toEqual(other);
    expect(fs.existsSync(path.join(tmp, 'doc-inputs.delta.json'))).toBe(false);
    expect(writeDocInputs(tmp, state(10), { keys: readDocInputs(tmp).keys })).toBe('base');
  });
});
