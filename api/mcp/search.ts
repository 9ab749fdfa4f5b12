// The MCP search tool's one entry point: the service behind /api/search (hybrid keyword and vector
// search), limited to the kinds of item MCP clients read (videos, essays, digests, knowledge).
import type { SearchService } from '../../src/lib/search/index.ts';

export const SEARCH_TYPES = ['video', 'essay', 'digest', 'knowledge'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export interface SearchHit {
  type: SearchType;
  id: string;
  title: string;
  date: string | null;
  /** A passage around the matched words, as plain text. */
  summary: string;
  /** The item's JSON document (agent form). */
  url: string;
}

const plain = (snippet: string) =>
  snippet.replace(/<\/?mark>/g, '').replace(/&(lt|gt|amp|quot|#39);/g, (_m, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'" })[e]!);

export async function searchContent(search: SearchService, baseUrl: string, query: string, opts: { types?: readonly SearchType[]; limit: number }): Promise<SearchHit[]> {
  const result = await search.search({ q: query, types: opts.types?.length ? opts.types : SEARCH_TYPES, hybrid: true, draft: false, limit: opts.limit, agent: true });
  return result.hits.map((h) => ({ type: h.type as SearchType, id: h.id, title: h.title, date: h.date, summary: plain(h.snippet), url: `${baseUrl}${h.url}` }));
}
