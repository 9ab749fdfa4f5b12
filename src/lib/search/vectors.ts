// Exact nearest-neighbour search over L2-normalised Float32 rows: a dot product per row and a bounded
// heap for the top k. Brute force is a few milliseconds at 100k × 192 and needs no tuning or recall
// checks; an approximate index (HNSW) would take over well beyond that (see README, Search).

export interface VectorHit {
  row: number;
  score: number;
}

export function dot(a: Float32Array, aOffset: number, b: Float32Array, bOffset: number, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < dim; i += 4) {
    s0 += a[aOffset + i] * b[bOffset + i];
    s1 += a[aOffset + i + 1] * b[bOffset + i + 1];
    s2 += a[aOffset + i + 2] * b[bOffset + i + 2];
    s3 += a[aOffset + i + 3] * b[bOffset + i + 3];
  }
  for (; i < dim; i++) s0 += a[aOffset + i] * b[bOffset + i];
  return s0 + s1 + s2 + s3;
}

/** Whether (score a, row a) ranks below (score b, row b): a lower score, or the same score and a later row. */
const below = (sa: number, ra: number, sb: number, rb: number) => sa < sb || (sa === sb && ra > rb);

/**
 * A min-heap of the best k (row, score) pairs seen so far; sorted() gives them best first. Equal scores
 * go to the earlier row whatever the order rows arrive in, so the best k are always the first k of the
 * best k + n: the pages of a search (offset) neither repeat nor skip an item.
 */
export class TopK {
  private rows: Int32Array;
  private scores: Float64Array;
  size = 0;
  constructor(capacity: number) {
    this.rows = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
  }
  get k(): number {
    return this.rows.length;
  }
  /** The score a candidate must beat once the heap is full. */
  get floor(): number {
    return this.size < this.k ? -Infinity : this.scores[0];
  }
  push(row: number, score: number): void {
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!below(score, row, this.scores[parent], this.rows[parent])) break;
        this.rows[i] = this.rows[parent];
        this.scores[i] = this.scores[parent];
        i = parent;
      }
      this.rows[i] = row;
      this.scores[i] = score;
      return;
    }
    if (!below(this.scores[0], this.rows[0], score, row)) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const r = l + 1;
      const c = r < this.size && below(this.scores[r], this.rows[r], this.scores[l], this.rows[l]) ? r : l;
      if (!below(this.scores[c], this.rows[c], score, row)) break;
      this.rows[i] = this.rows[c];
      this.scores[i] = this.scores[c];
      i = c;
    }
    this.rows[i] = row;
    this.scores[i] = score;
  }
  sorted(): VectorHit[] {
    const out: VectorHit[] = [];
    for (let i = 0; i < this.size; i++) out.push({ row: this.rows[i], score: this.scores[i] });
    return out.sort((a, b) => b.score - a.score || a.row - b.row);
  }
}

/**
 * Every row's dot product with `query`, in one tight loop with eight running sums: the scan is the cost
 * of a hybrid search, and this form runs it about a quarter faster than a call to dot() per row.
 */
function scoreRows(matrix: Float32Array, dim: number, query: Float32Array, count: number): Float32Array {
  const out = new Float32Array(count);
  const body = dim - (dim % 8);
  for (let r = 0, o = 0; r < count; r++, o += dim) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let s4 = 0;
    let s5 = 0;
    let s6 = 0;
    let s7 = 0;
    for (let i = 0; i < body; i += 8) {
      s0 += matrix[o + i] * query[i];
      s1 += matrix[o + i + 1] * query[i + 1];
      s2 += matrix[o + i + 2] * query[i + 2];
      s3 += matrix[o + i + 3] * query[i + 3];
      s4 += matrix[o + i + 4] * query[i + 4];
      s5 += matrix[o + i + 5] * query[i + 5];
      s6 += matrix[o + i + 6] * query[i + 6];
      s7 += matrix[o + i + 7] * query[i + 7];
    }
    for (let i = body; i < dim; i++) s0 += matrix[o + i] * query[i];
    out[r] = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
  }
  return out;
}

/**
 * The k rows most similar to `query` with similarity at least `min`, best first. `accept` filters rows
 * (types, drafts, the item itself) before they compete.
 */
export function nearest(
  matrix: Float32Array,
  dim: number,
  query: Float32Array,
  k: number,
  opts: { min?: number; accept?: (row: number) => boolean } = {},
): VectorHit[] {
  const count = matrix.length / dim;
  const heap = new TopK(Math.max(1, k));
  const min = opts.min ?? -Infinity;
  const accept = opts.accept;
  const scores = scoreRows(matrix, dim, query, count);
  for (let row = 0; row < count; row++) {
    const s = scores[row];
    if (s < min || s <= heap.floor) continue;
    if (accept && !accept(row)) continue;
    heap.push(row, s);
  }
  return heap.sorted();
}
