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

const SEARCH_PARAMS = Object.keys(SearchQuery.shape);
const RELATED_PARAMS = Object.keys(RelatedQuery.shape);

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

/** What to use instead of the parameters other search APIs take (each unknown name gets a warning). */
const OFFSET_INSTEAD = 'use "offset" (hits to skip; the response\'s "next" is the following page)';
const SEARCH_INSTEAD: Record<string, string> = {
  page: OFFSET_INSTEAD,
  cursor: OFFSET_INSTEAD,
  start: OFFSET_INSTEAD,
  skip: OFFSET_INSTEAD,
  per_page: 'use "limit" (1..100)',
  page_size: 'use "limit" (1..100)',
  size: 'use "limit" (1..100)',
  count: 'use "limit" (1..100)',
  k: 'use "limit" (1..100)',
  top_k: 'use "limit" (1..100)',
  mode: 'search is hybrid by default; use "hybrid=false" for keyword only',
  query: 'use "q"',
  search: 'use "q"',
  language: 'use "lang" (en or sl)',
  locale: 'use "lang" (en or sl)',
  tags: 'use "tag" (one tag; GET /api/tags lists them)',
  after: 'use "since" (YYYY-MM-DD: items dated on or after it)',
  from: 'use "since" (YYYY-MM-DD: items dated on or after it)',
  date: 'use "since" (YYYY-MM-DD: items dated on or after it)',
  kind: 'use "types" (a comma-separated list)',
  sort: 'hits are ranked by relevance; "since" narrows them by date',
  order: 'hits are ranked by relevance; "since" narrows them by date',
};
const RELATED_INSTEAD: Record<string, string> = { limit: 'use "k" (1..20)', n: 'use "k" (1..20)' };
/** Unknown parameters named one by one; beyond, one line counts the rest. */
const MAX_UNKNOWN_NAMED = 10;

/** The query parameter names a route does not take, sorted (part of the cache key: they change the warnings). */
function unknownParams(c: Context, known: readonly string[]): string[] {
  return [...new Set(Object.keys(c.req.queries()))].filter((n) => !known.includes(n)).sort();
}

/** One warning per unknown parameter: it was ignored, and what to use instead. */
function unknownWarnings(names: readonly string[], known: readonly string[], instead: Record<string, string>, path: string): string[] {
  const out = names.slice(0, MAX_UNKNOWN_NAMED).map((n) => {
    const name = JSON.stringify(n.length > 64 ? `${n.slice(0, 64)}…` : n);
    const lower = n.toLowerCase();
    const hint = known.includes(lower) ? `use "${lower}" (parameter names are lower case)` : Object.hasOwn(instead, lower) ? instead[lower] : null;
    if (hint) return `Unknown parameter ${name} was ignored: ${hint}.`;
    const listed = known.filter((k) => k !== 'type'); // deprecated: not offered
    return `Unknown parameter ${name} was ignored; ${path} takes ${listed.slice(0, -1).join(', ')} and ${listed.at(-1)}.`;
  });
  if (names.length > MAX_UNKNOWN_NAMED) out.push(`${names.length - MAX_UNKNOWN_NAMED} more unknown parameters were ignored.`);
  return out;
}

/** The next page of a search (the same query, canonically spelled, at offset + limit), or null on the last. */
function nextPage(query: SearchQuery, types: readonly string[] | undefined, total: number): string | null {
  if (query.offset + query.limit >= total) return null;
  const qs = new URLSearchParams({ q: query.q });
  if (types?.length) qs.set('types', types.join(','));
  if (query.lang) qs.set('lang', query.lang);
  if (query.tag !== undefined) qs.set('tag', query.tag);
  if (query.since) qs.set('since', query.since);
  if (!query.hybrid) qs.set('hybrid', 'false');
  if (query.draft) qs.set('draft', 'true');
  qs.set('limit', String(query.limit));
  qs.set('offset', String(query.offset + query.limit));
  if (query.agent) qs.set('agent', 'true');
  return `/api/search?${qs.toString().replace(/\+/g, '%20')}`;
}

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
        await enforceRate(limit, p ? `user:${p.user.id}` : `addr:${clientAddress(c)}`);
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
    (c, { query }) => {
      const unknown = unknownParams(c, SEARCH_PARAMS);
      return cached(
        c,
        unknown.length ? { query, unknown } : query,
        async (service) => {
        const warnings: string[] = unknownWarnings(unknown, SEARCH_PARAMS, SEARCH_INSTEAD, '/api/search');
        let types = query.types;
        if (query.type !== undefined) {
          warnings.push(TYPE_DEPRECATED);
          if (types === undefined) types = [query.type];
          else warnings.push(TYPE_IGNORED);
        }
        const { q, hybrid, draft, limit, offset, lang, tag, since, agent } = query;
        const result = await service.search({ q, types, hybrid, draft, limit, offset, lang, tag, since, everyMatch: true, agent, origin: deps.content().site.baseUrl });
        if (tag !== undefined && !service.hasTag(tag)) warnings.push(`No item carries the tag ${JSON.stringify(tag)}: GET /api/tags lists the tags in use.`);
        if (offset > 0 && offset >= result.total) {
          warnings.push(`offset ${offset} is past the last hit (total ${result.total})${result.total > 0 ? `: the last page starts at offset ${Math.floor((result.total - 1) / limit) * limit}` : ''}.`);
        }
        return encode({ ...result, limit, offset, next: nextPage(query, types, result.total), warnings }, query.type !== undefined ? { Deprecation: 'true' } : {});
        },
        deps.searchLimiter,
      );
    },
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
        const unknown = unknownParams(c, RELATED_PARAMS);
        return cached(c, unknown.length ? { query, unknown } : query, async (service) => {
          const result = service.related(r.type, id, query.k, query.agent, deps.content().site.baseUrl, query.lang);
          if (!result) throw notFound(r.what);
          return encode({ ...result, warnings: unknownWarnings(unknown, RELATED_PARAMS, RELATED_INSTEAD, `/api/${r.kind}/{${r.param}}/related`) }, {});
        });
      },
    );
  }
}
