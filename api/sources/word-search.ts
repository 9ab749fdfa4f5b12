// A stand-in for the search service: plain word matching over the snapshot's videos, essays and digests
// and the sources table. POST /api/sources/knowledge depends only on the `SearchSources` signature, so
// this one function is what to swap for the real search (src/lib/search) when it lands.
import type { Db } from '../db/index.ts';
import type { Snapshot } from '../../src/lib/content/model.ts';
import { essayIn } from '../../src/lib/content/model.ts';

export interface SourceHit {
  type: 'video' | 'essay' | 'digest' | 'web_page';
  id: string;
  title: string;
  /** The page's address for web pages; null for pasted text (it cannot be cited in front matter). */
  url: string | null;
  text: string;
  tags: string[];
  score: number;
}

export type SearchSources = (query: string, limit: number) => Promise<SourceHit[]>;

const STOP = new Set('a an and are as at be by for from how in into is it of on or that the this to with what why when who ai'.split(' '));

export function queryWords(query: string): string[] {
  const words = query.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').match(/[a-z0-9]+/g) ?? [];
  const kept = words.filter((w) => w.length > 1 && !STOP.has(w));
  return [...new Set(kept.length ? kept : words)];
}

/** A crude stem (claims → claim, handling → handl, policies → polic) so inflections match each other. */
export function stem(w: string): string {
  const s = w.replace(/(ings|ing|ers|er|ed|ies|es|s|ions|ion|y)$/, '');
  return s.length >= 4 ? s : w;
}

/** Matches a word and its inflections (agent, agents, agentic; handling, handler) by its stem. */
export const wordPattern = (w: string) => new RegExp(`\\b${stem(w)}\\w*`, 'gi');

interface Doc {
  type: SourceHit['type'];
  id: string;
  title: string;
  url: string | null;
  tags: string[];
  text: string;
}

function score(doc: Doc, words: string[], phrase: RegExp | null): number {
  let s = 0;
  let matched = 0;
  for (const w of words) {
    const re = wordPattern(w);
    const inTitle = (doc.title.match(re) ?? []).length;
    const inTags = doc.tags.some((t) => t.split('-').some((p) => p.startsWith(stem(w)))) ? 1 : 0;
    const inText = (doc.text.match(re) ?? []).length;
    if (inTitle + inTags + inText > 0) matched++;
    s += 3 * Math.min(inTitle, 2) + 2 * inTags + Math.log2(1 + inText);
  }
  // Most of the topic's words must occur (both of two, two of three…): one common word is not a match.
  if (matched < Math.ceil((words.length * 2) / 3)) return 0;
  // The words together, as a phrase, count double.
  const together = phrase ? (doc.title.match(phrase) ?? []).length * 2 + (doc.text.match(phrase) ?? []).length : 0;
  return (s + 2 * Math.log2(1 + together)) * (matched / words.length);
}

/** The query's words in order with only spaces or hyphens between them, e.g. "claims handling". */
export function phrasePattern(words: string[]): RegExp | null {
  return words.length > 1 ? new RegExp(`\\b${words.map((w) => `${stem(w)}\\w*`).join('[\\s-]+')}`, 'gi') : null;
}

function docs(snapshot: Snapshot, db: Db): Doc[] {
  const out: Doc[] = [];
  for (const v of snapshot.videos) out.push({ type: 'video', id: v.video_id, title: v.title, url: null, tags: v.tags, text: `${v.summary}\n\n${v.transcript}` });
  for (const e of snapshot.essays) {
    const t = essayIn(e);
    out.push({ type: 'essay', id: e.slug, title: t.title, url: null, tags: t.tags, text: `${t.description}\n\n${t.body}` });
  }
  for (const d of snapshot.digests) out.push({ type: 'digest', id: d.date, title: d.title, url: null, tags: [], text: d.content });
  for (const r of db.prepare('SELECT id, url, title, text FROM sources ORDER BY created_at DESC LIMIT 5000').all() as { id: string; url: string | null; title: string; text: string }[]) {
    out.push({ type: 'web_page', id: r.id, title: r.title, url: r.url, tags: [], text: r.text });
  }
  return out;
}

/** The word-matching search over content and added sources, best first. */
export function wordMatchSearch(snapshot: () => Snapshot, db: Db): SearchSources {
  return async (query, limit) => {
    const words = queryWords(query);
    if (words.length === 0) return [];
    const phrase = phrasePattern(words);
    return docs(snapshot(), db)
      .map((d) => ({ ...d, score: score(d, words, phrase) }))
      .filter((d) => d.score > 0)
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  };
}
