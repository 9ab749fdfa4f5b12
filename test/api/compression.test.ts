// Content-Encoding (issue 15, item 5): prerendered files and their dynamic twins go out brotli- or
// gzip-compressed by Accept-Encoding, each variant with its own ETag and Vary: Accept-Encoding; other
// dynamic responses over 1 KB are compressed too; small bodies are not. Read over raw HTTP, so the test
// sees the bytes on the wire (fetch would decode them).
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sessionFor } from '../helpers/auth.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.stop();
});

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; raw: Buffer; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${srv.url}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const enc = res.headers['content-encoding'];
          const body = raw.length === 0 ? raw : enc === 'br' ? zlib.brotliDecompressSync(raw) : enc === 'gzip' ? zlib.gunzipSync(raw) : raw;
          resolve({ status: res.statusCode!, headers: res.headers, raw, body });
        });
      })
      .on('error', reject);
  });
}

describe('compression', () => {
  it('serves a prerendered file as brotli, gzip or identity, each with its own ETag', async () => {
    const plain = await get('/api/graph');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/);
    expect(plain.body.length).toBeGreaterThan(5000);

    const br = await get('/api/graph', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/);
    expect(Number(br.headers['content-length'])).toBe(br.raw.length);
    expect(br.raw.length).toBeLessThan(plain.body.length / 2);
    expect(br.body.equals(plain.body)).toBe(true);
    expect(br.headers.etag).toBe(plain.headers.etag!.replace(/"$/, '-br"'));

    const gz = await get('/api/graph', { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body.equals(plain.body)).toBe(true);
    expect(gz.headers.etag).toBe(plain.headers.etag!.replace(/"$/, '-gz"'));

    // q=0 refuses an encoding; identity when nothing acceptable is left.
    expect((await get('/api/graph', { 'Accept-Encoding': 'br;q=0, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await get('/api/graph', { 'Accept-Encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined();

    // Revalidating a compressed copy: 304 with that variant's ETag.
    const again = await get('/api/graph', { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(br.headers.etag);
  });

  it('compresses a dynamic twin exactly as its prerendered file', async () => {
    const file = await get('/api/videos', { 'Accept-Encoding': 'br' });
    const twin = await get('/api/videos?parity=1', { 'Accept-Encoding': 'br' });
    expect(file.headers['content-encoding']).toBe('br');
    expect(twin.headers['content-encoding']).toBe('br');
    expect(twin.headers.etag).toBe(file.headers.etag);
    expect(twin.raw.equals(file.raw)).toBe(true);
  });

  it('compresses other dynamic responses over 1 KB, and leaves small ones alone', async () => {
    const doc = await get('/openapi.json', { 'Accept-Encoding': 'gzip' });
    expect(doc.status).toBe(200);
    expect(doc.headers['content-encoding']).toBe('gzip');
    expect(doc.headers.vary).toMatch(/Accept-Encoding/);
    expect(JSON.parse(doc.body.toString()).openapi).toMatch(/^3\./);

    const search = await get('/api/search?q=agents&limit=20', { 'Accept-Encoding': 'br' });
    expect(search.status).toBe(200);
    expect(search.headers['content-encoding']).toBe('br');
    expect(JSON.parse(search.body.toString()).hits.length).toBeGreaterThan(0);

    const small = await get('/api/health', { 'Accept-Encoding': 'br, gzip' });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  // Issue 39, item 10: brotli 9 on every response made an anonymous GET of /openapi.json or a page of audit
  // events cost 10-30 ms of CPU each. A body is now compressed once (kept by its bytes' hash), and every
  // compression uses a fast setting.
  it('compresses a dynamic body once however often it is asked for, and never at a slow setting', async () => {
    for (let i = 0; i < 8; i++) await sessionFor(srv, `reader${i}@example.org`); // sign-ins: a page of audit events over 1 KB
    const brotli = vi.spyOn(zlib, 'brotliCompressSync');
    const gzip = vi.spyOn(zlib, 'gzipSync');
    try {
      for (const path of ['/openapi.json', '/api/audit?limit=200']) {
        const first = await get(path, { 'Accept-Encoding': 'br' });
        expect(first.headers['content-encoding'], path).toBe('br');
        for (let i = 0; i < 4; i++) expect((await get(path, { 'Accept-Encoding': 'br' })).raw.equals(first.raw), path).toBe(true);
        const gz = await get(path, { 'Accept-Encoding': 'gzip' });
        expect(gz.headers['content-encoding'], path).toBe('gzip');
        expect((await get(path, { 'Accept-Encoding': 'gzip' })).raw.equals(gz.raw), path).toBe(true);
      }
      // Once per body and encoding at most (a body an earlier test asked for may be kept already).
      expect(brotli.mock.calls.length).toBeLessThanOrEqual(2);
      expect(gzip.mock.calls.length).toBeLessThanOrEqual(2);
      // A fresh body (another page) is compressed in its turn, at the same fast setting.
      const before = brotli.mock.calls.length;
      expect((await get('/api/audit?limit=200&after_seq=1', { 'Accept-Encoding': 'br' })).headers['content-encoding']).toBe('br');
      expect(brotli.mock.calls.length).toBe(before + 1);
      for (const [, opts] of brotli.mock.calls) expect(opts?.params?.[zlib.constants.BROTLI_PARAM_QUALITY]).toBeLessThanOrEqual(5);
      for (const [, opts] of gzip.mock.calls) expect(opts?.level).toBeLessThanOrEqual(6);
    } finally {
      brotli.mockRestore();
      gzip.mockRestore();
    }
  });
});
