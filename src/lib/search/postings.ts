// Query scoring over the lunr index without lunr's query engine. lunr.Index.query allocates match objects
// and string keys per matching field and document, which costs ~10 ms for a common term at 10k items.
// At load, one pass over lunr's field vectors (the BM25 weights it computed at build) turns them into
// typed-array postings per term; a query then accumulates scores in one Float64Array. The score is lunr's:
// Σ over fields and terms of boost · weight / |query|.
import type lunr from 'lunr';
import type { Clause } from './query-plan.ts';
import { TopK } from './vectors.ts';

interface LunrInternals {
  invertedIndex: Record<string, { _index: number }>;
  fieldVectors: Record<string, { elements: ArrayLike<number> }>;
}

export interface KeywordResult {
  /** The best `depth` accepted documents, best first. */
  top: { row: number; score: number }[];
  /** How many accepted documents matched at all. */
  total: number;
}

/**
 * Builds the scorer for a loaded index and then drops lunr's per-document structures (inverted index
 * postings, field vectors), the bulk of its memory: queries need only the scorer and lunr's token set.
 */
export function takePostings(index: lunr.Index, refCount: number): KeywordScorer {
  const scorer = KeywordScorer.fromIndex(index, refCount);
  const internals = index as unknown as { invertedIndex: object; fieldVectors: object };
  internals.invertedIndex = {};
  internals.fieldVectors = {};
  return scorer;
}

/** A term's postings, laid out by lunr's term numbers: what the scorer is made of. */
export interface Postings {
  /** Term → its number (lunr's _index). */
  termIds: ReadonlyMap<string, number>;
  /** Postings of term t are docs/weights[start[t] … start[t + 1]), one entry per field, docs ascending. */
  start: Int32Array;
  docs: Int32Array;
  weights: Float32Array;
}

export class KeywordScorer {
  private readonly termIndex: ReadonlyMap<string, number>;
  private readonly start: Int32Array;
  private readonly docs: Int32Array;
  private readonly weights: Float32Array;
  private readonly scores: Float64Array;

  private constructor(p: Postings, refCount: number) {
    this.termIndex = p.termIds;
    this.start = p.start;
    this.docs = p.docs;
    this.weights = p.weights;
    this.scores = new Float64Array(refCount);
  }

  /** The scorer of postings laid out already (the keyword index's build, keyword.ts). */
  static fromPostings(p: Postings, refCount: number): KeywordScorer {
    return new KeywordScorer(p, refCount);
  }

  /** The scorer of a lunr index: one pass over its field vectors (the BM25 weights it computed at build). */
  static fromIndex(index: lunr.Index, refCount: number): KeywordScorer {
    const { invertedIndex, fieldVectors } = index as unknown as LunrInternals;
    const terms = Object.keys(invertedIndex);
    // lunr numbers terms in its own order (_index); postings are laid out by that number.
    const n = terms.length;
    const termIds = new Map<string, number>();
    for (const t of terms) termIds.set(t, invertedIndex[t]._index);
    const counts = new Int32Array(n + 1);
    const refs = Object.keys(fieldVectors);
    for (const ref of refs) {
      const el = fieldVectors[ref].elements;
      for (let i = 0; i < el.length; i += 2) counts[el[i] + 1]++;
    }
    for (let t = 0; t < n; t++) counts[t + 1] += counts[t];
    const start = Int32Array.from(counts);
    const docs = new Int32Array(counts[n]);
    const weights = new Float32Array(counts[n]);
    const next = Int32Array.from(counts);
    // Field refs are "field/docRef" in build order, so each term's postings come out in document order.
    for (const ref of refs) {
      const doc = Number(ref.slice(ref.indexOf('/') + 1));
      const el = fieldVectors[ref].elements;
      for (let i = 0; i < el.length; i += 2) {
        const at = next[el[i]]++;
        docs[at] = doc;
        weights[at] = el[i + 1];
      }
    }
    return new KeywordScorer({ termIds, start, docs, weights }, refCount);
  }

  has(term: string): boolean {
    return this.termIndex.has(term);
  }

  /** Field postings of a term across documents (lunr's document frequency for idf). */
  fieldPostings(term: string): number {
    const t = this.termIndex.get(term);
    return t === undefined ? 0 : this.start[t + 1] - this.start[t];
  }

  /** Documents (refs) that contain the term, ascending, with repeats for several fields. */
  documents(term: string): Int32Array {
    const t = this.termIndex.get(term);
    return t === undefined ? new Int32Array(0) : this.docs.subarray(this.start[t], this.start[t + 1]);
  }

  /**
   * Scores every document that matches any clause and returns the best `depth`. `weight` scales a
   * document's score before it competes (0 leaves it out: a filtered type, a hidden draft).
   */
  search(clauses: readonly Clause[], depth: number, weight: (row: number) => number): KeywordResult {
    const scores = this.scores;
    const touched: number[] = [];
    let norm = 0;
    for (const c of clauses) {
      const t = this.termIndex.get(c.term);
      if (t === undefined) continue;
      norm += c.boost * c.boost;
      for (let i = this.start[t], end = this.start[t + 1]; i < end; i++) {
        const d = this.docs[i];
        if (scores[d] === 0) touched.push(d);
        scores[d] += c.boost * this.weights[i];
      }
    }
    if (touched.length === 0) return { top: [], total: 0 };
    const inv = 1 / Math.sqrt(norm);
    const heap = new TopK(Math.max(1, depth));
    let total = 0;
    for (const d of touched) {
      const s = scores[d] * inv * weight(d);
      scores[d] = 0;
      if (!(s > 0)) continue;
      total++;
      heap.push(d, s);
    }
    return { top: heap.sorted(), total };
  }

  /** Whether a document contains a term (for marking snippets of the few documents shown). */
  contains(term: string, row: number): boolean {
    const docs = this.documents(term);
    let lo = 0;
    let hi = docs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (docs[mid] === row) return true;
      if (docs[mid] < row) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
}
