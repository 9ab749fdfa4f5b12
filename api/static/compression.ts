// Content-Encoding for reads: brotli or gzip by the request's Accept-Encoding, for text-like bodies of at
// least COMPRESS_MIN_BYTES. A prerendered file's (or a cached dynamic read's) compressed variants are made
// once, on first request, and kept beside it; each variant has its own strong ETag (the identity ETag with
// "-br" / "-gz"), made by the same function for a file and its dynamic twin, so the two still agree. Other
// dynamic bodies are compressed once per content (kept by the hash of their bytes), and every compression
// uses a fast setting: brotli 9 cost 10-30 ms of CPU per response (the OpenAPI document, a page of audit
// events), which anyone could ask for again and again (issue 39, item 10).
import zlib from 'node:zlib';
import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

export type Encoding = 'br' | 'gzip';

export const COMPRESS_MIN_BYTES = 1024;

const COMPRESSIBLE = /^(?:text\/(?!event-stream)|application\/(?:json|javascript|xml|[\w.+-]*\+(?:json|xml))|image\/svg\+xml)/i;

export function compressible(contentType: string | null | undefined, size: number): boolean {
  return !!contentType && size >= COMPRESS_MIN_BYTES && COMPRESSIBLE.test(contentType);
}

/** The encoding to answer with: brotli when the client takes it at least as gladly as gzip, else gzip, else none. */
export function negotiateEncoding(acceptEncoding: string | undefined | null): Encoding | null {
  if (!acceptEncoding) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qp ? Number(qp.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const of = (enc: string) => q.get(enc) ?? q.get('*') ?? 0;
  const br = of('br');
  const gzip = Math.max(of('gzip'), q.get('x-gzip') ?? 0);
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return null;
}

export function variantEtag(etag: string, enc: Encoding): string {
  const weak = etag.startsWith('W/');
  const inner = (weak ? etag.slice(2) : etag).replace(/^"|"$/g, '');
  return `${weak ? 'W/' : ''}"${inner}-${enc === 'br' ? 'br' : 'gz'}"`;
}

/**
 * Brotli 5 and gzip 6: on this service's JSON and Markdown brotli 5 comes within 1-2% of brotli 9's size
 * at a fifth to a fifteenth of its time (npm run bench -- compression), and gzip 9 buys nothing over 6.
 */
export const BROTLI_QUALITY = 5;
export const GZIP_LEVEL = 6;

/** Deterministic for the same bytes (fixed levels), so equal variants carry equal ETags. */
export function compressBody(body: Uint8Array, enc: Encoding): Buffer {
  return enc === 'br'
    ? zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : zlib.gzipSync(body, { level: GZIP_LEVEL });
}

/** Adds Accept-Encoding to a Vary value. */
export function varyWithEncoding(vary: string | undefined | null): string {
  if (!vary) return 'Accept-Encoding';
  return /(^|,)\s*accept-encoding\s*(,|$)/i.test(vary) || vary.trim() === '*' ? vary : `${vary}, Accept-Encoding`;
}

export interface Representation {
  body: Uint8Array;
  etag: string;
  /** Flat header list or object, as the caller sends it for the identity body. */
  contentType: string;
}

export interface Variant {
  body: Buffer;
  etag: string;
}

const variants = new WeakMap<object, Partial<Record<Encoding, Variant | null>>>();

/**
 * The compressed variant of a representation (made once per object and encoding), or null when the body
 * is not worth compressing or would not shrink.
 */
export function variantOf(key: object, rep: Representation, enc: Encoding): Variant | null {
  if (!compressible(rep.contentType, rep.body.length)) return null;
  let byEnc = variants.get(key);
  if (!byEnc) variants.set(key, (byEnc = {}));
  if (byEnc[enc] !== undefined) return byEnc[enc]!;
  const body = compressBody(rep.body, enc);
  const v = body.length < rep.body.length ? { body, etag: variantEtag(rep.etag, enc) } : null;
  byEnc[enc] = v;
  return v;
}

/**
 * Compressed dynamic bodies by the strong ETag of their bytes (a SHA-1, as the static files' ETags) and
 * encoding, the most recently used kept up to a byte budget: the same document asked for again is sent
 * from here. Keyed by the bytes, not by the ETag a route sent, which need not name every byte (a note's is
 * its blob id), so a body never gets another body's compressed bytes.
 */
export class CompressedBodies {
  private entries = new Map<string, Buffer | null>();
  private bytes = 0;
  private readonly maxBytes: number;
  private readonly maxEntries: number;
  constructor(maxBytes = 32 * 1024 * 1024, maxEntries = 20_000) {
    this.maxBytes = maxBytes;
    this.maxEntries = maxEntries;
  }

  /** The compressed body, or null when it would not shrink; compressed here the first time. */
  get(body: Uint8Array, enc: Encoding): Buffer | null {
    const key = `${createHash('sha1').update(body).digest('base64url')}:${enc}:${body.length}`;
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const out = compressBody(body, enc);
    const kept = out.length < body.length ? out : null;
    this.entries.set(key, kept);
    this.bytes += kept?.length ?? 0;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes && this.entries.size <= this.maxEntries) break;
      this.entries.delete(k);
      this.bytes -= v?.length ?? 0;
    }
    return kept;
  }
}

/**
 * Hono middleware: compresses the dynamic responses that did not compress themselves (search results,
 * lists of comments, the OpenAPI document…) when they are text-like and at least COMPRESS_MIN_BYTES.
 * Public bodies are compressed once per content (CompressedBodies); a private one (it depends on the
 * caller's credential) is compressed for its response only and never kept. Event streams pass untouched.
 */
export function compressResponses(cache = new CompressedBodies()): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    const type = res.headers.get('Content-Type');
    if (c.req.method === 'HEAD' || !res.body || res.status < 200 || res.status === 204 || res.status === 206 || res.headers.has('Content-Encoding')) return;
    if (!type || !COMPRESSIBLE.test(type) || /no-transform/i.test(res.headers.get('Cache-Control') ?? '')) return;
    const declared = res.headers.get('Content-Length');
    if (declared !== null && Number(declared) < COMPRESS_MIN_BYTES) return;
    const enc = negotiateEncoding(c.req.header('accept-encoding'));
    const body = new Uint8Array(await res.arrayBuffer());
    const personal = /(^|[\s,])private([\s,=]|$)/i.test(res.headers.get('Cache-Control') ?? '');
    const compressed = !enc || body.length < COMPRESS_MIN_BYTES ? null : personal ? compressBody(body, enc) : cache.get(body, enc);
    const use = compressed !== null && compressed.length < body.length;
    // Hono copies the previous response's headers onto a new c.res; the changes go on after the swap.
    c.res = new Response((use ? compressed : body) as Uint8Array<ArrayBuffer>, res);
    const h = c.res.headers;
    if (body.length >= COMPRESS_MIN_BYTES) h.set('Vary', varyWithEncoding(h.get('Vary')));
    if (use) {
      h.set('Content-Encoding', enc!);
      h.set('Content-Length', String(compressed!.length));
      const etag = h.get('ETag');
      if (etag) h.set('ETag', variantEtag(etag, enc!));
    }
  };
}
