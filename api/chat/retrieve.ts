// Retrieval for chat: the top passages for a question, by hybrid search, as numbered sources with the
// text an answer may quote. Passages in the conversation's language come first.
import type { Snapshot } from '../../src/lib/content/model.ts';
import { essayIn } from '../../src/lib/content/model.ts';
import type { SearchService } from '../../src/lib/search/index.ts';
import { LINK } from '../../src/lib/text/markup.ts';

export interface Passage {
  n: number;
  type: string;
  id: string;
  title: string;
  url: string;
  lang: 'en' | 'sl';
  text: string;
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max).replace(/\s+\S*$/, '')} …` : s);
const plain = (md: string) => md.replace(/^#+\s*/gm, '').replace(LINK, '$1').replace(/[*_`>]/g, '').replace(/\n{2,}/g, '\n').trim();

function passageText(snap: Snapshot, type: string, id: string, lang: 'en' | 'sl'): { text: string; lang: 'en' | 'sl' } | null {
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
      return { text: clip(`${t.description}\n${plain(t.body)}`, 1500), lang: t.lang };
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

export async function retrieve(search: SearchService, snap: Snapshot, question: string, lang: 'en' | 'sl', k = 6): Promise<Passage[]> {
  const result = await search.search({ q: question.slice(0, 500), hybrid: true, draft: false, limit: k * 2, agent: false, types: ['video', 'knowledge', 'essay', 'digest'] });
  const found = result.hits
    .map((h) => ({ h, p: passageText(snap, h.type, h.id, lang) }))
    .filter((x): x is { h: (typeof result.hits)[number]; p: { text: string; lang: 'en' | 'sl' } } => x.p !== null && x.p.text.trim() !== '');
  // Stable: the search order within each group, the conversation's language first.
  const ordered = [...found.filter((x) => x.p.lang === lang), ...found.filter((x) => x.p.lang !== lang)].slice(0, k);
  return ordered.map((x, i) => ({ n: i + 1, type: x.h.type, id: x.h.id, title: x.h.title, url: x.h.url, lang: x.p.lang, text: x.p.text }));
}
