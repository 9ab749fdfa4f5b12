// Questions in one language that the other language answers, with the builtin embedder: the translation
// lexicon learnt from the corpus (translate.ts), what other items say of an item (its citations, which
// get a vector row of their own), and the query language read from the query.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { buildSearchIndex, SearchService, type LoadedIndex } from '../../src/lib/search/index.ts';
import { documentsFromSnapshot } from '../../src/lib/search/documents.ts';
import { loadLexicon, trainLexicon } from '../../src/lib/search/translate.ts';
import { fixtureContent } from '../helpers/content.ts';

const snap = loadSnapshot(fixtureContent());
const docs = documentsFromSnapshot(snap);
let dataDir: string;
let index: LoadedIndex;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-search-cross-'));
  index = await buildSearchIndex(snap, { dataDir, embedder: { provider: 'builtin', dimensions: 128 } });
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const ids = async (s: SearchService, q: string, hybrid = true) => (await s.search({ q, hybrid, draft: false, limit: 10, agent: false })).hits.map((h) => h.id);

describe('translation lexicon', () => {
  it('learns word translations from the translated essays and the digests that retell Slovenian videos', () => {
    const lexicon = trainLexicon(docs);
    const first = (lang: 'en' | 'sl', term: string) => lexicon[lang].get(term)?.[0]?.[0];
    // usposabljanje → training, kakovost → quality, dobavitelj → supplier, skrit → hidden (stemmed terms).
    expect(first('sl', 'usposabljan')).toBe('train');
    expect(first('sl', 'kakovost')).toBe('qualiti');
    expect(first('sl', 'dobavitel')).toBe('supplier');
    expect(first('sl', 'skrit')).toBe('hidden');
    expect(first('en', 'qualiti')).toBe('kakovost');
    expect(first('en', 'supplier')).toBe('dobavitel');
    // Only confident translations are kept.
    for (const list of [...lexicon.sl.values(), ...lexicon.en.values()]) for (const [, p] of list) expect(p).toBeGreaterThanOrEqual(0.2);
  });

  it('is saved beside the index and loaded with it', () => {
    expect(index.lexicon).toBeTruthy();
    const loaded = loadLexicon(path.join(dataDir, 'index'))!;
    expect(loaded.sl.get('kakovost')).toEqual(index.lexicon!.sl.get('kakovost'));
    expect(index.manifest.files.lexicon).toBe('lexicon.json');
  });

  it('lets a Slovenian question find the English concept that answers it, in hybrid search only', async () => {
    const q = 'preverjanje kakovosti odgovorov pred vsako spremembo';
    expect((await ids(new SearchService(snap, index), q))[0]).toBe('evaluation-harness');
    expect((await ids(new SearchService(snap, index, { translationWeight: 0 }), q))[0]).not.toBe('evaluation-harness');
    // Keyword search matches what was typed.
    expect(await ids(new SearchService(snap, index), q, false)).not.toContain('evaluation-harness');
  });
});

describe('citations', () => {
  it('gives an item what others say of it: the English digest paragraph retelling a Slovenian video', () => {
    const video = docs.find((d) => d.id === 'fe7ctmLzZdM')!;
    expect(video.fields.summary[0].lang).toBe('sl');
    expect(video.citations?.[0]).toMatchObject({ lang: 'en' });
    expect(video.citations![0].text).toContain('twelve-room tourist farm');
    // What a much-cited item carries is bounded: eight citations of at most 600 characters.
    for (const d of docs) {
      expect((d.citations ?? []).length).toBeLessThanOrEqual(8);
      for (const c of d.citations ?? []) expect(c.text.length).toBeLessThanOrEqual(600);
    }
  });

  it('finds a Slovenian video for an English question in other words, which keyword search cannot', async () => {
    const q = 'a farm stay answering guest messages with a bot';
    const service = new SearchService(snap, index);
    expect((await ids(service, q)).slice(0, 5)).toContain('fe7ctmLzZdM');
    expect(await ids(service, q, false)).not.toContain('fe7ctmLzZdM');
  });
});
