// The search tools: search (hybrid keyword and semantic search over every item type, filtered by type,
// language, tag and date, paged by offset) and related (the items nearest one item). Both go through the
// HTTP route they mirror, so its checks, limits and audit events are the route's.
import { z } from 'zod';
import { ITEM_TYPES } from '../../../src/lib/search/documents.ts';
import { absolutise, apiError, structured } from '../api.ts';
import { KIND, plain } from './links.ts';
import { count, Hit, itemId, itemType, Link } from './schemas.ts';
import { READ, type ToolDef } from './shared.ts';

/** The `search` tool: hybrid keyword and semantic search over every item type, through GET /api/search. */
export const searchTool: ToolDef = {
  name: 'search',
  needs: 'none',
  register: (server, { state, call }) =>
    server.registerTool(
      'search',
      {
        title: 'Search the knowledge base',
        description:
          'Find videos, essays, daily digests, knowledge concepts, personas and published posts (hybrid keyword and semantic search, English and Slovenian). ' +
          'Each hit has page_url, the page to cite to a person, and url, its JSON (read it with get_item).',
        inputSchema: {
          query: z
            .string({ error: 'query is required: the words to look for' })
            .min(1, { error: 'query must not be empty: give the words to look for' })
            .max(500, { error: 'query has at most 500 characters: shorten it' })
            .describe('The words to look for, in English or Slovenian (a question works too).'),
          types: z
            .array(itemType(), { error: `types is a list of item kinds, e.g. ["video", "essay"]` })
            .optional()
            .describe(`Only these kinds of item (any of ${ITEM_TYPES.join(', ')}); all when absent.`),
          limit: count('limit', 1, 50, 10, 'At most this many hits'),
          offset: z
            .number({ error: 'offset must be a whole number, 0 or more' })
            .int({ error: 'offset must be a whole number, 0 or more' })
            .min(0, { error: 'offset must be 0 or more' })
            .default(0)
            .describe('Hits to skip: the next page is at next_offset (default 0).'),
          lang: z.enum(['en', 'sl'], { error: 'lang is en or sl' }).optional().describe('Only items with a version in this language: en or sl.'),
          tag: z.string({ error: 'tag is one tag, e.g. "governance"' }).max(64, { error: 'tag has at most 64 characters' }).optional().describe('Only items carrying this tag (videos, essays, knowledge concepts, posts).'),
          since: z
            .string({ error: 'since is a date YYYY-MM-DD' })
            .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'since is a date YYYY-MM-DD, e.g. 2025-01-31' })
            .optional()
            .describe('Only items dated on or after this day, YYYY-MM-DD (knowledge concepts and personas have no date).'),
          hybrid: z.boolean({ error: 'hybrid is true or false' }).default(true).describe('true: words and meaning fused (default); false: words only.'),
        },
        outputSchema: z.looseObject({
          query: z.string(),
          total: z.number().describe('Items that match; a lower bound when total_exact is false.'),
          total_exact: z.boolean(),
          embedder: z.looseObject({ name: z.string(), model: z.string() }).nullable().describe('What ranked by meaning; null for words only.'),
          hits: z.array(Hit),
          next_offset: z.number().nullable().describe('The offset of the next page, or null on the last one.'),
          warnings: z.array(z.string()).describe('What was not done as asked (a tag no item carries, an offset past the end).'),
        }),
        annotations: READ,
      },
      async ({ query, types, limit, offset, lang, tag, since, hybrid }) => {
        const qs = new URLSearchParams({ q: query, limit: String(limit), offset: String(offset), hybrid: String(hybrid), agent: 'true' });
        if (types?.length) qs.set('types', types.join(','));
        if (lang) qs.set('lang', lang);
        if (tag !== undefined) qs.set('tag', tag);
        if (since) qs.set('since', since);
        const a = await call('GET', `/api/search?${qs}`);
        if (!a.ok) return apiError(a, { q: 'query' });
        const origin = state().site.baseUrl;
        const r = a.body as { query: string; total: number; total_exact?: boolean; embedder?: { name: string; model: string } | null; hits: Record<string, unknown>[]; next?: string | null; warnings?: string[] };
        const hits = r.hits.map((h) => ({
          type: h.type as string,
          id: h.id as string,
          title: h.title as string,
          date: h.date as string | null,
          lang: h.lang as string,
          summary: plain(h.snippet as string),
          url: `${origin}${h.url as string}`,
          page_url: h.page_url as string,
        }));
        const next_offset = r.next ? offset + limit : null;
        return structured({ query: r.query, total: r.total, total_exact: r.total_exact ?? true, embedder: r.embedder ?? null, hits, next_offset, warnings: r.warnings ?? [] });
      },
    ),
};

/** The `related` tool: the items nearest one item by meaning, tags and links, through GET /api/<kind>/<id>/related. */
export const relatedTool: ToolDef = {
  name: 'related',
  needs: 'none',
  register: (server, { state, call }) =>
    server.registerTool(
      'related',
      {
        title: 'Related items',
        description: 'The items most related to one item: nearest by meaning, blended with shared tags and links (never the item itself).',
        inputSchema: { type: itemType(), id: itemId(), k: count('k', 1, 20, 5, 'How many related items') },
        outputSchema: z.looseObject({ item: z.looseObject({ type: z.string(), id: z.string(), title: z.string(), ...Link }), hits: z.array(Hit) }),
        annotations: READ,
      },
      async ({ type, id, k }) => {
        const a = await call('GET', `/api/${KIND[type as keyof typeof KIND]}/${encodeURIComponent(id)}/related?k=${k}&agent=true`);
        if (!a.ok) return apiError(a);
        const origin = state().site.baseUrl;
        const r = a.body as { item: Record<string, unknown>; hits: Record<string, unknown>[] };
        const hits = r.hits.map((h) => ({ type: h.type, id: h.id, title: h.title, date: h.date, lang: h.lang, summary: plain(h.snippet as string), url: `${origin}${h.url as string}`, page_url: h.page_url }));
        return structured({ item: { ...absolutise(r.item, origin), id }, hits });
      },
    ),
};
