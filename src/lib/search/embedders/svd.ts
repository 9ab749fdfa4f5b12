// Truncated SVD of a sparse matrix, for the builtin LSA embedder: the top right singular vectors of a
// passages × terms TF-IDF matrix by randomised subspace iteration (Halko, Martinsson & Tropp 2011) with a
// Rayleigh-Ritz step, and a dense symmetric eigensolver for the small matrices that come up. Everything works
// on the terms side, so memory is terms × (k + oversampling), whatever the number of passages.

/** A sparse matrix in compressed sparse row form. */
export interface Csr {
  rows: number;
  cols: number;
  indptr: Int32Array;
  indices: Int32Array;
  values: Float32Array;
}

/** Seeded normal random numbers (mulberry32 + Box-Muller): the same corpus gives the same embedder. */
export function gaussian(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

/**
 * out[o + j] += c0·x[x0 + j] + c1·x[x1 + j] + c2·x[x2 + j] + c3·x[x3 + j] for j < n, each element adding the
 * four products in that order: the same sums, to the last bit, as four passes of one product each, with
 * out's row loaded and stored once instead of four times (the products below are bound by those loads
 * and stores).
 */
function addFour(out: Float64Array, o: number, n: number, x: Float64Array, c0: number, x0: number, c1: number, x1: number, c2: number, x2: number, c3: number, x3: number): void {
  for (let j = 0; j < n; j++) {
    let s = out[o + j];
    s += c0 * x[x0 + j];
    s += c1 * x[x1 + j];
    s += c2 * x[x2 + j];
    s += c3 * x[x3 + j];
    out[o + j] = s;
  }
}

/** y (rows × l, row-major) = A · z (cols × l, row-major). */
function multiply(a: Csr, z: Float64Array, l: number): Float64Array {
  const y = new Float64Array(a.rows * l);
  for (let r = 0; r < a.rows; r++) {
    const yo = r * l;
    const end = a.indptr[r + 1];
    let p = a.indptr[r];
    // Four nonzeros a pass (addFour), in the order of the row's nonzeros.
    for (; p + 3 < end; p += 4) {
      addFour(y, yo, l, z, a.values[p], a.indices[p] * l, a.values[p + 1], a.indices[p + 1] * l, a.values[p + 2], a.indices[p + 2] * l, a.values[p + 3], a.indices[p + 3] * l);
    }
    for (; p < end; p++) {
      const v = a.values[p];
      const zo = a.indices[p] * l;
      for (let j = 0; j < l; j++) y[yo + j] += v * z[zo + j];
    }
  }
  return y;
}

/** G = Mᵀ M for a row-major n × l matrix (l × l, symmetric). */
function gram(m: Float64Array, n: number, l: number): Float64Array {
  const g = new Float64Array(l * l);
  let r = 0;
  // Four rows of M a pass (addFour), in row order: row i of G takes the four rows' terms from column i on.
  for (; r + 3 < n; r += 4) {
    const o0 = r * l, o1 = o0 + l, o2 = o1 + l, o3 = o2 + l;
    for (let i = 0; i < l; i++) addFour(g, i * l + i, l - i, m, m[o0 + i], o0 + i, m[o1 + i], o1 + i, m[o2 + i], o2 + i, m[o3 + i], o3 + i);
  }
  for (; r < n; r++) {
    const o = r * l;
    for (let i = 0; i < l; i++) {
      const mi = m[o + i];
      const go = i * l;
      for (let j = i; j < l; j++) g[go + j] += mi * m[o + j];
    }
  }
  for (let i = 0; i < l; i++) for (let j = 0; j < i; j++) g[i * l + j] = g[j * l + i];
  return g;
}

/**
 * Eigen-decomposition of a symmetric l × l matrix: Householder reduction to tridiagonal form, then the
 * implicit QL algorithm (tred2 and tql2 of JAMA, after EISPACK), O(l³). Returns eigenvalues in
 * descending order and the matching eigenvectors as the columns of a row-major l × l matrix.
 */
export function symmetricEigen(input: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const V = Float64Array.from(input);
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  tred2(V, d, e, n);
  tql2(V, d, e, n);
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => d[y] - d[x]);
  const values = Float64Array.from(order, (i) => d[i]);
  const vectors = new Float64Array(n * n);
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) vectors[r * n + c] = V[r * n + order[c]];
  return { values, vectors };
}

/**
 * tred2: Householder reduction of the symmetric n × n matrix V (row-major) to tridiagonal form, in place:
 * d takes the diagonal, e the subdiagonal (e[0] = 0), V the orthogonal transformation.
 */
function tred2(V: Float64Array, d: Float64Array, e: Float64Array, n: number): void {
  const at = (r: number, c: number) => r * n + c;
  for (let j = 0; j < n; j++) d[j] = V[at(n - 1, j)];
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]);
    if (scale === 0) {
      e[i] = d[i - 1];
      for (let j = 0; j < i; j++) {
        d[j] = V[at(i - 1, j)];
        V[at(i, j)] = 0;
        V[at(j, i)] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k] /= scale;
        h += d[k] * d[k];
      }
      let f = d[i - 1];
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        f = d[j];
        V[at(j, i)] = f;
        g = e[j] + V[at(j, j)] * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += V[at(k, j)] * d[k];
          e[k] += V[at(k, j)] * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] /= h;
        f += e[j] * d[j];
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] -= hh * d[j];
      for (let j = 0; j < i; j++) {
        f = d[j];
        g = e[j];
        for (let k = j; k <= i - 1; k++) V[at(k, j)] -= f * e[k] + g * d[k];
        d[j] = V[at(i - 1, j)];
        V[at(i, j)] = 0;
      }
    }
    d[i] = h;
  }
  for (let i = 0; i < n - 1; i++) {
    V[at(n - 1, i)] = V[at(i, i)];
    V[at(i, i)] = 1;
    const h = d[i + 1];
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = V[at(k, i + 1)] / h;
      for (let j = 0; j <= i; j++) {
        let g = 0;
        for (let k = 0; k <= i; k++) g += V[at(k, i + 1)] * V[at(k, j)];
        for (let k = 0; k <= i; k++) V[at(k, j)] -= g * d[k];
      }
    }
    for (let k = 0; k <= i; k++) V[at(k, i + 1)] = 0;
  }
  for (let j = 0; j < n; j++) {
    d[j] = V[at(n - 1, j)];
    V[at(n - 1, j)] = 0;
  }
  if (n > 0) V[at(n - 1, n - 1)] = 1;
  e[0] = 0;
}

/**
 * tql2: implicit QL iterations on the tridiagonal matrix (d, e) that tred2 left, accumulating the rotations
 * into V: d takes the eigenvalues (unordered), V's columns the eigenvectors.
 */
function tql2(V: Float64Array, d: Float64Array, e: Float64Array, n: number): void {
  for (let i = 1; i < n; i++) e[i - 1] = e[i];
  if (n > 0) e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  const eps = 2 ** -52;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
    let m = l;
    while (m < n && Math.abs(e[m]) > eps * tst1) m++;
    if (m > l) {
      let iterations = 0;
      do {
        if (++iterations > 100) break; // does not happen for symmetric input; a guard, not a path
        let g = d[l];
        let p = (d[l + 1] - g) / (2 * e[l]);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l] / (p + r);
        d[l + 1] = e[l] * (p + r);
        const dl1 = d[l + 1];
        let h = g - d[l];
        for (let i = l + 2; i < n; i++) d[i] -= h;
        f += h;
        p = d[m];
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1];
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * p;
          r = Math.hypot(p, e[i]);
          e[i + 1] = s * r;
          s = e[i] / r;
          c = p / r;
          p = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
          for (let k = 0; k < n; k++) {
            const o = k * n;
            h = V[o + i + 1];
            V[o + i + 1] = s * V[o + i] + c * h;
            V[o + i] = c * V[o + i] - s * h;
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]) > eps * tst1);
    }
    d[l] += f;
    e[l] = 0;
  }
}

/** M · W for a row-major n × l matrix M and l × w matrix W. */
function times(m: Float64Array, n: number, l: number, w: Float64Array, cols: number): Float64Array {
  const out = new Float64Array(n * cols);
  for (let r = 0; r < n; r++) {
    const mo = r * l;
    const oo = r * cols;
    let i = 0;
    // Four columns of M (rows of W) a pass (addFour), in the order of i.
    for (; i + 3 < l; i += 4) {
      const w0 = i * cols;
      addFour(out, oo, cols, w, m[mo + i], w0, m[mo + i + 1], w0 + cols, m[mo + i + 2], w0 + 2 * cols, m[mo + i + 3], w0 + 3 * cols);
    }
    for (; i < l; i++) {
      const mi = m[mo + i];
      const wo = i * cols;
      for (let j = 0; j < cols; j++) out[oo + j] += mi * w[wo + j];
    }
  }
  return out;
}

/**
 * Orthonormal basis of the columns of a row-major n × l matrix, by the eigen-decomposition of its Gram
 * matrix (dropping directions it does not span, which a small corpus always has). Returns n × r, r ≤ l.
 */
function orthonormalise(m: Float64Array, n: number, l: number): { q: Float64Array; cols: number } {
  const { values, vectors } = symmetricEigen(gram(m, n, l), l);
  const keep = values.findIndex((x) => !(x > values[0] * 1e-10));
  const r = keep === -1 ? l : keep;
  const w = new Float64Array(l * r);
  for (let i = 0; i < l; i++) for (let j = 0; j < r; j++) w[i * r + j] = vectors[i * l + j] / Math.sqrt(values[j]);
  return { q: times(m, n, l, w, r), cols: r };
}

export interface TruncatedSvd {
  /** Number of singular triplets found (≤ k: a matrix of lower rank has fewer). */
  k: number;
  singularValues: Float64Array;
  /** Right singular vectors, cols × k, row-major: row t is term t's coordinates. */
  v: Float64Array;
}

/** Aᵀ in compressed sparse row form. */
export function transpose(a: Csr): Csr {
  const counts = new Int32Array(a.cols + 1);
  for (let p = 0; p < a.indices.length; p++) counts[a.indices[p] + 1]++;
  for (let c = 0; c < a.cols; c++) counts[c + 1] += counts[c];
  const indptr = Int32Array.from(counts);
  const indices = new Int32Array(a.indices.length);
  const values = new Float32Array(a.values.length);
  const next = Int32Array.from(counts);
  for (let r = 0; r < a.rows; r++) {
    for (let p = a.indptr[r]; p < a.indptr[r + 1]; p++) {
      const q = next[a.indices[p]]++;
      indices[q] = r;
      values[q] = a.values[p];
    }
  }
  return { rows: a.cols, cols: a.rows, indptr, indices, values };
}

export type SvdOptions = { oversample?: number; iterations?: number; seed?: number };

/**
 * The top-k right singular vectors and values of A. The dense work grows with the smaller side of A
 * times (k + oversampling)², so with fewer rows than columns it finds the left singular vectors U of the
 * transpose's problem instead and recovers V = Aᵀ U Σ⁻¹ with one sparse product.
 */
export function truncatedSvd(a: Csr, k: number, opts: SvdOptions = {}): TruncatedSvd {
  const at = transpose(a);
  if (a.rows >= a.cols) return rightSingularVectors(a, at, k, opts);
  const left = rightSingularVectors(at, a, k, opts);
  const scaled = new Float64Array(a.rows * left.k);
  for (let r = 0; r < a.rows; r++) for (let j = 0; j < left.k; j++) scaled[r * left.k + j] = left.v[r * left.k + j] / left.singularValues[j];
  return { k: left.k, singularValues: left.singularValues, v: multiply(at, scaled, left.k) };
}

/**
 * The top-k right singular vectors and values of A, given A and its transpose: Aᵀ · y is computed as the
 * transpose times y, the same sums in the same order (transpose keeps each column's rows in order) with the
 * result's rows written one at a time instead of scattered. (A copy of A: ~10 MB for the builtin embedder's
 * training matrix, ~1.2 million nonzeros at 10k videos as at 100k: it samples at most 24,000 passages.)
 */
function rightSingularVectors(a: Csr, at: Csr, k: number, opts: SvdOptions): TruncatedSvd {
  const l0 = Math.min(k + (opts.oversample ?? 16), a.cols, Math.max(1, a.rows));
  const rand = gaussian(opts.seed ?? 1);
  let z: Float64Array = new Float64Array(a.cols * l0);
  for (let i = 0; i < z.length; i++) z[i] = rand();
  let l = l0;
  ({ q: z, cols: l } = orthonormalise(z, a.cols, l));
  // Subspace iteration on AᵀA: each pass sharpens the basis towards the top singular directions.
  for (let it = 0; it < (opts.iterations ?? 3); it++) {
    const next = multiply(at, multiply(a, z, l), l);
    ({ q: z, cols: l } = orthonormalise(next, a.cols, l));
  }
  // Rayleigh-Ritz: the eigenvectors of Zᵀ AᵀA Z rotate the basis onto the singular vectors.
  const y = multiply(a, z, l);
  const { values, vectors } = symmetricEigen(gram(y, a.rows, l), l);
  const rank = values.findIndex((x) => !(x > values[0] * 1e-12));
  const found = Math.min(k, rank === -1 ? l : rank);
  const w = new Float64Array(l * found);
  for (let i = 0; i < l; i++) for (let j = 0; j < found; j++) w[i * found + j] = vectors[i * l + j];
  return { k: found, singularValues: Float64Array.from(values.subarray(0, found), Math.sqrt), v: times(z, a.cols, l, w, found) };
}
