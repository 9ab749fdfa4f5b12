// The sources a knowledge draft is written from: content found by the search service (src/lib/search,
// keyword mode) and pages people added found by the sources_fts index (migration 009), both re-ranked by
// plain word matching so a hit must carry most of the topic. Each index gives at most CANDIDATES rows and
// an added page at most its first SOURCE_HEAD_CHARS characters, so one request reads a bounded number of
// bytes whatever the sources table holds (it used to read up to 5,000 whole texts per request).
import type { Db } from '../../src/lib/data/db/index.ts';
import type { Snapshot } from '../../src/lib/content/model.ts';
import { essayIn } from '../../src/lib/content/model.ts';
import type { SearchService } from '../../src/lib/search/index.ts';

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

/** Rows taken from each index (search service, sources_fts) before word matching ranks them. */
export const CANDIDATES = 50;
/** Characters of an added source's text that sources_fts holds and a draft reads (migration 009's substr). */
export const SOURCE_HEAD_CHARS = 65_536;

function contentDoc(snapshot: Snapshot, type: string, id: string): Doc | null {
  if (type === 'video') {
    const v = snapshot.videosById.get(id);
    return v ? { type: 'video', id: v.video_id, title: v.title, url: null, tags: v.tags, text: `${v.summary}\n\n${v.transcript}` } : null;
  }
  if (type === 'essay') {
    const e = snapshot.essaysBySlug.get(id);
    if (!e) return null;
    const t = essayIn(e);
    return { type: 'essay', id: e.slug, title: t.title, url: null, tags: t.tags, text: `${t.description}\n\n${t.body}` };
  }
  if (type === 'digest') {
    const d = snapshot.digestsByDate.get(id);
    return d ? { type: 'digest', id: d.date, title: d.title, url: null, tags: [], text: d.content } : null;
  }
  return null;
}

/** An FTS5 query for any of the words by its stem as a prefix (as wordPattern matches); words are [a-z0-9]+. */
const ftsQuery = (words: string[]) => words.map((w) => `"${stem(w)}"*`).join(' OR ');
/** The same query for PostgreSQL's to_tsquery (migrations/postgres/009): `:*` marks a prefix, `|` is OR. */
const tsQuery = (words: string[]) => words.map((w) => `${stem(w)}:*`).join(' | ');

export interface SourceSearchDeps {
  /** The current search service (swapped with the content). */
  search: () => SearchService;
  snapshot: () => Snapshot;
  db: Db;
}

/** Content and added sources for a topic, best first, from the indexes (never a scan of stored texts). */
export function indexedSourceSearch(deps: SourceSearchDeps): SearchSources {
  const pg = deps.db.dialect === 'postgres';
  const addedPages = deps.db.prepare<[string, number], { id: string; title: string; head: string }>(
    pg
      ? `SELECT id, title, head FROM sources_fts, to_tsquery('simple', unaccent(?)) AS q WHERE tsv @@ q ORDER BY ts_rank(tsv, q) DESC, id LIMIT ?`
      : 'SELECT id, title, head FROM sources_fts WHERE sources_fts MATCH ? ORDER BY rank LIMIT ?',
  );
  const urlOf = deps.db.prepare<[string], { url: string | null }>('SELECT url FROM sources WHERE id = ?');
  return async (query, limit) => {
    const words = queryWords(query);
    if (words.length === 0) return [];
    const snapshot = deps.snapshot();
    const found = await deps.search().search({ q: query, types: ['video', 'essay', 'digest'], hybrid: false, draft: false, limit: CANDIDATES, agent: false });
    const docs: Doc[] = [];
    for (const h of found.hits) {
      const d = contentDoc(snapshot, h.type, h.id);
      if (d) docs.push(d);
    }
    const pages = await addedPages.all(pg ? tsQuery(words) : ftsQuery(words), CANDIDATES);
    const urls = await Promise.all(pages.map((r) => urlOf.get(r.id)));
    pages.forEach((r, i) => docs.push({ type: 'web_page', id: r.id, title: r.title, url: urls[i]?.url ?? null, tags: [], text: r.head }));
    const phrase = phrasePattern(words);
    return docs
      .map((d) => ({ ...d, score: score(d, words, phrase) }))
      .filter((d) => d.score > 0)
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  };
}
