// Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): each ranking gives an item 1 / (k + rank).
// It needs no score calibration between lunr's BM25 and cosine similarity, which live on unrelated scales.

/** The spec's constant: k = 60 damps the head of each list so one ranking cannot dominate. */
export const RRF_K = 60;

/**
 * Fuses rankings (best first) into one score per item; items missing from a ranking get nothing from it.
 * `weights` scale each ranking's say (weighted RRF); all 1 when absent.
 */
export function reciprocalRankFusion<T>(rankings: readonly (readonly T[])[], k = RRF_K, weights?: readonly number[]): Map<T, number> {
  const scores = new Map<T, number>();
  rankings.forEach((ranking, r) => {
    const w = weights?.[r] ?? 1;
    if (w === 0) return;
    ranking.forEach((item, i) => scores.set(item, (scores.get(item) ?? 0) + w / (k + i + 1)));
  });
  return scores;
}
