// The builtin embedder: LSA trained on the corpus. Words that share contexts land close together, even
// across the two languages through the bilingual essays; it is deterministic and survives a save and load.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { documentsFromSnapshot } from '../../src/lib/search/documents.ts';
import { BuiltinEmbedder } from '../../src/lib/search/embedders/builtin.ts';
import { resolveEmbedderSetting } from '../../src/lib/search/embedders/select.ts';
import { loadConfig } from '../../src/lib/config.ts';
import { fixtureContent } from '../helpers/content.ts';

const docs = documentsFromSnapshot(loadSnapshot(fixtureContent()));
let embedder: BuiltinEmbedder;
let dir: string;
beforeAll(async () => {
  embedder = await BuiltinEmbedder.train(docs, 128);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-lsa-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
const q = (text: string) => embedder.embedQuerySync(text);

describe('builtin LSA embedder', () => {
  it('has 128 dimensions on the sample and unit-length document vectors', () => {
    expect(embedder.info).toEqual({ name: 'builtin', model: 'lsa', dimension: 128 });
    const m = embedder.embedDocumentsSync(docs.slice(0, 10));
    for (let r = 0; r < 10; r++) expect(cos(m.subarray(r * 128, (r + 1) * 128), m.subarray(r * 128, (r + 1) * 128))).toBeCloseTo(1, 5);
  });

  it('puts texts that share contexts close together, without sharing a term', () => {
    expect(cos(q('employee training programme'), q('workforce reskilling'))).toBeGreaterThan(cos(q('employee training programme'), q('vendor contracts')) + 0.3);
    expect(cos(q('shadow AI'), q('unapproved tools'))).toBeGreaterThan(cos(q('shadow AI'), q('cycle time')) + 0.3);
    expect(cos(q('hallucination'), q('citations'))).toBeGreaterThan(cos(q('hallucination'), q('apprenticeships')) + 0.3);
    // A query finds the item about it in other words.
    const m = embedder.embedDocumentsSync(docs);
    const row = (id: string) => m.subarray(docs.findIndex((d) => d.id === id) * 128, (docs.findIndex((d) => d.id === id) + 1) * 128);
    expect(cos(q('staff upskilling'), row('workforce-reskilling'))).toBeGreaterThan(cos(q('staff upskilling'), row('vendor-lock-in')) + 0.3);
  });

  it('links the two languages through the bilingual essays', () => {
    expect(cos(q('knowledge management'), q('upravljanje znanja'))).toBeGreaterThan(cos(q('knowledge management'), q('pilotne vice')) + 0.2);
    expect(cos(q('EU AI Act'), q('Akt o umetni inteligenci'))).toBeGreaterThan(0.2);
  });

  it("takes each language's mean vector off that language's texts, and saves it with the model", () => {
    embedder.save(dir);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'builtin-embedder.json'), 'utf8'));
    expect(Object.keys(meta.centres).sort()).toEqual(['en', 'sl']);
    expect(meta.centres.sl).toHaveLength(128);
    // Each centre is the mean of unit vectors that share a direction: shorter than 1, far from 0.
    for (const c of Object.values(meta.centres) as number[][]) expect(Math.hypot(...c)).toBeGreaterThan(0.2);
    for (const c of Object.values(meta.centres) as number[][]) expect(Math.hypot(...c)).toBeLessThan(1);
    // The two languages' centres point different ways: that difference is what centring takes off.
    expect(cos(Float32Array.from(meta.centres.en), Float32Array.from(meta.centres.sl)) / Math.hypot(...meta.centres.en) / Math.hypot(...meta.centres.sl)).toBeLessThan(0.9);
  });

  it('knows nothing of words the corpus never used: a zero vector, not a random one', () => {
    expect(q('zyxwv qqqq').every((x) => x === 0)).toBe(true);
  });

  it('trains the same model from the same corpus, and loads what it saved', async () => {
    const again = await BuiltinEmbedder.train(docs, 128);
    expect(again.embedQuerySync('governance board')).toEqual(q('governance board'));
    embedder.save(dir);
    const loaded = BuiltinEmbedder.load(dir);
    expect(loaded.embedQuerySync('mala podjetja')).toEqual(q('mala podjetja'));
    expect(loaded.embedDocumentsSync(docs.slice(0, 3))).toEqual(embedder.embedDocumentsSync(docs.slice(0, 3)));
  });

  it('trains the same model with its SVD in a worker thread', async () => {
    const aside = await BuiltinEmbedder.train(docs, 128, { thread: true });
    expect(aside.embedQuerySync('governance board')).toEqual(q('governance board'));
    expect(aside.embedDocumentsSync(docs.slice(0, 5))).toEqual(embedder.embedDocumentsSync(docs.slice(0, 5)));
  });

  it('is chosen, with one log line saying so, when no transformer model is on disk', async () => {
    const lines: string[] = [];
    const config = loadConfig({ EMBEDDING_MODEL_DIR: dir, EMBEDDING_MODEL: 'nobody/no-such-model' });
    expect(await resolveEmbedderSetting(config.embedding, (m) => lines.push(m))).toEqual({ provider: 'builtin', dimensions: 128 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/builtin LSA embedder/);
    expect(await resolveEmbedderSetting(loadConfig({ EMBEDDING_PROVIDER: 'builtin', EMBEDDING_DIMENSIONS: '200' }).embedding, (m) => lines.push(m))).toEqual({ provider: 'builtin', dimensions: 200 });
    expect(lines).toHaveLength(1);
  });
});
