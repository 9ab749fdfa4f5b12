// Search routes: GET /api/search (keyword or hybrid, across videos, knowledge, essays, digests, personas
// and posts) and the six /related endpoints, over the SearchService in src/lib/search. Results are cached
// per service and live-index version, so a repeated query costs its validation only, and a post published
// since is found by the next search.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ContentState } from '../content/index.ts';
import { notFound } from '../errors/index.ts';
import { ErrorDetail, ErrorResponses, jsonContent, ValidationErrorResponse } from '../openapi/schemas.ts';
import { etagFor, etagMatches } from '../static/index.ts';
import { principal } from '../auth/middleware.ts';
import { clientAddress, enforceRate, type RateLimiter } from '../rate-limit/index.ts';
import { dateString } from '../validation/index.ts';
import { addRoute } from '../validation/route.ts';
import { toJson } from '../../src/lib/representation.ts';
import type { ItemType, SearchService } from '../../src/lib/search/index.ts';
import { RelatedQuery, SearchQuery, SearchResponse } from './schemas.ts';

export interface SearchDeps {
  /** The current content snapshot (swapped when a new build is loaded). */
  content: () => ContentState;
  /** The current search service (swapped with the content). */
  search: () => SearchService;
  /**
   * Searches one caller may run per minute (per person when signed in, else per client address): only
   * those that are computed count, a repeated query answered from the cache is free.
   */
  searchLimiter: RateLimiter;
}

const TYPE_DEPRECATED = 'The parameter "type" is deprecated; use "types" (a comma-separated list).';
const TYPE_IGNORED = 'The deprecated parameter "type" was ignored because "types" was given.';

interface Encoded {
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
  headers: Record<string, string>;
}

/** Encoded responses per service, keyed by live-index version, path and validated query; oldest dropped first. */
const MAX_CACHED = 2000;
class ResponseCache {
  private entries = new Map<string, Encoded>();
  get(key: string): Encoded | undefined {
    return this.entries.get(key);
  }
  set(key: string, value: Encoded): void {
    this.entries.set(key, value);
    if (this.entries.size > MAX_CACHED) this.entries.delete(this.entries.keys().next().value!);
  }
}
const caches = new WeakMap<SearchService, ResponseCache>();

function encode(value: unknown, extra: Record<string, string>): Encoded {
  const bytes = Buffer.from(toJson(value)) as Uint8Array<ArrayBuffer>;
  const etag = etagFor(Buffer.from(bytes));
  return {
    bytes,
    etag,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      ETag: etag,
      // Results change when posts are published: clients revalidate (a 304 when nothing changed).
      'Cache-Control': 'no-cache',
      'Access-Control-Allow-Origin': '*',
      'X-Content-Type-Options': 'nosniff',
      ...extra,
    },
  };
}

function send(c: Context, r: Encoded): Response {
  const inm = c.req.header('if-none-match');
  if (inm && etagMatches(inm, r.etag)) return new Response(null, { status: 304, headers: r.headers });
  return new Response(r.bytes, { status: 200, headers: r.headers });
}

const RELATED: { type: ItemType; kind: string; param: string; what: string; date?: boolean }[] = [
  { type: 'video', kind: 'videos', param: 'video_id', what: 'Video' },
  { type: 'knowledge', kind: 'knowledge', param: 'slug', what: 'Knowledge concept' },
  { type: 'essay', kind: 'essays', param: 'slug', what: 'Essay' },
  { type: 'digest', kind: 'digests', param: 'date', what: 'Digest', date: true },
  { type: 'persona', kind: 'personas', param: 'persona_id', what: 'Persona' },
  { type: 'post', kind: 'posts', param: 'post_id', what: 'Post' },
];

/**
 * @example
 * registerSearchRoutes(app, { content: () => content, search: () => search })
 */
export function registerSearchRoutes(app: OpenAPIHono, deps: SearchDeps): void {
  /** Cached bytes for a request, or computes and caches them. */
  async function cached(c: Context, query: unknown, compute: (service: SearchService) => Promise<Encoded>, limit?: RateLimiter): Promise<Response> {
    const service = deps.search();
    let cache = caches.get(service);
    if (!cache) caches.set(service, (cache = new ResponseCache()));
    const key = `${service.version}\n${c.req.path}\n${JSON.stringify(query)}`;
    let encoded = cache.get(key);
    if (!encoded) {
      if (limit) {
        const p = principal(c);
        enforceRate(limit, p ? `user:${p.user.id}` : `addr:${clientAddress(c)}`);
      }
      encoded = await compute(service);
      cache.set(key, encoded);
    }
    return send(c, encoded);
  }

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/search',
      tags: ['search'],
      summary: 'Keyword or hybrid search across videos, knowledge, essays, digests, personas and posts',
      description:
        'Hybrid (the default) fuses the keyword ranking (BM25 over title, tags, summary and body, English and Slovenian stemming, typo tolerance) ' +
        'and the vector ranking (embeddings) by reciprocal rank fusion with k = 60; hybrid=false is keyword only.',
      request: { query: SearchQuery },
      responses: {
        200: { description: 'Search results', content: { 'application/json': { schema: SearchResponse } } },
        ...ValidationErrorResponse,
        429: jsonContent(ErrorDetail, 'Too many searches from this caller (SEARCH_RATE_LIMIT_PER_MINUTE); Retry-After says when to try again'),
      },
    }),
    (c, { query }) =>
      cached(
        c,
        query,
        async (service) => {
        const warnings: string[] = [];
        let types = query.types;
        if (query.type !== undefined) {
          warnings.push(TYPE_DEPRECATED);
          if (types === undefined) types = [query.type];
          else warnings.push(TYPE_IGNORED);
        }
        const result = await service.search({ q: query.q, types, hybrid: query.hybrid, draft: query.draft, limit: query.limit, agent: query.agent, origin: deps.content().site.baseUrl });
        return encode({ ...result, warnings }, query.type !== undefined ? { Deprecation: 'true' } : {});
        },
        deps.searchLimiter,
      ),
  );

  for (const r of RELATED) {
    const idSchema = r.date ? dateString('The digest date.') : z.string().max(200);
    addRoute(
      app,
      createRoute({
        method: 'get',
        path: `/api/${r.kind}/{${r.param}}/related`,
        tags: ['search'],
        summary: `Items related to one ${r.what.toLowerCase()}: nearest by embedding, blended with shared tags and links`,
        request: { params: z.object({ [r.param]: idSchema }), query: RelatedQuery },
        responses: {
          200: { description: 'Related items, best first (never the item itself)', content: { 'application/json': { schema: SearchResponse } } },
          ...ErrorResponses,
        },
      }),
      (c, { params, query }) => {
        const id = (params as Record<string, string>)[r.param];
        // Unknown items are answered before the cache, so they cannot crowd it out.
        if (!deps.search().has(r.type, id)) throw notFound(r.what);
        return cached(c, query, async (service) => {
          const result = service.related(r.type, id, query.k, query.agent, deps.content().site.baseUrl);
          if (!result) throw notFound(r.what);
          return encode({ ...result, warnings: [] }, {});
        });
      },
    );
  }
}
