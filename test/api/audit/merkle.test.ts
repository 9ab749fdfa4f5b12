// Our stored-hash Merkle tree against a direct transcription of RFC 9162's recursive definitions.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MemoryTree,
  consistencyProof,
  inclusionProof,
  leafHash,
  verifyConsistency,
  verifyInclusion,
} from '../../../src/lib/data/audit/merkle.ts';

// ---- Reference implementation: RFC 9162 §2.1.1, §2.1.3.1, §2.1.4.1, written from the text ----
const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const k = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1); // largest power of two smaller than n
function MTH(d: Buffer[]): Buffer {
  if (d.length === 0) return sha();
  if (d.length === 1) return sha(Buffer.from([0]), d[0]);
  const s = k(d.length);
  return sha(Buffer.from([1]), MTH(d.slice(0, s)), MTH(d.slice(s)));
}
function PATH(m: number, d: Buffer[]): Buffer[] {
  if (d.length <= 1) return [];
  const s = k(d.length);
  return m < s ? [...PATH(m, d.slice(0, s)), MTH(d.slice(s))] : [...PATH(m - s, d.slice(s)), MTH(d.slice(0, s))];
}
function SUBPROOF(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [MTH(d)];
  const s = k(d.length);
  return m <= s ? [...SUBPROOF(m, d.slice(0, s), b), MTH(d.slice(s))] : [...SUBPROOF(m - s, d.slice(s), false), MTH(d.slice(0, s))];
}
const PROOF = (m: number, d: Buffer[]) => SUBPROOF(m, d, true);

// A deterministic pseudo-random sequence so failures reproduce.
let state = 12345;
const rand = (n: number) => {
  state = (state * 1103515245 + 12345) % 2 ** 31;
  return state % n;
};

describe('RFC 9162 Merkle tree', () => {
  const data = Array.from({ length: 300 }, (_, i) => Buffer.from(`entry ${i} ${randomBytes(4).toString('hex')}`));
  const tree = new MemoryTree();
  for (const d of data) tree.append(leafHash(d));

  it('has the reference root at every size', () => {
    for (let n = 1; n <= data.length; n++) expect(tree.root(n).equals(MTH(data.slice(0, n))), `size ${n}`).toBe(true);
    expect(tree.root(0).equals(sha())).toBe(true);
  });

  it('gives the reference inclusion proofs, which verify, for random sizes and leaves', () => {
    for (let t = 0; t < 400; t++) {
      const n = 1 + rand(data.length);
      const m = rand(n);
      const proof = inclusionProof(m, n, tree.read);
      expect(proof.map((h) => h.toString('hex'))).toEqual(PATH(m, data.slice(0, n)).map((h) => h.toString('hex')));
      expect(verifyInclusion(m, n, leafHash(data[m]), proof, MTH(data.slice(0, n)))).toBe(true);
      // Wrong leaf, wrong index or a flipped proof bit must not verify.
      expect(verifyInclusion(m, n, leafHash(Buffer.from('forged')), proof, tree.root(n))).toBe(false);
      if (n > 1) expect(verifyInclusion((m + 1) % n, n, leafHash(data[m]), proof, tree.root(n))).toBe(false);
      if (proof.length > 0) {
        const bad = proof.map((h) => Buffer.from(h));
        bad[rand(bad.length)][0] ^= 1;
        expect(verifyInclusion(m, n, leafHash(data[m]), bad, tree.root(n))).toBe(false);
      }
    }
  });

  it('gives the reference consistency proofs, which verify, for random pairs of sizes', () => {
    for (let t = 0; t < 400; t++) {
      const n = 1 + rand(data.length);
      const m = 1 + rand(n);
      const proof = consistencyProof(m, n, tree.read);
      expect(proof.map((h) => h.toString('hex'))).toEqual(PROOF(m, data.slice(0, n)).map((h) => h.toString('hex')));
      expect(verifyConsistency(m, n, tree.root(m), tree.root(n), proof)).toBe(true);
      if (m < n) {
        expect(verifyConsistency(m, n, leafHash(Buffer.from('x')), tree.root(n), proof)).toBe(false);
        const forked = [...data.slice(0, n)];
        forked[rand(m)] = Buffer.from('rewritten history');
        expect(verifyConsistency(m, n, tree.root(m), MTH(forked), proof)).toBe(false);
      }
    }
  });

  it('refuses proofs outside the tree', () => {
    expect(() => inclusionProof(5, 5, tree.read)).toThrow(RangeError);
    expect(() => consistencyProof(0, 5, tree.read)).toThrow(RangeError);
    expect(() => consistencyProof(6, 5, tree.read)).toThrow(RangeError);
    expect(verifyInclusion(0, 0, leafHash(data[0]), [], tree.root(1))).toBe(false);
  });
});
