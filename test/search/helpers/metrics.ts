// Ranking quality measures over a judged query set: nDCG@10 with graded relevance and MRR.
import fs from 'node:fs';
import path from 'node:path';

export interface JudgedQuery {
  q: string;
  lang: string;
  kind: string;
  /** questions.json: which half the hybrid settings were tuned on ("tune") and which checks them ("held-out"). */
  split?: string;
  /** "type:id" → graded relevance 1..3. */
  relevant: Record<string, number>;
}

export function loadQuerySet(file = path.resolve('test/search/queries.json')): JudgedQuery[] {
  const set = JSON.parse(fs.readFileSync(file, 'utf8')) as { queries?: JudgedQuery[]; questions?: JudgedQuery[] };
  return set.queries ?? set.questions ?? [];
}

/** Normalised discounted cumulative gain of the first k results (gain 2^rel − 1). */
export function ndcgAt(k: number, ranked: readonly string[], relevant: Record<string, number>): number {
  const gain = (rel: number) => 2 ** rel - 1;
  let dcg = 0;
  ranked.slice(0, k).forEach((key, i) => (dcg += gain(relevant[key] ?? 0) / Math.log2(i + 2)));
  const ideal = Object.values(relevant).sort((a, b) => b - a).slice(0, k);
  let idcg = 0;
  ideal.forEach((rel, i) => (idcg += gain(rel) / Math.log2(i + 2)));
  return idcg === 0 ? 0 : dcg / idcg;
}

/** 1 / rank of the first relevant result, 0 when none is returned. */
export function reciprocalRank(ranked: readonly string[], relevant: Record<string, number>): number {
  const i = ranked.findIndex((key) => (relevant[key] ?? 0) > 0);
  return i === -1 ? 0 : 1 / (i + 1);
}

export interface QualityReport {
  ndcg10: number;
  mrr: number;
  perQuery: { q: string; kind: string; ndcg10: number; rr: number }[];
}

export async function evaluate(queries: readonly JudgedQuery[], search: (q: string) => Promise<string[]>): Promise<QualityReport> {
  const perQuery: QualityReport['perQuery'] = [];
  for (const j of queries) {
    const ranked = await search(j.q);
    perQuery.push({ q: j.q, kind: j.kind, ndcg10: ndcgAt(10, ranked, j.relevant), rr: reciprocalRank(ranked, j.relevant) });
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return { ndcg10: mean(perQuery.map((p) => p.ndcg10)), mrr: mean(perQuery.map((p) => p.rr)), perQuery };
}
