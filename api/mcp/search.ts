// The MCP search tool's one entry point. For now a case-insensitive match of every query word over the
// titles and summaries the read model lists (videos, essays, digests, knowledge); when the search service
// in src/lib/search lands, only this function changes.
import type { Snapshot } from '../../src/lib/content/model.ts';
import { essayIn } from '../../src/lib/content/model.ts';
import { apiUrl, type ItemKind } from '../../src/lib/read/links.ts';

export const SEARCH_TYPES = ['video', 'essay', 'digest', 'knowledge'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export interface SearchHit {
  type: SearchType;
  id: string;
  title: string;
  date: string | null;
  summary: string;
  /** The item's JSON document (agent form). */
  url: string;
}

interface Candidate {
  type: SearchType;
  id: string;
  title: string;
  date: string | null;
  summary: string;
}

const KIND: Record<SearchType, ItemKind> = { video: 'videos', essay: 'essays', digest: 'digests', knowledge: 'knowledge' };

function* candidates(snap: Snapshot, types: readonly SearchType[]): Generator<Candidate> {
  if (types.includes('video')) for (const v of snap.videos) yield { type: 'video', id: v.video_id, title: v.title, date: v.date, summary: v.summary };
  if (types.includes('essay')) {
    for (const e of snap.essays) {
      const t = essayIn(e);
      yield { type: 'essay', id: e.slug, title: t.title, date: t.date, summary: t.description };
    }
  }
  if (types.includes('digest')) for (const d of snap.digests) yield { type: 'digest', id: d.date, title: d.title, date: d.date, summary: d.intro };
  if (types.includes('knowledge')) {
    for (const c of snap.concepts) if (!c.draft) yield { type: 'knowledge', id: c.slug, title: c.title, date: null, summary: c.summary };
  }
}

/**
 * Items whose title or summary contains every word of the query (case-insensitive); title matches first,
 * then the newest.
 */
export function searchContent(snap: Snapshot, baseUrl: string, query: string, opts: { types?: readonly SearchType[]; limit: number }): SearchHit[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const scored: { c: Candidate; score: number }[] = [];
  for (const c of candidates(snap, opts.types?.length ? opts.types : SEARCH_TYPES)) {
    const title = c.title.toLowerCase();
    const text = `${title}\n${c.summary.toLowerCase()}`;
    if (!words.every((w) => text.includes(w))) continue;
    scored.push({ c, score: words.filter((w) => title.includes(w)).length + (title.includes(query.toLowerCase().trim()) ? words.length : 0) });
  }
  scored.sort((a, b) => b.score - a.score || (b.c.date ?? '').localeCompare(a.c.date ?? '') || a.c.id.localeCompare(b.c.id));
  return scored.slice(0, opts.limit).map(({ c }) => ({
    ...c,
    summary: c.summary.length > 400 ? `${c.summary.slice(0, 397)}…` : c.summary,
    url: `${baseUrl}${apiUrl(KIND[c.type], c.id)}?agent=true`,
  }));
}
