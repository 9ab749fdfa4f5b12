// Search quality over the sample content on two judged sets, reported per kind of query: nDCG@10 and MRR
// for keyword and hybrid search with the builtin (offline) embedder.
// - test/search/queries.json: queries close to the content's words (exact, multi-word, synonyms, typos,
//   Slovenian, cross-language). Never tuned on: hybrid must stay above keyword and within 0.01 of its
//   nDCG@10 before issue 18 (0.879).
// - test/search/questions.json: questions as people ask them (paraphrases, Slovenian, cross-language both
//   ways, vague). The hybrid settings were chosen on its "tune" half; the "held-out" half checks them.
//   The floors are the figures measured when they were chosen, less a small margin: a change that makes
//   search understand questions worse fails here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { buildSearchIndex, SearchService } from '../../src/lib/search/index.ts';
import { documentsFromSnapshot } from '../../src/lib/search/documents.ts';
import { evaluate, loadQuerySet, type JudgedQuery, type QualityReport } from './helpers/metrics.ts';
import { fixtureContent } from '../helpers/content.ts';

const queries = loadQuerySet();
const questions = loadQuerySet(path.resolve('test/search/questions.json'));
let dataDir: string;
let service: SearchService;
const snap = loadSnapshot(fixtureContent());

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-search-quality-'));
  service = new SearchService(snap, await buildSearchIndex(snap, { dataDir, embedder: { provider: 'builtin', dimensions: 128 } }));
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const run = (set: readonly JudgedQuery[], hybrid: boolean) =>
  evaluate(set, async (q) => (await service.search({ q, hybrid, draft: false, limit: 10, agent: false })).hits.map((h) => `${h.type}:${h.id}`));

/** Questions where hybrid ranks worse than keyword (nDCG@10). */
const behind = (keyword: QualityReport, hybrid: QualityReport) => hybrid.perQuery.filter((h, i) => h.ndcg10 < keyword.perQuery[i].ndcg10 - 1e-9).length;

function report(set: readonly JudgedQuery[], keyword: QualityReport, hybrid: QualityReport): string {
  const groups = new Map<string, number[]>();
  set.forEach((q, i) => {
    for (const g of [q.kind, q.split && `(${q.split})`, 'all']) if (g) groups.set(g, [...(groups.get(g) ?? []), i]);
  });
  const mean = (r: QualityReport, ix: number[], key: 'ndcg10' | 'rr') => (ix.reduce((a, i) => a + r.perQuery[i][key], 0) / ix.length).toFixed(3);
  const rows = ['kind          queries  nDCG@10 keyword  hybrid   MRR keyword  hybrid   hybrid behind'];
  for (const [g, ix] of groups) {
    const worse = ix.filter((i) => hybrid.perQuery[i].ndcg10 < keyword.perQuery[i].ndcg10 - 1e-9).length;
    rows.push(
      `${g.padEnd(14)}${String(ix.length).padStart(7)}  ${mean(keyword, ix, 'ndcg10').padStart(15)}  ${mean(hybrid, ix, 'ndcg10').padStart(6)}  ${mean(keyword, ix, 'rr').padStart(11)}  ${mean(hybrid, ix, 'rr').padStart(6)}  ${String(worse).padStart(14)}`,
    );
  }
  return rows.join('\n');
}

describe('search quality', () => {
  it('has judged sets in both languages, with every kind of query, all pointing at real, published items', () => {
    expect(queries.length).toBeGreaterThanOrEqual(40);
    expect(new Set(queries.map((q) => q.lang))).toEqual(new Set(['en', 'sl']));
    for (const kind of ['synonym', 'typo', 'multi-word']) expect(queries.some((q) => q.kind === kind), kind).toBe(true);
    expect(questions.length).toBeGreaterThanOrEqual(60);
    expect(new Set(questions.map((q) => q.lang))).toEqual(new Set(['en', 'sl']));
    for (const kind of ['paraphrase', 'sl', 'cross-sl-en', 'cross-en-sl', 'vague']) expect(questions.filter((q) => q.kind === kind).length, kind).toBeGreaterThanOrEqual(8);
    expect(new Set(questions.map((q) => q.split))).toEqual(new Set(['tune', 'held-out']));
    const docs = new Map(documentsFromSnapshot(snap).map((d) => [`${d.type}:${d.id}`, d]));
    for (const q of [...queries, ...questions]) {
      for (const [key, grade] of Object.entries(q.relevant)) {
        expect(docs.has(key), `${q.q}: ${key}`).toBe(true);
        expect(docs.get(key)!.draft, `${q.q}: ${key} is a draft, hidden by default`).toBe(false);
        expect([1, 2, 3]).toContain(grade);
      }
    }
  });

  it('queries in the content words: hybrid above keyword, and no lower than before (nDCG@10 0.879, MRR 0.939)', async () => {
    const keyword = await run(queries, false);
    const hybrid = await run(queries, true);
    console.log(`search quality on ${queries.length} queries (queries.json, builtin embedder)\n${report(queries, keyword, hybrid)}`);
    expect(hybrid.ndcg10).toBeGreaterThanOrEqual(keyword.ndcg10);
    expect(hybrid.mrr).toBeGreaterThanOrEqual(keyword.mrr);
    // Before issue 18: keyword 0.873 / 0.937, hybrid 0.879 / 0.939. Measured after: hybrid 0.905 / 0.939.
    expect(hybrid.ndcg10).toBeGreaterThanOrEqual(0.879 - 0.01);
    expect(keyword.ndcg10).toBeGreaterThan(0.8);
    expect(keyword.mrr).toBeGreaterThan(0.85);
  });

  it('questions as people ask them: hybrid well above keyword, on the held-out half too', async () => {
    const keyword = await run(questions, false);
    const hybrid = await run(questions, true);
    console.log(`search quality on ${questions.length} questions (questions.json, builtin embedder)\n${report(questions, keyword, hybrid)}`);
    const half = (r: QualityReport, split: string) => {
      const xs = r.perQuery.filter((_, i) => questions[i].split === split).map((p) => p.ndcg10);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    // Measured: keyword 0.406, hybrid 0.515 (tune half 0.539, held-out half 0.492); hybrid not behind
    // keyword on 69 of 90. Before issue 18, hybrid scored 0.406 and was behind on 19 (of 85). Issue 42 added
    // five Slovenian questions to the held-out half; the two on leadership, answered only by an English
    // video nothing retells in Slovenian, score 0 and take Slovenian → English from 0.240 to 0.208.
    expect(hybrid.ndcg10).toBeGreaterThanOrEqual(0.5);
    expect(half(hybrid, 'held-out')).toBeGreaterThanOrEqual(0.47);
    expect(hybrid.ndcg10 - keyword.ndcg10).toBeGreaterThanOrEqual(0.1);
    expect(hybrid.mrr).toBeGreaterThan(keyword.mrr);
    expect(1 - behind(keyword, hybrid) / questions.length).toBeGreaterThanOrEqual(0.74);
    // Cross-language questions are where the corpus-trained translation and citations show.
    const kind = (r: QualityReport, k: string) => {
      const xs = r.perQuery.filter((p) => p.kind === k).map((p) => p.ndcg10);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    expect(kind(hybrid, 'cross-en-sl')).toBeGreaterThanOrEqual(0.45);
    expect(kind(hybrid, 'cross-sl-en')).toBeGreaterThanOrEqual(0.2);
  });
});
