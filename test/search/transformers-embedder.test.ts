// The transformer embedder end to end on a tiny ONNX model the test writes itself (no download): it loads
// from EMBEDDING_MODEL_DIR with downloads off, is recorded in the index manifest, embeds queries with the
// same model, and serves hybrid search through the real server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/lib/config.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { buildSearchIndex, loadSearchIndex, resolveEmbedderSetting } from '../../src/lib/search/index.ts';
import { createTransformersEmbedder, EmbedderUnavailableError } from '../../src/lib/search/embedders/transformers.ts';
import { documentsFromSnapshot } from '../../src/lib/search/documents.ts';
import { writeTinyModel } from './helpers/tiny-model.ts';
import { startSearchServer } from './helpers/search-server.ts';
import { fixtureContent } from '../helpers/content.ts';

const MODEL = 'kb-test/tiny-embedder';
// "upleveling" occurs nowhere in the content: only the model knows it means training.
const TOPICS = [
  ['governance', 'board', 'boards', 'committee', 'oversight', 'steering'],
  ['training', 'reskilling', 'skills', 'literacy', 'upskilling', 'upleveling'],
  ['prompt', 'injection', 'attack', 'attacks', 'security'],
  ['shadow', 'unapproved', 'consumer', 'chatbots'],
];
let root: string;
let dataDir: string;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-models-'));
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-search-tf-'));
  writeTinyModel(root, MODEL, TOPICS);
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const setting = () => ({ model: MODEL, modelDir: root, allowDownload: false, dtype: 'fp32' });
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('transformers embedder', () => {
  it('loads the model from EMBEDDING_MODEL_DIR and embeds texts by meaning', async () => {
    const e = await createTransformersEmbedder(setting());
    expect(e.info).toEqual({ name: 'transformers', model: MODEL, dimension: 16, dtype: 'fp32' });
    const board = await e.embedQuery('governance board');
    expect(cos(board, board)).toBeCloseTo(1, 5);
    expect(cos(board, await e.embedQuery('oversight committee'))).toBeGreaterThan(0.9);
    expect(cos(board, await e.embedQuery('prompt injection'))).toBeLessThan(0.3);
  });

  it('gives E5 models (multilingual-e5-small for English and Slovenian) the "query: " and "passage: " they were trained with', async () => {
    // Two more topics whose only words are the prefixes: their axes show whether a prefix reached the model.
    const e5 = 'kb-test/multilingual-e5-tiny';
    writeTinyModel(root, e5, [...TOPICS, ['query'], ['passage']]);
    writeTinyModel(root, 'kb-test/plain-tiny', [...TOPICS, ['query'], ['passage']]);
    const queryAxis = TOPICS.length;
    const passageAxis = TOPICS.length + 1;
    const withPrefixes = await createTransformersEmbedder({ ...setting(), model: e5 });
    const without = await createTransformersEmbedder({ ...setting(), model: 'kb-test/plain-tiny' });
    const q = await withPrefixes.embedQuery('governance board');
    expect(q[queryAxis]).toBeGreaterThan(0.3);
    expect(q[passageAxis]).toBeLessThan(0.05);
    expect((await without.embedQuery('governance board'))[queryAxis]).toBeLessThan(0.05);
    const doc = documentsFromSnapshot(loadSnapshot(fixtureContent())).find((d) => d.id === 'ai-governance-board')!;
    const d = await withPrefixes.embedDocuments([doc]);
    expect(d[passageAxis]).toBeGreaterThan(0.01);
    expect(d[queryAxis]).toBeLessThan(d[passageAxis]);
    expect((await without.embedDocuments([doc]))[passageAxis]).toBeLessThan(d[passageAxis] / 2);
  });

  it('never downloads: a missing model fails with the reason, and nothing is fetched', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    try {
      const missing = createTransformersEmbedder({ ...setting(), model: 'kb-test/not-there' });
      await expect(missing).rejects.toBeInstanceOf(EmbedderUnavailableError);
      await expect(missing).rejects.toThrow(/EMBEDDING_ALLOW_DOWNLOAD=false/);
      expect(fetchSpy).not.toHaveBeenCalled();
    } finally {
      fetchSpy.mockRestore();
    }
  });

  it('is chosen automatically when the model is on disk', async () => {
    const lines: string[] = [];
    const config = loadConfig({ EMBEDDING_MODEL_DIR: root, EMBEDDING_MODEL: MODEL });
    expect(await resolveEmbedderSetting(config.embedding, (m) => lines.push(m))).toEqual({ provider: 'transformers', ...setting() });
    expect(lines).toEqual([]);
  });

  it('is recorded in the index manifest, and the loaded index embeds queries with it', async () => {
    const snap = loadSnapshot(fixtureContent());
    const built = await buildSearchIndex(snap, { dataDir, embedder: { provider: 'transformers', ...setting() } });
    expect(built.manifest.embedder).toEqual({ name: 'transformers', model: MODEL, dimension: 16, dtype: 'fp32' });
    expect(fs.statSync(path.join(dataDir, 'index', 'vectors.f32')).size).toBe(built.manifest.rows * 16 * 4);
    const loaded = await loadSearchIndex(path.join(dataDir, 'index'), { provider: 'transformers', ...setting() });
    expect(loaded.embedder.info).toEqual(built.manifest.embedder);
    expect(await loaded.embedder.embedQuery('upleveling')).toEqual(await built.embedder.embedQuery('upleveling'));
  });

  it('serves hybrid search over HTTP: a word only the model knows finds items by meaning', async () => {
    const srv = await startSearchServer({ env: { EMBEDDING_PROVIDER: 'auto', EMBEDDING_MODEL_DIR: root, EMBEDDING_MODEL: MODEL } });
    try {
      expect(srv.search().manifest.embedder.name).toBe('transformers');
      const keyword = await (await srv.get('/api/search?q=upleveling&hybrid=false')).json();
      expect(keyword.hits).toEqual([]);
      const hybrid = await (await srv.get('/api/search?q=upleveling&limit=10')).json();
      expect(hybrid.mode).toBe('hybrid');
      expect(hybrid.hits.map((h: { id: string }) => h.id)).toEqual(expect.arrayContaining(['workforce-reskilling']));
    } finally {
      await srv.stop();
    }
  });
});
