// The pieces ranking rests on: reciprocal rank fusion, keyword scoring over lunr's index, exact nearest
// neighbours, the truncated SVD behind the builtin embedder, and snippets.
import lunr from 'lunr';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { analyse, analyseQuery } from '../../src/lib/search/analyse.ts';
import { documentsFromSnapshot, type SearchDocument } from '../../src/lib/search/documents.ts';
import { gaussian, symmetricEigen, transpose, truncatedSvd, type Csr } from '../../src/lib/search/embedders/svd.ts';
import { truncatedSvdInThread } from '../../src/lib/search/embedders/svd-thread.ts';
import { buildKeywordIndex } from '../../src/lib/search/keyword.ts';
import { KeywordScorer } from '../../src/lib/search/postings.ts';
import { indexVocabulary, planQuery } from '../../src/lib/search/query-plan.ts';
import { reciprocalRankFusion, RRF_K } from '../../src/lib/search/rrf.ts';
import { makeSnippet } from '../../src/lib/search/snippet.ts';
import { nearest } from '../../src/lib/search/vectors.ts';
import { fixtureContent } from '../helpers/content.ts';

describe('reciprocal rank fusion', () => {
  it('gives each item 1 / (60 + rank) from every ranking it is in', () => {
    expect(RRF_K).toBe(60);
    const fused = reciprocalRankFusion([['a', 'b', 'c'], ['c', 'a']]);
    expect(fused.get('a')).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused.get('b')).toBeCloseTo(1 / 62, 12);
    expect(fused.get('c')).toBeCloseTo(1 / 63 + 1 / 61, 12);
  });
});

describe('keyword scoring', () => {
  it('gives the scores and order of lunr\'s own query engine', () => {
    const docs = documentsFromSnapshot(loadSnapshot(fixtureContent()));
    const index = lunr.Index.load(JSON.parse([...buildKeywordIndex(docs, docs.map((_, i) => i)).serialised()].join('')));
    const scorer = KeywordScorer.fromIndex(index, docs.length);
    const vocabulary = indexVocabulary(index, (t) => scorer.has(t));
    for (const q of ['shadow AI', 'governance board', 'podjetja v sloveniji', 'halucination', 'retrieval augmented generation', 'agents']) {
      const clauses = planQuery(analyseQuery(q), vocabulary);
      const theirs = index.query((query) => {
        for (const c of clauses) query.term(c.term, { usePipeline: false, boost: c.boost, wildcard: lunr.Query.wildcard.NONE });
      });
      const ours = scorer.search(clauses, 1000, () => 1);
      expect(ours.total, q).toBe(theirs.length);
      const byRef = new Map(theirs.map((r) => [Number(r.ref), r.score]));
      for (const h of ours.top) expect(h.score, q).toBeCloseTo(byRef.get(h.row)!, 5);
      expect(ours.top.slice(0, 10).map((h) => h.score)).toEqual(ours.top.slice(0, 10).map((h) => h.score).sort((a, b) => b - a));
    }
  });
});

describe('exact nearest neighbours', () => {
  it('returns the same top k as sorting every similarity, honouring the filter and the floor', () => {
    const r = gaussian(5);
    const dim = 24;
    const rows = 500;
    const m = new Float32Array(rows * dim);
    for (let i = 0; i < rows; i++) {
      let n = 0;
      for (let j = 0; j < dim; j++) n += (m[i * dim + j] = r()) ** 2;
      for (let j = 0; j < dim; j++) m[i * dim + j] /= Math.sqrt(n);
    }
    const q = m.slice(7 * dim, 8 * dim);
    const all = Array.from({ length: rows }, (_, i) => ({ row: i, score: [...q].reduce((s, x, j) => s + x * m[i * dim + j], 0) })).sort((a, b) => b.score - a.score);
    expect(nearest(m, dim, q, 10).map((h) => h.row)).toEqual(all.slice(0, 10).map((h) => h.row));
    const odd = nearest(m, dim, q, 10, { accept: (row) => row % 2 === 1 });
    expect(odd.map((h) => h.row)).toEqual(all.filter((h) => h.row % 2 === 1).slice(0, 10).map((h) => h.row));
    expect(nearest(m, dim, q, 100, { min: 0.5 }).every((h) => h.score >= 0.5)).toBe(true);
  });
});

describe('truncated SVD', () => {
  function randomSparse(rows: number, cols: number, seed: number): { a: Csr; dense: Float64Array } {
    const r = gaussian(seed);
    const dense = new Float64Array(rows * cols);
    const indptr = new Int32Array(rows + 1);
    const indices: number[] = [];
    const values: number[] = [];
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        // Five blocks of related rows and columns, plus noise: a spectrum with a clear top.
        const inBlock = Math.floor(i / (rows / 5)) === Math.floor(j / (cols / 5));
        if (Math.abs(r()) > (inBlock ? 0.4 : 2)) {
          const v = Math.fround(Math.abs(r()) + (inBlock ? 1 : 0));
          dense[i * cols + j] = v;
          indices.push(j);
          values.push(v);
        }
      }
      indptr[i + 1] = indices.length;
    }
    return { a: { rows, cols, indptr, indices: Int32Array.from(indices), values: Float32Array.from(values) }, dense };
  }

  it.each([
    [200, 80],
    [80, 200],
    // Sides that are not multiples of four: the products' four-at-a-time loops end with a remainder.
    [203, 81],
  ])('finds the top singular values and right vectors of a %i × %i matrix', (rows, cols) => {
    const { a, dense } = randomSparse(rows, cols, 3);
    const ata = new Float64Array(cols * cols);
    for (let i = 0; i < rows; i++) for (let p = 0; p < cols; p++) for (let q = 0; q < cols; q++) ata[p * cols + q] += dense[i * cols + p] * dense[i * cols + q];
    const exact = symmetricEigen(ata, cols);
    const svd = truncatedSvd(a, 5, { iterations: 8 });
    for (let j = 0; j < 5; j++) {
      expect(svd.singularValues[j]).toBeCloseTo(Math.sqrt(exact.values[j]), 6);
      let d = 0;
      for (let t = 0; t < cols; t++) d += svd.v[t * 5 + j] * exact.vectors[t * cols + j];
      expect(Math.abs(d)).toBeCloseTo(1, 6);
    }
  });

  it('gives the same bits in a worker thread, with the matrix handed over', async () => {
    for (const [rows, cols] of [[203, 81], [81, 203]]) {
      const { a } = randomSparse(rows, cols, 5);
      const here = truncatedSvd(a, 7, { seed: 3 });
      const copy: Csr = { ...a, indptr: a.indptr.slice(), indices: a.indices.slice(), values: a.values.slice() };
      const there = await truncatedSvdInThread(copy, 7, { seed: 3 });
      expect(there.k).toBe(7);
      expect(there.singularValues).toEqual(here.singularValues);
      expect(there.v).toEqual(here.v);
      // Transferred, not copied: the caller's arrays are detached.
      expect(copy.values.length).toBe(0);
    }
  });

  it('transposes sparse matrices', () => {
    const { a, dense } = randomSparse(7, 11, 9);
    const t = transpose(a);
    for (let r = 0; r < t.rows; r++) for (let p = t.indptr[r]; p < t.indptr[r + 1]; p++) expect(t.values[p]).toBe(dense[t.indices[p] * 11 + r]);
  });

  it('decomposes symmetric matrices into orthonormal eigenvectors, largest first', () => {
    const r = gaussian(11);
    const n = 40;
    const m = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) m[i * n + j] = m[j * n + i] = r();
    const { values, vectors } = symmetricEigen(m, n);
    for (let i = 1; i < n; i++) expect(values[i]).toBeLessThanOrEqual(values[i - 1]);
    for (let c = 0; c < n; c++) {
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let k = 0; k < n; k++) s += m[i * n + k] * vectors[k * n + c];
        expect(s).toBeCloseTo(values[c] * vectors[i * n + c], 9);
      }
    }
  });
});

describe('snippets', () => {
  const doc = (summary: string, body = ''): SearchDocument => ({
    type: 'video',
    id: 'x',
    title: 'T',
    date: null,
    draft: false,
    tags: [],
    fields: { title: [{ text: 'T', lang: 'en' }], tags: [], summary: [{ text: summary, lang: 'en' }], body: body ? [{ text: body, lang: 'en' }] : [] },
    links: [],
  });
  const terms = (q: string) => new Set(analyse(q, 'en'));

  it('marks every form of the matched words and escapes the rest', () => {
    expect(makeSnippet(doc('Boards <decide> & governing boards govern.'), terms('board governance'))).toBe(
      '<mark>Boards</mark> &lt;decide&gt; &amp; <mark>governing</mark> <mark>boards</mark> <mark>govern</mark>.',
    );
  });

  it('picks the passage with the most matched words, with an ellipsis where it cuts', () => {
    const filler = 'Lorem ipsum dolor sit amet consectetur. '.repeat(12);
    const s = makeSnippet(doc('A summary about something else entirely.', `${filler}The review queue grew while reviewers left. ${filler}`), terms('review queue'));
    expect(s).toMatch(/^…/);
    expect(s).toContain('The <mark>review</mark> <mark>queue</mark> grew');
    expect(s).toMatch(/…$/);
  });

  it('opens with the summary when nothing matches', () => {
    expect(makeSnippet(doc('Short summary.'), terms('nothing'))).toBe('Short summary.');
  });
});
