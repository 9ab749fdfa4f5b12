// The machinery of the content reads (api/content): a read is a pure function of the snapshot and the
// request's validated parameters, so its encoded bytes, ETag and headers are cached per snapshot and sent
// with 304s and the prerendered files' compressed variants. The route groups register through contentReads.
import { z, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Snapshot } from '../../src/lib/content/model.ts';
import type { SiteContext } from '../../src/lib/site.ts';
import { CONTENT_TYPE, toJson, type Representation } from '../../src/lib/representation.ts';
import { queryBool } from '../validation/index.ts';
import { addRoute, type Input } from '../validation/route.ts';
import { notFound } from '../errors/index.ts';
import { etagFor, etagMatches, prefersJson, readHeaders } from '../static/index.ts';
import { negotiateEncoding, variantOf } from '../static/compression.ts';
import { ErrorResponses } from '../openapi/schemas.ts';

export interface ContentState {
  snapshot: Snapshot;
  site: SiteContext;
}

/** A read's bytes before they are sent: its representation and, for /api, whether it was negotiated. */
export interface Read {
  rep: Representation;
  body: string;
  negotiated?: boolean;
}

interface CachedRead {
  bytes: Buffer<ArrayBuffer>;
  headers: Record<string, string>;
  etag: string;
}

/**
 * Reads are pure functions of the snapshot and the validated parameters, so their encoded bytes, ETag and
 * headers are kept per snapshot (bounded, oldest dropped first) and a repeated query costs only its
 * validation. A new snapshot starts a new cache.
 */
const MAX_CACHED_READS = 5000;
const MAX_CACHED_BYTES = 64 * 1024 * 1024;
class ReadCache {
  private entries = new Map<string, CachedRead>();
  private bytes = 0;
  get(key: string): CachedRead | undefined {
    return this.entries.get(key);
  }
  set(key: string, value: CachedRead): void {
    this.entries.set(key, value);
    this.bytes += value.bytes.length;
    for (const [k, v] of this.entries) {
      if (this.entries.size <= MAX_CACHED_READS && this.bytes <= MAX_CACHED_BYTES) break;
      this.entries.delete(k);
      this.bytes -= v.bytes.length;
    }
  }
}
const caches = new WeakMap<ContentState, ReadCache>();

/** The read cache of a snapshot, made on its first read. */
export function cacheFor(current: ContentState): ReadCache {
  let cache = caches.get(current);
  if (!cache) caches.set(current, (cache = new ReadCache()));
  return cache;
}

/** A read's bytes, ETag and headers, as they are cached and sent. */
export function encode(path: string, r: Read): CachedRead {
  const bytes = Buffer.from(r.body);
  const etag = etagFor(bytes);
  return { bytes, etag, headers: readHeaders(path, CONTENT_TYPE[r.rep], etag, r.negotiated ?? false, bytes) };
}

/**
 * Sends an encoded read; 304 when the client's If-None-Match has it. A Response built from bytes and a
 * plain header object takes @hono/node-server's fast path (see docs/decisions/0008-dynamic-read-fast-path.md).
 */
export function send(c: Context, r: CachedRead): Response {
  // Compressed as its prerendered file is (the same variant bytes and ETag), kept with the cached read.
  const enc = negotiateEncoding(c.req.header('accept-encoding'));
  const variant = enc && variantOf(r, { body: r.bytes, etag: r.etag, contentType: r.headers['Content-Type'] }, enc);
  const etag = variant ? variant.etag : r.etag;
  const headers = variant ? { ...r.headers, ETag: variant.etag, 'Content-Encoding': enc! } : r.headers;
  const inm = c.req.header('if-none-match');
  if (inm && etagMatches(inm, etag)) return new Response(null, { status: 304, headers });
  return new Response((variant ? variant.body : r.bytes) as Uint8Array<ArrayBuffer>, { status: 200, headers });
}

export const agentParam = () => queryBool(false, 'Rewrite links to their agent form (/api/...?agent=true).');

/** A 200 answer: JSON of this schema (src/lib/read/schemas.ts, held equal to what the read returns), or text of a media type. */
export const ok = (description: string, body: z.ZodType | string) => ({
  200: { description, content: typeof body === 'string' ? { [body]: { schema: z.string() } } : { 'application/json': { schema: body } } },
});
export const withErrors = (description: string, body: z.ZodType | string) => ({ ...ok(description, body), ...ErrorResponses });

/** What a group of content routes registers with: the cached GET, the current state, and the read helpers. */
export interface ContentReads {
  app: OpenAPIHono;
  state: () => ContentState;
  /** Registers a cached read: the handler runs once per snapshot and key (path, validated query, negotiated form). */
  get: <R extends RouteConfig>(route: R, handler: (c: Context, input: Input<R['request']>) => Read) => void;
  read: (rep: Representation, body: string) => Read;
  json: (value: unknown) => Read;
  /** The value, or 404 naming what was not found. */
  found: <T>(value: T | null, what: string) => T;
}

/**
 * The registration kit for content reads over `state` (the current snapshot; it is swapped when dist/ is rebuilt).
 * @example const { get, json } = contentReads(app, state); get(createRoute({ method: 'get', path: '/api/tags', … }), () => json(listTags(state().snapshot)))
 */
export function contentReads(app: OpenAPIHono, state: () => ContentState): ContentReads {
  const get = <R extends RouteConfig>(route: R, handler: (c: Context, input: Input<R['request']>) => Read) => {
    addRoute(app, route, (c, input) => {
      const cache = cacheFor(state());
      // The key is everything a read depends on: path, validated query, and the negotiated form of /api.
      const key = `${c.req.path}\n${JSON.stringify(input.query)}\n${prefersJson(c.req.header('accept'))}`;
      let encoded = cache.get(key);
      if (!encoded) {
        encoded = encode(c.req.path, handler(c, input));
        cache.set(key, encoded);
      }
      return send(c, encoded);
    });
  };
  const read = (rep: Representation, body: string): Read => ({ rep, body });
  const json = (value: unknown): Read => read('json', toJson(value));
  const found = <T>(value: T | null, what: string): T => {
    if (value === null) throw notFound(what);
    return value;
  };
  return { app, state, get, read, json, found };
}
