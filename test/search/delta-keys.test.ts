// update-index builds only the search documents whose inputs moved (src/lib/search/inputs.ts). Each case
// changes one kind of input alone (an item's own file, or a passage of another item that cites it: a
// concept, a digest, an essay, a persona) and checks the delta against the one computed from every
// document of the snapshot, document by document: the same new and changed documents with the same bytes,
// the same removals. A key that forgot an input would keep a stale document and fail here.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateSearchIndex } from '../../src/lib/search/delta.ts';
import { docKey, documentsFromSnapshot } from '../../src/lib/search/documents.ts';
import { shortItemHash } from '../../src/lib/content/assemble.ts';
import { searchInputs } from '../../src/lib/search/inputs.ts';
import { docInputsOf, documentHash, documentHashes } from '../../src/lib/search/manifest.ts';
import { builtin, indexFixture } from './helpers/index-fixture.ts';

const fx = indexFixture('kb-delta-keys-');
const { dataDir, load, file, edit, indexFile, readBack: recorded } = fx;

/** Updates the index and returns what it built, after checking its delta against every document's. */
async function updateAndCheck(): Promise<{ built: number; computed: number; changed: string[] }> {
  const { snap, base, delta, built, computed } = await fx.update();
  const all = documentsFromSnapshot(snap);
  const expected = all.filter((d) => base[docKey(d.type, d.id)] !== documentHash(d));
  expect(delta.documents.map((d) => d.hash)).toEqual(expected.map(documentHash));
  const current = new Set(all.map((d) => docKey(d.type, d.id)));
  const removed = Object.keys(base).filter((k) => !current.has(k) || expected.some((d) => docKey(d.type, d.id) === k));
  expect(new Set(delta.removed)).toEqual(new Set(removed));
  // The keys and record read back are those of every document, computed (what the whole file would hold).
  const hashes = documentHashes(all);
  expect(recorded()).toEqual(docInputsOf(searchInputs(snap), (k) => hashes[k]));
  return { built, computed, changed: delta.documents.map((d) => docKey(d.doc.type, d.doc.id)) };
}

let video: string;
let cited: string;
let concept: string;
let essay: string;
let persona: string;
let digest: string;
beforeAll(async () => {
  const built = await fx.build(11);
  const snap = built.snap;
  video = built.uncited;
  cited = snap.videos.find((v) => v.video_id !== video && !snap.conceptsByVideo.has(v.video_id))!.video_id;
  concept = snap.concepts.find((c) => !c.draft)!.slug;
  essay = snap.essays[0].slug;
  persona = snap.personas[0].persona_id;
  digest = snap.digests.find((d) => d.items.length > 0)!.date;
});
afterAll(() => fx.remove());

describe('update-index builds only the documents whose inputs moved', () => {
  it('after a full build, an edited video is the one document built', async () => {
    edit(`videos/${video}.md`, (t) => t.replace(/^title: "/m, 'title: "Edited '));
    const r = await updateAndCheck();
    expect(r.changed).toEqual([docKey('video', video)]);
    expect(r.built).toBe(1);
    // Its key alone is computed: every other is taken as recorded (and checked: KB_CHECK_INPUT_KEYS=1).
    expect(r.computed).toBe(1);
  });

  it('a concept that starts citing a video changes the video (its citations) and the concept', async () => {
    edit(`knowledge/${concept}.md`, (t) => `${t.trimEnd()}\n\nThe clearest case is [this talk](/videos/${cited}).\n`);
    const r = await updateAndCheck();
    expect(r.changed).toEqual(expect.arrayContaining([docKey('video', cited), docKey('knowledge', concept)]));
    // The earlier video's document came from the previous delta, not built again.
    expect(r.changed).toContain(docKey('video', video));
    expect(r.built).toBeLessThan(10);
  });

  it("a digest paragraph edited changes the videos it cites", async () => {
    const before = load().digestsByDate.get(digest)!;
    const sources = before.items[0].sources.map((s) => s.video_id);
    edit(`digests/${digest}.md`, (t) => t.replace(before.items[0].paragraph, `${before.items[0].paragraph} Procurement teams asked for evidence first.`));
    const r = await updateAndCheck();
    for (const id of sources) expect(r.changed).toContain(docKey('video', id));
  });

  it('a concept turned draft takes its passages away from what it cited', async () => {
    edit(`knowledge/${concept}.md`, (t) => t.replace(/^draft: .*$/m, 'draft: true'));
    expect(load().conceptsBySlug.get(concept)!.draft).toBe(true);
    await updateAndCheck();
  });

  it('an essay and a persona that start citing a video change it', async () => {
    const lang = load().essaysBySlug.get(essay)!.languages[0];
    edit(`essays/${essay}/${lang}.md`, (t) => `${t.trimEnd()}\n\nCompare [the keynote](/videos/${video}).\n`);
    edit(`personas/${persona}/persona.md`, (t) => `${t.trimEnd()}\n\nStart from [this talk](/videos/${cited}).\n`);
    const r = await updateAndCheck();
    expect(r.changed).toEqual(expect.arrayContaining([docKey('video', video), docKey('video', cited), docKey('essay', essay), docKey('persona', persona)]));
  });

  it('a new video and a deleted one', async () => {
    for (const id of ['keysNew0001', 'keysNew0002']) fs.writeFileSync(file(`videos/${id}.md`), fs.readFileSync(file(`videos/${cited}.md`), 'utf8').replace(/^video_id: .*$/m, `video_id: ${id}`));
    const added = await updateAndCheck();
    expect(added.changed).toEqual(expect.arrayContaining([docKey('video', 'keysNew0001'), docKey('video', 'keysNew0002')]));
    fs.rmSync(file('videos/keysNew0002.md'));
    const removed = await updateAndCheck();
    expect(removed.changed).not.toContain(docKey('video', 'keysNew0002'));
    expect(removed.changed).toContain(docKey('video', 'keysNew0001'));
  });

  it('computes every key when the record is of the first form (keys alone), and builds none it need not', async () => {
    fs.writeFileSync(path.join(dataDir, 'index', 'doc-inputs.json'), JSON.stringify(recorded().keys));
    edit(`videos/${video}.md`, (t) => t.replace(/^title: "/m, 'title: "Once more '));
    const r = await updateAndCheck();
    expect(r.computed).toBe(load().videos.length + load().essays.length + load().digests.length + load().concepts.length + load().personas.length);
    expect(r.built).toBe(1);
  });

  it('a doc-inputs.json of another shape is read as no keys: every document is built again, none wrongly kept', async () => {
    const file = path.join(dataDir, 'index', 'doc-inputs.json');
    const inputs = indexFile('doc-inputs.json') as { record: { items: unknown } };
    fs.writeFileSync(file, JSON.stringify({ ...inputs, record: { ...inputs.record, items: null } }));
    edit(`videos/${video}.md`, (t) => t.replace(/^title: "/m, 'title: "Reshaped '));
    const r = await updateAndCheck();
    const all = load().videos.length + load().essays.length + load().digests.length + load().concepts.length + load().personas.length;
    expect(r.computed).toBe(all);
    expect(r.built).toBe(all);
  });

  it('a record that says an item did not change when it did is caught by the check the tests run with', async () => {
    edit(`videos/${cited}.md`, (t) => t.replace(/^title: "/m, 'title: "Caught '));
    const file = path.join(dataDir, 'index', 'doc-inputs.json');
    const inputs = recorded();
    inputs.record.items[docKey('video', cited)] = shortItemHash(load().itemHashes.get(`video:${cited}`)!);
    fs.writeFileSync(file, JSON.stringify({ version: 2, ...inputs })); // the whole form: no delta is read over it
    await expect(updateSearchIndex(load(), { dataDir, embedder: builtin })).rejects.toThrow(`the search input key of ${docKey('video', cited)} moved, but no input of it changed`);
  });

  it('builds every document again when the recorded keys are gone', async () => {
    fs.rmSync(path.join(dataDir, 'index', 'doc-inputs.json'));
    edit(`videos/${cited}.md`, (t) => t.replace(/^title: "/m, 'title: "Again '));
    const r = await updateAndCheck();
    expect(r.built).toBe(load().videos.length + load().essays.length + load().digests.length + load().concepts.length + load().personas.length);
  });
});
