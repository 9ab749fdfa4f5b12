// The transparency-log math of RFC 9162 (Merkle tree hashes, inclusion and consistency proofs and their
// verification) as pure functions over a reader of stored subtree hashes. No storage, no signing here.
// Stored hash (level L, index i) is the hash of the complete subtree over leaves [i·2^L, (i+1)·2^L).
import { createHash } from 'node:crypto';

export type Hash = Buffer;
/** Returns the stored hash of the complete subtree at (level, index); throws if it does not exist. */
export type HashReader = (level: number, index: number) => Hash;

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

export function leafHash(data: Buffer | string): Hash {
  return createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}

export function nodeHash(left: Hash, right: Hash): Hash {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

export const EMPTY_ROOT: Hash = createHash('sha256').digest();

/** The largest power of two strictly less than n (n >= 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

const isPow2 = (n: number) => n > 0 && (n & (n - 1)) === 0;
const log2 = (n: number) => 31 - Math.clz32(n);

/**
 * The stored hashes that appending leaf number `index` (0-based) creates: its own, then each complete
 * subtree it closes. The caller stores them; appends cost O(log n).
 */
export function hashesForAppend(index: number, leaf: Hash, read: HashReader): { level: number; index: number; hash: Hash }[] {
  const out = [{ level: 0, index, hash: leaf }];
  let level = 0;
  let i = index;
  let h = leaf;
  while (i % 2 === 1) {
    h = nodeHash(read(level, i - 1), h);
    level++;
    i = Math.floor(i / 2);
    out.push({ level, index: i, hash: h });
  }
  return out;
}

/** MTH(D[lo:hi]) for a range produced by RFC 9162's splits, from stored complete subtrees. */
export function subtreeHash(lo: number, hi: number, read: HashReader): Hash {
  const size = hi - lo;
  if (size <= 0) throw new RangeError(`empty range ${lo}..${hi}`);
  if (isPow2(size) && lo % size === 0) return read(log2(size), lo / size);
  const k = splitPoint(size);
  return nodeHash(subtreeHash(lo, lo + k, read), subtreeHash(lo + k, hi, read));
}

/** The root hash of the tree of the first `size` leaves. */
export function treeHash(size: number, read: HashReader): Hash {
  return size === 0 ? EMPTY_ROOT : subtreeHash(0, size, read);
}

/** RFC 9162 §2.1.3.1 PATH(m, D[n]): the audit path of leaf m in the tree of size n, leaf to root. */
export function inclusionProof(leafIndex: number, size: number, read: HashReader): Hash[] {
  if (!(leafIndex >= 0 && leafIndex < size)) throw new RangeError(`leaf ${leafIndex} is not in a tree of size ${size}`);
  const path = (m: number, lo: number, hi: number): Hash[] => {
    if (hi - lo <= 1) return [];
    const k = splitPoint(hi - lo);
    return m < lo + k
      ? [...path(m, lo, lo + k), subtreeHash(lo + k, hi, read)]
      : [...path(m, lo + k, hi), subtreeHash(lo, lo + k, read)];
  };
  return path(leafIndex, 0, size);
}

/** RFC 9162 §2.1.4.1 PROOF(m, D[n]): that the tree of size m is a prefix of the tree of size n. */
export function consistencyProof(m: number, n: number, read: HashReader): Hash[] {
  if (!(m >= 1 && m <= n)) throw new RangeError(`no consistency proof from ${m} to ${n}`);
  const sub = (m: number, lo: number, hi: number, whole: boolean): Hash[] => {
    if (m === hi - lo) return whole ? [] : [subtreeHash(lo, hi, read)];
    const k = splitPoint(hi - lo);
    return m <= k
      ? [...sub(m, lo, lo + k, whole), subtreeHash(lo + k, hi, read)]
      : [...sub(m - k, lo + k, hi, false), subtreeHash(lo, lo + k, read)];
  };
  return sub(m, 0, n, true);
}

/** RFC 9162 §2.1.3.2: does `proof` show leaf `leafIndex` with hash `leaf` in the tree of `size` with `root`? */
export function verifyInclusion(leafIndex: number, size: number, leaf: Hash, proof: Hash[], root: Hash): boolean {
  if (!(leafIndex >= 0 && leafIndex < size)) return false;
  let fn = leafIndex;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 §2.1.4.2: does `proof` show the tree (m, first) is a prefix of the tree (n, second)? */
export function verifyConsistency(m: number, n: number, first: Hash, second: Hash, proof: Hash[]): boolean {
  if (!(m >= 1 && m <= n)) return false;
  if (m === n) return proof.length === 0 && first.equals(second);
  const path = isPow2(m) ? [first, ...proof] : proof;
  if (path.length === 0) return false;
  let fn = m - 1;
  let sn = n - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(first) && sr.equals(second);
}

/** An in-memory stored-hash tree, for verifiers that rebuild the log from its entries. */
export class MemoryTree {
  private levels: Hash[][] = [];
  size = 0;
  append(leaf: Hash): void {
    for (const h of hashesForAppend(this.size, leaf, this.read)) (this.levels[h.level] ??= [])[h.index] = h.hash;
    this.size++;
  }
  read: HashReader = (level, index) => {
    const h = this.levels[level]?.[index];
    if (!h) throw new RangeError(`no stored hash at level ${level} index ${index}`);
    return h;
  };
  root(size = this.size): Hash {
    return treeHash(size, this.read);
  }
}
