// Content-Encoding (issue 15, item 5): prerendered files and their dynamic twins go out brotli- or
// gzip-compressed by Accept-Encoding, each variant with its own ETag and Vary: Accept-Encoding; other
// dynamic responses over 1 KB are compressed too; small bodies are not. Read over raw HTTP, so the test
// sees the bytes on the wire (fetch would decode them).
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

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
});
