// The audit log as a C2SP tlog-tiles log (issue 15, item 10), read the way an outside tiles client reads
// it: only /api/audit/checkpoint, /api/audit/tile/<L>/<N>[.p/<W>] and /api/audit/tile/entries/<N>[.p/<W>]
// (and the verifier key). Everything a client needs is written here from the specs (RFC 6962/9162,
// c2sp.org/tlog-tiles, c2sp.org/tlog-checkpoint, c2sp.org/signed-note), without the server's own code:
// the root recomputed from tiles, inclusion of random events, consistency between two checkpoints.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

// ---- RFC 6962 / 9162 Merkle trees ----------------------------------------------------------------
const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const leafHash = (entry: Buffer) => sha256(Buffer.from([0]), entry);
const nodeHash = (l: Buffer, r: Buffer) => sha256(Buffer.from([1]), l, r);
/** Largest power of two smaller than n. */
const split = (n: number) => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};

/** MTH(D[lo:hi]) given the hash of any aligned complete subtree (2^k leaves at a multiple of 2^k). */
type Subtree = (k: number, index: number) => Promise<Buffer>;
async function mth(lo: number, hi: number, sub: Subtree): Promise<Buffer> {
  const n = hi - lo;
  if ((n & (n - 1)) === 0 && lo % n === 0) return sub(Math.log2(n), lo / n);
  const k = split(n);
  return nodeHash(await mth(lo, lo + k, sub), await mth(lo + k, hi, sub));
}
/** RFC 6962 §2.1.1 PATH(m, D[lo:hi]). */
async function path(m: number, lo: number, hi: number, sub: Subtree): Promise<Buffer[]> {
  if (hi - lo <= 1) return [];
  const k = split(hi - lo);
  return m < lo + k ? [...(await path(m, lo, lo + k, sub)), await mth(lo + k, hi, sub)] : [...(await path(m, lo + k, hi, sub)), await mth(lo, lo + k, sub)];
}
/** RFC 6962 §2.1.2 PROOF(m, D[lo:hi]). */
async function proof(m: number, lo: number, hi: number, whole: boolean, sub: Subtree): Promise<Buffer[]> {
  if (m === hi - lo) return whole ? [] : [await mth(lo, hi, sub)];
  const k = split(hi - lo);
  return m <= k
    ? [...(await proof(m, lo, lo + k, whole, sub)), await mth(lo + k, hi, sub)]
    : [...(await proof(m - k, lo + k, hi, false, sub)), await mth(lo, lo + k, sub)];
}
/** RFC 9162 §2.1.3.2. */
function verifyInclusion(index: number, size: number, leaf: Buffer, p: Buffer[], root: Buffer): boolean {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const h of p) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(h, r);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
    } else r = nodeHash(r, h);
    [fn, sn] = [fn >> 1, sn >> 1];
  }
  return sn === 0 && r.equals(root);
}
/** RFC 9162 §2.1.4.2. */
function verifyConsistency(m: number, n: number, first: Buffer, second: Buffer, p: Buffer[]): boolean {
  if (m === n) return p.length === 0 && first.equals(second);
  const c = (m & (m - 1)) === 0 ? [first, ...p] : p;
  let fn = m - 1;
  let sn = n - 1;
  while (fn % 2 === 1) [fn, sn] = [fn >> 1, sn >> 1];
  let fr = c[0];
  let sr = c[0];
  for (const h of c.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(h, fr);
      sr = nodeHash(h, sr);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
    } else sr = nodeHash(sr, h);
    [fn, sn] = [fn >> 1, sn >> 1];
  }
  return sn === 0 && fr.equals(first) && sr.equals(second);
}

// ---- c2sp.org/signed-note + tlog-checkpoint ---------------------------------------------------------
function openCheckpoint(note: string, verifierKey: string): { origin: string; size: number; root: Buffer } {
  // <name>+<hex key id>+<base64(0x01 || key)>; base64 may itself hold '+'.
  const [, name, hexId, b64] = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/s.exec(verifierKey)!;
  const key = Buffer.from(b64, 'base64');
  expect(key[0], 'Ed25519 key type').toBe(1);
  expect(sha256(Buffer.from(`${name}\n`), key).subarray(0, 4).toString('hex')).toBe(hexId);
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.subarray(1).toString('base64url') }, format: 'jwk' });
  const at = note.lastIndexOf('\n\n');
  const text = note.slice(0, at + 1);
  const good = note
    .slice(at + 2)
    .split('\n')
    .filter(Boolean)
    .some((line) => {
      const [dash, who, sig] = line.split(' ');
      const blob = Buffer.from(sig, 'base64');
      return dash === '—' && who === name && blob.subarray(0, 4).toString('hex') === hexId && verify(null, Buffer.from(text), publicKey, blob.subarray(4));
    });
  expect(good, 'checkpoint signature').toBe(true);
  const [origin, size, root] = text.split('\n');
  expect(size).toMatch(/^(0|[1-9]\d*)$/);
  return { origin, size: Number(size), root: Buffer.from(root, 'base64') };
}

// ---- c2sp.org/tlog-tiles ----------------------------------------------------------------------------
const encodeN = (n: number): string => {
  let s = String(n % 1000).padStart(3, '0');
  for (n = Math.floor(n / 1000); n > 0; n = Math.floor(n / 1000)) s = `x${String(n % 1000).padStart(3, '0')}/${s}`;
  return s;
};
/** tile/<L>/<N>[.p/<W>] of the tile at `level` holding tile-hash `i` in a tree of `size`. */
function tileFor(level: number | 'entries', tileIndex: number, size: number): { url: string; width: number } {
  const l = level === 'entries' ? 0 : level;
  const full = (tileIndex + 1) * 256 ** (l + 1) <= size;
  const width = full ? 256 : Math.floor(size / 256 ** l) % 256;
  return { url: `/api/audit/tile/${level}/${encodeN(tileIndex)}${full ? '' : `.p/${width}`}`, width };
}

let srv: TestServer;
const fetched: string[] = [];
const cache = new Map<string, Promise<Buffer>>();
async function get(url: string): Promise<Buffer> {
  if (!cache.has(url)) {
    cache.set(
      url,
      (async () => {
        fetched.push(url);
        const res = await srv.get(url);
        expect(res.status, url).toBe(200);
        return Buffer.from(await res.arrayBuffer());
      })(),
    );
  }
  return cache.get(url)!;
}
/** Hash tile-hash `i` of level `level` (tree level 8·level) as seen by a tree of `size`. */
async function tileHash(level: number, i: number, size: number): Promise<Buffer> {
  const t = tileFor(level, Math.floor(i / 256), size);
  const tile = await get(t.url);
  expect(tile.length, t.url).toBe(32 * t.width);
  return tile.subarray((i % 256) * 32, (i % 256) * 32 + 32);
}
/**
 * The hash of the complete subtree of 2^k leaves with index j, from the tiles of a tree of `size`: the
 * 2^(k - 8·L) hashes of tile level L = floor(k / 8) under it, hashed pairwise up to one.
 */
const fromTiles =
  (size: number): Subtree =>
  async (k, j) => {
    const level = Math.floor(k / 8);
    const span = 2 ** (k - 8 * level);
    let hashes = await Promise.all(Array.from({ length: span }, (_, x) => tileHash(level, j * span + x, size)));
    while (hashes.length > 1) hashes = Array.from({ length: hashes.length / 2 }, (_, x) => nodeHash(hashes[2 * x], hashes[2 * x + 1]));
    return hashes[0];
  };
async function entries(bundleIndex: number, size: number): Promise<Buffer[]> {
  const t = tileFor('entries', bundleIndex, size);
  const bundle = await get(t.url);
  const out: Buffer[] = [];
  for (let at = 0; at < bundle.length; ) {
    const len = bundle.readUInt16BE(at);
    out.push(bundle.subarray(at + 2, at + 2 + len));
    at += 2 + len;
  }
  expect(out.length, t.url).toBe(t.width);
  return out;
}

// A log big enough for a full level-1 tile and a partial level-2 tile: 65,536 + 300 events.
const N1 = 65_836;
const N2 = 66_530;
let verifierKey: string;
let cp1: string;
let cp2: string;

function append(from: number, to: number) {
  return srv.db.transaction(async () => {
    for (let i = from; i <= to; i++) {
      await srv.audit.append({ kind: 'test.write', subjectType: 'thing', subjectId: `t${i}`, actor: i % 5 ? { userId: `u${i % 7}` } : 'system', data: { i, note: i % 11 ? 'plain' : 'ünïcødé ✓ 😀' } });
    }
  });
}

beforeAll(async () => {
  srv = await startTestServer({ env: { AUDIT_CHECKPOINT_EVERY: '1000000', AUDIT_CHECKPOINT_INTERVAL_SECONDS: '3600' } });
  verifierKey = ((await (await srv.get('/api/audit/pubkey')).json()) as { verifier_key: string }).verifier_key;
  await append(1, N1);
  await srv.audit.checkpointNow();
  cp1 = await (await srv.get('/api/audit/checkpoint')).text();
  await append(N1 + 1, N2);
  await srv.audit.checkpointNow();
  cp2 = await (await srv.get('/api/audit/checkpoint')).text();
}, 120_000);
afterAll(() => srv?.stop());

// A small seeded generator, so a failure names events that can be checked again.
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the tlog-tiles checkpoint', () => {
  it('is the latest signed checkpoint, as text/plain, cached only briefly', async () => {
    const res = await srv.get('/api/audit/checkpoint');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1])).toBeLessThanOrEqual(10);
    expect(await res.text()).toBe(cp2);
    const c1 = openCheckpoint(cp1, verifierKey);
    const c2 = openCheckpoint(cp2, verifierKey);
    expect([c1.size, c2.size]).toEqual([N1, N2]);
    expect(c1.origin).toBe(verifierKey.split('+')[0]);
  });
});

describe('tiles', () => {
  it('recompute the signed roots of both checkpoints, each from the tiles its size names', async () => {
    for (const note of [cp1, cp2]) {
      const cp = openCheckpoint(note, verifierKey);
      expect((await mth(0, cp.size, fromTiles(cp.size))).equals(cp.root)).toBe(true);
    }
    // 65,836 = 65,536 + 256 + 44: the partial level-2 tile of width 1, the partial level-1 tile of width 1
    // (after the full level-1 tile 0), and the partial level-0 tile 257 of width 44.
    expect(fetched).toEqual(expect.arrayContaining(['/api/audit/tile/2/000.p/1', '/api/audit/tile/1/001.p/1', '/api/audit/tile/0/257.p/44']));
  });

  it('prove the inclusion of random events, whose entries hash to the level-0 tile', async () => {
    const cp = openCheckpoint(cp2, verifierKey);
    const next = random(15);
    const picks = [0, 255, 256, 65_535, 65_536, N1 - 1, N2 - 1, ...Array.from({ length: 25 }, () => Math.floor(next() * N2))];
    for (const index of picks) {
      const entry = (await entries(Math.floor(index / 256), cp.size))[index % 256];
      const leaf = leafHash(entry);
      expect(leaf.equals(await tileHash(0, index, cp.size)), `leaf ${index}`).toBe(true);
      expect(JSON.parse(entry.toString('utf8'))).toMatchObject({ seq: index + 1, subject_id: `t${index + 1}`, data: { i: index + 1 } });
      const p = await path(index, 0, cp.size, fromTiles(cp.size));
      expect(verifyInclusion(index, cp.size, leaf, p, cp.root), `inclusion of ${index}`).toBe(true);
      // The proof is what makes it: a neighbour's leaf does not pass with it.
      expect(verifyInclusion(index, cp.size, leafHash(Buffer.from(`${entry}x`)), p, cp.root)).toBe(false);
    }
  });

  it('prove the second checkpoint consistent with the first', async () => {
    const [c1, c2] = [openCheckpoint(cp1, verifierKey), openCheckpoint(cp2, verifierKey)];
    const p = await proof(c1.size, 0, c2.size, true, fromTiles(c2.size));
    expect(verifyConsistency(c1.size, c2.size, c1.root, c2.root, p)).toBe(true);
    expect(verifyConsistency(c1.size, c2.size, sha256(Buffer.from('forged')), c2.root, p)).toBe(false);
    for (const m of [1, 256, 1000, 65_536]) {
      const root = await mth(0, m, fromTiles(c2.size));
      expect(verifyConsistency(m, c2.size, root, c2.root, await proof(m, 0, c2.size, true, fromTiles(c2.size))), `from ${m}`).toBe(true);
    }
  });

  it('are served with the tiles spec’s types, sizes and immutable caching', async () => {
    const full = await srv.get('/api/audit/tile/0/000');
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('application/octet-stream');
    expect(full.headers.get('cache-control')).toMatch(/immutable/);
    expect(Number(/max-age=(\d+)/.exec(full.headers.get('cache-control')!)![1])).toBeGreaterThanOrEqual(86_400);
    expect(Buffer.from(await full.arrayBuffer())).toHaveLength(8192);
    // A partial tile is the prefix of the full one, also once the full one exists.
    const part = Buffer.from(await (await srv.get('/api/audit/tile/0/000.p/7')).arrayBuffer());
    expect(part.equals((await get('/api/audit/tile/0/000')).subarray(0, 7 * 32))).toBe(true);
    expect((await srv.get('/api/audit/tile/1/000')).status).toBe(200);
    const head = await srv.get('/api/audit/tile/0/000', { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type')]).toEqual([200, 'application/octet-stream']);
  });

  it('serve entry bundles gzip-compressed when asked, and plain otherwise', async () => {
    const plain = await srv.get('/api/audit/tile/entries/001', { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toMatch(/Accept-Encoding/i);
    const plainBytes = Buffer.from(await plain.arrayBuffer());
    // A raw HTTP client (fetch decodes on its own), to see the compressed bytes.
    const http = await import('node:http');
    const gz = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      http
        .get(`${srv.url}/api/audit/tile/entries/001`, { headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body.length).toBeLessThan(plainBytes.length / 3);
    expect(gunzipSync(gz.body).equals(plainBytes)).toBe(true);
    const refused = await srv.get('/api/audit/tile/entries/001', { headers: { 'Accept-Encoding': 'gzip;q=0, *' } });
    expect(refused.headers.get('content-encoding')).toBeNull();
  });

  it.each([
    ['/api/audit/tile/0/x001/000', 'beyond the log'],
    ['/api/audit/tile/0/260', 'beyond the log'],
    ['/api/audit/tile/0/259', 'the full tile of a partial one'],
    ['/api/audit/tile/0/259.p/255', 'wider than the log holds'],
    ['/api/audit/tile/entries/259', 'the full bundle of a partial one'],
    ['/api/audit/tile/3/000', 'a level the log has not reached'],
  ])('%s -> 404 (%s), never cached', async (url) => {
    const res = await srv.get(url);
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    ['/api/audit/tile/0/5', 'N'],
    ['/api/audit/tile/0/0005', 'N'],
    ['/api/audit/tile/0/x000/001', 'N'],
    ['/api/audit/tile/0/001/x002', 'N'],
    ['/api/audit/tile/0', 'N'],
    ['/api/audit/tile/00/000', 'L'],
    ['/api/audit/tile/64/000', 'L'],
    ['/api/audit/tile/data/000', 'L'],
    ['/api/audit/tile/0/000.p/0', 'W'],
    ['/api/audit/tile/0/000.p/256', 'W'],
    ['/api/audit/tile/entries/000.p/07', 'W'],
  ])('%s -> 422 on %s', async (url, param) => {
    const res = await srv.get(url);
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: string[] }[] };
    expect(body.detail[0].loc).toEqual(['path', param]);
  });

  it('documents the tiles endpoints in /openapi.json', async () => {
    const doc = (await (await srv.get('/openapi.json')).json()) as { paths: Record<string, unknown> };
    for (const p of ['/api/audit/checkpoint', '/api/audit/tile/{L}/{N}', '/api/audit/tile/entries/{N}']) expect(Object.keys(doc.paths)).toContain(p);
  });
});
