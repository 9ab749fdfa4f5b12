// Parameters and response schemas of /api/search and the /related endpoints, with FastAPI's semantics
// for validation (see api/validation): they produce both the 422 bodies and /openapi.json.
import { z } from '@hono/zod-openapi';
import { ITEM_TYPES, type ItemType } from '../../src/lib/search/index.ts';
import { MAX_QUERY_CHARS, MAX_QUERY_WORDS, wordsOf } from '../../src/lib/search/analyse.ts';
import { LANGUAGES } from '../../src/lib/content/schema.ts';
import { dateString, limitParam, offsetParam, queryBool, queryInt } from '../validation/index.ts';

const TYPE_LIST = ITEM_TYPES.map((t) => `'${t}'`);
const EXPECTED_TYPES = `${TYPE_LIST.slice(0, -1).join(', ')} or ${TYPE_LIST.at(-1)}`;

/** `types=video,knowledge`: a comma-separated subset of the item types; an unknown name is a 422. */
const typesParam = z
  .string()
  .transform((v, ctx) => {
    const names = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (names.some((n) => !(ITEM_TYPES as readonly string[]).includes(n))) {
      ctx.addIssue({ code: 'custom', message: `Input should be a comma-separated list of ${EXPECTED_TYPES}`, params: { type: 'enum', ctx: { expected: EXPECTED_TYPES } } });
      return z.NEVER;
    }
    return [...new Set(names)] as ItemType[];
  })
  .optional()
  .openapi({ type: 'string', description: `Comma-separated subset of ${ITEM_TYPES.join(', ')}; all types when absent.`, example: 'video,knowledge' });

export const SearchQuery = z.object({
  q: z
    .string()
    .min(1)
    .max(MAX_QUERY_CHARS)
    .refine((q) => wordsOf(q).length <= MAX_QUERY_WORDS, `A query has at most ${MAX_QUERY_WORDS} words`)
    .openapi({
      description: `The query: words in English or Slovenian; at most ${MAX_QUERY_CHARS} characters and ${MAX_QUERY_WORDS} words. Unknown words of up to 20 letters also match known words one or two typos away and words they begin.`,
      example: 'shadow AI',
    }),
  types: typesParam,
  type: z
    .enum(ITEM_TYPES)
    .optional()
    .openapi({ param: { deprecated: true }, description: 'Deprecated: one type. Use `types`; when both are given, `types` wins.' }),
  hybrid: queryBool(true, 'Keyword and vector rankings fused by reciprocal rank fusion (k = 60); false: keyword only.'),
  draft: queryBool(false, 'Include draft knowledge concepts (concept stubs), their scores multiplied by 0.7.'),
  limit: limitParam(100, 20),
  offset: offsetParam().openapi({ description: 'Hits to skip, >= 0: the next page is at offset + limit (the response\'s `next`).' }),
  lang: z
    .enum(LANGUAGES)
    .optional()
    .openapi({ description: 'Only items with a version in this language (an essay in both languages has both).' }),
  tag: z.string().max(64).optional().openapi({ description: 'Only items carrying this tag (videos, essays, knowledge concepts and posts have tags; GET /api/tags lists them).', example: 'governance' }),
  since: dateString('Only items dated on or after this day (knowledge concepts and personas have no date, so they drop out).').optional(),
  agent: queryBool(false, 'Rewrite links to their agent form (/api/...?agent=true).'),
});
export type SearchQuery = z.output<typeof SearchQuery>;

export const RelatedQuery = z.object({
  k: queryInt(1, 20, 5, 'How many related items, 1..20.'),
  lang: z
    .enum(LANGUAGES)
    .optional()
    .openapi({ description: "The reader's language: an essay with a version in it is listed by that version's title and links (the hit's lang says which). Items are not filtered by it." }),
  agent: queryBool(false, 'Rewrite links to their agent form (/api/...?agent=true).'),
});

export const SearchHit = z
  .object({
    type: z.enum(ITEM_TYPES),
    id: z.string(),
    title: z.string(),
    url: z.string().openapi({ description: 'The page for people, or the API document with agent=true.' }),
    api_url: z.string(),
    page_url: z.string().openapi({ description: 'The absolute address of the page a person reads: cite this one.' }),
    lang: z.enum(['en', 'sl']).openapi({ description: "The language of the passage that matched, which the snippet shows; for an essay in both languages, url, api_url and page_url lead to that version (/essays/{slug}/sl)." }),
    date: z.string().nullable(),
    snippet: z.string().openapi({ description: 'A passage with the matched words in <mark>…</mark>; the rest is HTML-escaped.' }),
    score: z.number().openapi({ description: 'Fused RRF score in hybrid mode, BM25 score in keyword mode, blended similarity for related items.' }),
    draft: z.boolean(),
  })
  .openapi('SearchHit');

export const SearchResponse = z
  .object({
    query: z.string(),
    mode: z.enum(['hybrid', 'keyword', 'related']),
    total: z.number().int().openapi({ description: 'Items that match by words, plus those found by meaning alone among the vector candidates; hits are the best `limit` of them.' }),
    total_exact: z.boolean().optional().openapi({ description: 'False when the vector side stopped at its candidate limit (100): more items may match by meaning, so `total` is a lower bound.' }),
    embedder: z
      .object({ name: z.string(), model: z.string(), dimension: z.number().int() })
      .nullable()
      .optional()
      .openapi({ description: 'The embedder that ranked by meaning in hybrid mode; null in keyword mode or when the query had no word it knows.' }),
    hits: z.array(SearchHit),
    limit: z.number().int().optional().openapi({ description: 'Search: the page size asked for.' }),
    offset: z.number().int().optional().openapi({ description: 'Search: the hits skipped before these.' }),
    next: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: 'Search: the path of the next page (the same query at offset + limit), or null on the last page.', example: '/api/search?q=agents&limit=20&offset=20' }),
    warnings: z
      .array(z.string())
      .openapi({ description: 'What the server did not do as asked: a parameter it does not know (and what to use instead), the deprecated `type`, a tag no item carries.' }),
    item: z
      .object({ type: z.enum(ITEM_TYPES), id: z.string(), title: z.string(), url: z.string(), page_url: z.string() })
      .optional()
      .openapi({ description: 'Related endpoints: the item the hits are related to.' }),
  })
  .openapi('SearchResponse');
