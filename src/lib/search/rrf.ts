// Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): each ranking gives an item 1 / (k + rank).
// It needs no score calibration between lunr's BM25 and cosine similarity, which live on unrelated scales.

/** The spec's constant: k = 60 damps the head of each list so one ranking cannot dominate. */
export const RRF_K = 60;

/** Fuses rankings (best first) into one score per item; items missing from a ranking get nothing from it. */
export function reciprocalRankFusion<T>(rankings: readonly (readonly T[])[], k = RRF_K): Map<T, number> {
  const scores = new Map<T, number>();
  for (const ranking of rankings) {
    ranking.forEach((item, i) => scores.set(item, (scores.get(item) ?? 0) + 1 / (k + i + 1)));
  }
  return scores;
}
