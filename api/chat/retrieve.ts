// Retrieval for chat: the top passages for a question, by hybrid search, as numbered sources with the
// text an answer may quote, and how well the knowledge base covers the question. Only passages that
// answer enough of the question by its words are sources (CHAT_RELEVANCE_FLOOR, src/lib/config.ts); passages in the
// conversation's language come first, an essay in it with the link of its page in that language.
import type { Snapshot } from '../../src/lib/content/model.ts';
import { essayIn } from '../../src/lib/content/model.ts';
import type { SearchService } from '../../src/lib/search/index.ts';
import { pagePath, translationLinks } from '../../src/lib/read/links.ts';
import { LINK } from '../../src/lib/text/markup.ts';

export interface Passage {
  n: number;
  type: string;
  id: string;
  title: string;
  url: string;
  lang: 'en' | 'sl';
  text: string;
  /** SearchService.relevance: the share of the question this passage's item answers by its words. */
  relevance: number;
}

/** The best passage at or above this answers most of the question: coverage "full", else "partial". */
export const FULL_COVERAGE = 0.5;

/** How much of a question the knowledge base covers: nothing (no source), some of it, or most of it. */
export type Coverage = 'none' | 'partial' | 'full';

export function coverageOf(passages: readonly Passage[]): Coverage {
  if (passages.length === 0) return 'none';
  return Math.max(...passages.map((p) => p.relevance)) >= FULL_COVERAGE ? 'full' : 'partial';
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max).replace(/\s+\S*$/, '')} …` : s);
const plain = (md: string) => md.replace(/^#+\s*/gm, '').replace(LINK, '$1').replace(/[*_`>]/g, '').replace(/\n{2,}/g, '\n').trim();

function passageText(snap: Snapshot, type: string, id: string, lang: 'en' | 'sl'): { text: string; lang: 'en' | 'sl'; title?: string } | null {
  switch (type) {
    case 'video': {
      const v = snap.videosById.get(id);
      return v ? { text: v.summary || clip(v.transcript, 1200), lang: v.language } : null;
    }
    case 'knowledge': {
      const c = snap.conceptsBySlug.get(id);
      return c ? { text: clip(`${c.summary}\n${plain(c.body)}`, 1500), lang: 'en' } : null;
    }
    case 'essay': {
      const e = snap.essaysBySlug.get(id);
      if (!e) return null;
      const t = essayIn(e, lang);
      return { text: clip(`${t.description}\n${plain(t.body)}`, 1500), lang: t.lang, title: t.title };
    }
    case 'digest': {
      const d = snap.digestsByDate.get(id);
      return d ? { text: clip(d.items.map((i) => `${i.headline}. ${i.paragraph}`).join('\n'), 1500), lang: 'en' } : null;
    }
    case 'persona': {
      const p = snap.personasById.get(id);
      return p ? { text: `${p.description}\n${p.body}`, lang: 'en' } : null;
    }
    default:
      return null;
  }
}

/** The page of a passage: an essay's in the language of the passage's text, /essays/<slug>/sl for a translation. */
function passageUrl(snap: Snapshot, type: string, id: string, lang: 'en' | 'sl', fallback: string): string {
  const e = type === 'essay' ? snap.essaysBySlug.get(id) : undefined;
  if (!e) return fallback;
  return lang === e.primary ? pagePath('essays', id) : translationLinks('essays', id, lang, false).url;
}

/** The passages that answer the question (at most k, numbered from 1), and how well they cover it. */
export async function retrieve(search: SearchService, snap: Snapshot, question: string, lang: 'en' | 'sl', floor: number, k = 6): Promise<{ passages: Passage[]; coverage: Coverage }> {
  const q = question.slice(0, 500);
  const result = await search.search({ q, hybrid: true, draft: false, limit: k * 2, agent: false, types: ['video', 'knowledge', 'essay', 'digest'] });
  const relevance = search.relevance(q, result.hits);
  const found = result.hits
    .map((h, i) => ({ h, p: passageText(snap, h.type, h.id, lang), relevance: relevance[i] }))
    .filter((x): x is { h: (typeof result.hits)[number]; p: { text: string; lang: 'en' | 'sl'; title?: string }; relevance: number } => x.p !== null && x.p.text.trim() !== '' && x.relevance >= floor);
  // Stable: the search order within each group, the conversation's language first.
  const ordered = [...found.filter((x) => x.p.lang === lang), ...found.filter((x) => x.p.lang !== lang)].slice(0, k);
  const passages = ordered.map((x, i) => ({
    n: i + 1,
    type: x.h.type,
    id: x.h.id,
    title: x.p.title ?? x.h.title,
    url: passageUrl(snap, x.h.type, x.h.id, x.p.lang, x.h.url),
    lang: x.p.lang,
    text: x.p.text,
    relevance: x.relevance,
  }));
  return { passages, coverage: coverageOf(passages) };
}
