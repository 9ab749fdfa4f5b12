// Building, storing and opening the index: the files in <DATA_DIR>/index, written to a temporary folder and
// swapped in whole; a server reuses an index built from its content and embedder and rebuilds otherwise.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lunr from 'lunr';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import type { Snapshot } from '../../src/lib/content/model.ts';
import { buildSearchIndex, loadSearchIndex, openSearch, readManifest, SearchService, staleReason } from '../../src/lib/search/index.ts';
import type { Embedder } from '../../src/lib/search/index.ts';
import { documentsFromSnapshot, languageVersions } from '../../src/lib/search/documents.ts';
import { loadConfig } from '../../src/lib/config.ts';
import { fixtureContent } from '../helpers/content.ts';

const snap = loadSnapshot(fixtureContent());
const builtin = { provider: 'builtin' as const, dimensions: 128 };
let dataDir: string;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-index-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const config = () => loadConfig({ DATA_DIR: dataDir, EMBEDDING_PROVIDER: 'builtin' });
const ids = async (s: SearchService, q: string) => (await s.search({ q, hybrid: true, draft: false, limit: 10, agent: false })).hits.map((h) => `${h.type}:${h.id}`);

describe('buildSearchIndex', () => {
  it('writes the keyword index, one Float32 vector file with its id table, the embedder and a manifest', async () => {
    const built = await buildSearchIndex(snap, { dataDir, embedder: builtin });
    const dir = path.join(dataDir, 'index');
    expect(fs.readdirSync(dir).sort()).toEqual(['builtin-embedder.f32', 'builtin-embedder.json', 'doc-hashes.json', 'doc-inputs.json', 'ids.json', 'keyword.json', 'lexicon.json', 'manifest.json', 'vectors.f32']);
    const manifest = readManifest(dir)!;
    const items = snap.videos.length + snap.essays.length + snap.digests.length + snap.concepts.length + snap.personas.length;
    expect(manifest).toMatchObject({ format: 1, content_hash: snap.contentHash, items, embedder: { name: 'builtin', model: 'lsa', dimension: 128 } });
    // A vector row per language version of an item, and one per language of what others say of it.
    const docs = documentsFromSnapshot(snap);
    expect(manifest.rows).toBe(docs.reduce((n, d) => n + languageVersions(d).length, 0));
    // The Slovenian video about a tourist farm is retold in an English digest: it has an English row too.
    expect(languageVersions(docs.find((d) => d.id === 'fe7ctmLzZdM')!).map((v) => v.fields.summary[0].lang)).toEqual(['sl', 'en']);
    const idTable = JSON.parse(fs.readFileSync(path.join(dir, 'ids.json'), 'utf8'));
    expect(idTable).toHaveLength(manifest.rows);
    expect(idTable[0]).toEqual({ type: 'video', id: snap.videos[0].video_id });
    expect(fs.statSync(path.join(dir, 'vectors.f32')).size).toBe(manifest.rows * 128 * 4);
    expect(() => lunr.Index.load(JSON.parse(fs.readFileSync(path.join(dir, 'keyword.json'), 'utf8')))).not.toThrow();
    expect(manifest.bytes).toBe(fs.readdirSync(dir).filter((f) => f !== 'manifest.json').reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0));
    expect(fs.readdirSync(dataDir)).toEqual(['index']);
    // What is loaded from disk answers as what was built.
    const fromDisk = new SearchService(snap, await loadSearchIndex(dir, builtin));
    const fresh = new SearchService(snap, built);
    for (const q of ['shadow AI', 'mala podjetja', 'staff training']) expect(await ids(fromDisk, q)).toEqual(await ids(fresh, q));
  });

  it('replaces an index whole, clears leftovers of an interrupted build, and keeps the old index when a build fails', async () => {
    await buildSearchIndex(snap, { dataDir, embedder: builtin });
    fs.mkdirSync(path.join(dataDir, 'index.tmp-999-1'));
    const before = fs.readFileSync(path.join(dataDir, 'index', 'manifest.json'), 'utf8');
    const failing: Embedder = {
      info: { name: 'builtin', model: 'lsa', dimension: 4 },
      minSimilarity: 0,
      embedDocuments: async () => {
        throw new Error('disk full');
      },
      embedQuery: async () => new Float32Array(4),
    };
    await expect(buildSearchIndex(snap, { dataDir, embedder: failing })).rejects.toThrow('disk full');
    expect(fs.readFileSync(path.join(dataDir, 'index', 'manifest.json'), 'utf8')).toBe(before);
    await buildSearchIndex(snap, { dataDir, embedder: builtin });
    expect(fs.readdirSync(dataDir)).toEqual(['index']);
  });
});

describe('openSearch', () => {
  it('builds at first start, reuses the index while content and embedder match, rebuilds when they change', async () => {
    const log: string[] = [];
    await openSearch(config(), snap, (m) => log.push(m));
    expect(log.some((l) => l.includes('building the index (no index yet)'))).toBe(true);

    log.length = 0;
    const reused = await openSearch(config(), snap, (m) => log.push(m));
    expect(log).toEqual([]);
    expect(await ids(reused, 'shadow AI')).toContain('knowledge:shadow-ai');

    log.length = 0;
    const changed: Snapshot = { ...snap, contentHash: 'f'.repeat(64) };
    await openSearch(config(), changed, (m) => log.push(m));
    expect(log.some((l) => l.includes('content changed since the index was built'))).toBe(true);
    expect(readManifest(path.join(dataDir, 'index'))!.content_hash).toBe('f'.repeat(64));
  });

  it('rebuilds an index it cannot read', async () => {
    await openSearch(config(), snap, () => {});
    fs.truncateSync(path.join(dataDir, 'index', 'vectors.f32'), 100);
    const log: string[] = [];
    const s = await openSearch(config(), snap, (m) => log.push(m));
    expect(log.some((l) => l.includes('could not be loaded'))).toBe(true);
    expect(await ids(s, 'prompt injection')).toContain('knowledge:prompt-injection');
  });

  it('says why an index is stale', async () => {
    const { manifest } = await buildSearchIndex(snap, { dataDir, embedder: builtin });
    expect(staleReason(manifest, snap.contentHash, builtin)).toBeNull();
    expect(staleReason(null, snap.contentHash, builtin)).toBe('no index yet');
    expect(staleReason({ ...manifest, format: 0 }, snap.contentHash, builtin)).toBe('the index format changed');
    expect(staleReason(manifest, 'other', builtin)).toBe('content changed since the index was built');
    expect(staleReason(manifest, snap.contentHash, { provider: 'transformers', model: 'Xenova/all-MiniLM-L6-v2', allowDownload: false, dtype: 'fp32' })).toMatch(/^the embedder changed/);
    expect(staleReason(manifest, snap.contentHash, { provider: 'builtin', dimensions: 64 })).toBe('EMBEDDING_DIMENSIONS changed');
  });
});
