// The search service the server holds: keyword and hybrid search, related items, and the live index that
// published posts join between builds. Built from a loaded index and the content snapshot it was built
// from (for titles, dates, snippets and links).
import type { Snapshot } from '../content/model.ts';
import { apiUrl, itemUrl, pageUrl, translationLinks } from '../read/links.ts';
import { analyseQuery, boundQuery, queryLanguages, termOf, wordsOf, type QueryWord, type TextLang } from './analyse.ts';
import { docKey, documentsFromSnapshot, KIND_OF_TYPE, languageVersions, type ItemType, type SearchDocument } from './documents.ts';
import { normalise, type Embedder } from './embedders/embedder.ts';
import { documentLanguages } from './keyword.ts';
import { LiveIndex, type LiveEntry } from './live.ts';
import type { KeywordScorer } from './postings.ts';
import { indexVocabulary, planQuery, type Clause, type Vocabulary } from './query-plan.ts';
import type { LoadedIndex } from './loaded.ts';
import type { IndexManifest } from './manifest.ts';
import { relatedScore } from './related.ts';
import { reciprocalRankFusion } from './rrf.ts';
import { snippetOf } from './snippet.ts';
import { dot, nearest } from './vectors.ts';

/** The spec's multiplier for draft concept hits (concept stubs) when draft=true. */
export const DRAFT_SCORE_MULTIPLIER = 0.7;
/** How deep the vector ranking goes into the fusion: further down, neighbours are not about the query. */
const VECTOR_CANDIDATES = 100;
/**
 * How deep the keyword ranking goes into the fusion. Below it an item's fused score is under
 * 1/(60 + 200) and can no longer reach a page of at most 100 hits, so it only counts towards the total.
 */
const FUSION_DEPTH = 200;
/**
 * Keyword matches scoring under this share of the best one do not enter the fusion ranking: they matched
 * only words that hardly count here ("umetna inteligenca" in Slovenian documents, as "AI" in English
 * ones). Measured on test/search/queries.json: without it, hybrid trails keyword on queries with one
 * clear answer.
 */
const FUSION_MIN_SHARE = 0.05;
/** Candidates by similarity that the related blend reorders. */
const RELATED_CANDIDATES = 100;
/** Link hubs (a digest citing many videos) do not make everything they touch related. */
const MAX_CO_CITATION_FANOUT = 50;
const QUERY_VECTOR_CACHE = 512;

export interface SearchParams {
  q: string;
  /** Only these types; all when absent. */
  types?: readonly ItemType[];
  hybrid: boolean;
  /** Include draft concepts, their scores multiplied by DRAFT_SCORE_MULTIPLIER. */
  draft: boolean;
  limit: number;
  /** Hits to skip (a later page); 0 when absent. */
  offset?: number;
  /** Only items with a version in this language (an essay in both languages has both). */
  lang?: TextLang;
  /** Only items carrying this tag (videos, essays, concepts and posts have tags). */
  tag?: string;
  /** Only items dated on or after this day, YYYY-MM-DD (concepts and personas have no date). */
  since?: string;
  /**
   * Rank every match `total` counts, so that paging reaches it: hybrid mode then lists the keyword
   * matches that did not enter the fusion (words that hardly count here, or ranked below its depth)
   * after the fused ones, by keyword rank and with score 0. The API's pages do; chat's few passages not.
   */
  everyMatch?: boolean;
  agent: boolean;
  /** The site's origin: hits' page_url are absolute with it. */
  origin?: string;
}

export interface SearchHit {
  type: ItemType;
  id: string;
  title: string;
  url: string;
  api_url: string;
  /** The human page, absolute when the search was given the site's origin: what to cite. */
  page_url: string;
  /** The language of the passage the snippet shows (an essay in several: the version that matched; its links lead there). */
  lang: TextLang;
  date: string | null;
  /** A passage with the matched words in <mark>…</mark>; the rest HTML-escaped. */
  snippet: string;
  score: number;
  draft: boolean;
}

export interface SearchResult {
  query: string;
  mode: 'hybrid' | 'keyword';
  /** Items that match by words, plus those found by meaning alone among the vector candidates. */
  total: number;
  /** False when the vector side stopped at its candidate limit: more items may match by meaning. */
  total_exact: boolean;
  /** The embedder that ranked by meaning (hybrid mode), or null (keyword mode, or nothing to embed). */
  embedder: { name: string; model: string; dimension: number } | null;
  hits: SearchHit[];
}

export interface RelatedResult {
  query: string;
  mode: 'related';
  total: number;
  item: { type: ItemType; id: string; title: string; url: string; page_url: string };
  hits: SearchHit[];
}

interface Entry {
  key: string;
  doc: SearchDocument;
  /** The item's document ref in the keyword index (its first vector row), or -1 for a live item. */
  ref: number;
  /** One vector per language version, the item's own language first. */
  vectors: Float32Array[];
}

interface Scored {
  entry: Entry;
  score: number;
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** Whether a document has a text in this language (tags are not counted: they are English words). */
/** The document with only its texts in one language (an essay's version in it). */
function inOneLanguage(doc: SearchDocument, lang: TextLang): SearchDocument {
  const only = (parts: SearchDocument['fields']['title']) => parts.filter((p) => p.lang === lang);
  return { ...doc, fields: { title: only(doc.fields.title), tags: doc.fields.tags, summary: only(doc.fields.summary), body: only(doc.fields.body) } };
}

function inLanguage(doc: SearchDocument, lang: TextLang): boolean {
  return doc.fields.title.some((t) => t.lang === lang) || doc.fields.summary.some((t) => t.lang === lang) || doc.fields.body.some((t) => t.lang === lang);
}

/**
 * How hybrid search weighs its evidence. Chosen on the "tune" half of test/search/questions.json and
 * checked on its held-out half and on test/search/queries.json (docs/decisions/0047-search-questions-offline.md has the measurements).
 */
export interface HybridTuning {
  /** Weights of the keyword and vector rankings in the fusion: Σ weight / (rrfK + rank). */
  keywordWeight: number;
  vectorWeight: number;
  rrfK: number;
  /** A translated term's boost is its probability times this (0: no translation; see translate.ts). */
  translationWeight: number;
}

/**
 * The vectors lead: on questions in other words than the content's, or in the other language, the
 * keyword ranking is mostly about the query's generic words, while near-exact queries find their item at
 * the top of both rankings anyway. A small k lets a clear first place in either ranking count.
 */
export const DEFAULT_HYBRID_TUNING: HybridTuning = { keywordWeight: 0.5, vectorWeight: 1, rrfK: 5, translationWeight: 1 };

export class SearchService {
  readonly manifest: IndexManifest;
  readonly embedder: Embedder;
  private readonly index: LoadedIndex;
  /** The index this service serves (a reload reuses its base). */
  get loaded(): LoadedIndex {
    return this.index;
  }
  /** The item of each vector row (an item with two language versions has two rows). */
  private readonly rows: (Entry | null)[];
  /** Rows beyond one per item: how far a top-k over rows must look to yield k distinct items. */
  private readonly extraRows: number;
  private readonly byKey = new Map<string, Entry>();
  /** Links both ways between items (built and live), for related items. */
  private readonly links = new Map<string, Set<string>>();
  private readonly live: LiveIndex;
  private readonly queryVectors = new Map<string, Float32Array>();
  private readonly vocabulary: Vocabulary;
  private readonly scorer: KeywordScorer;

  private readonly tuning: HybridTuning;
  /** The built items' tags (hasTag), gathered at the first question. */
  private tags: Set<string> | undefined;

  constructor(snapshot: Snapshot, index: LoadedIndex, tuning: Partial<HybridTuning> = {}) {
    this.tuning = { ...DEFAULT_HYBRID_TUNING, ...tuning };
    this.index = index;
    this.manifest = index.manifest;
    this.embedder = index.embedder;
    const docs = new Map(documentsFromSnapshot(snapshot).map((d) => [docKey(d.type, d.id), d]));
    // Base items that were deleted or changed since the full build: the delta holds their current form.
    const tombstones = index.delta?.removed ?? new Set<string>();
    for (const key of tombstones) docs.delete(key);
    const dim = index.manifest.embedder.dimension;
    this.rows = index.ids.map((ref, row) => {
      const key = docKey(ref.type, ref.id);
      const vector = index.vectors.subarray(row * dim, (row + 1) * dim);
      const known = this.byKey.get(key);
      if (known) {
        known.vectors.push(vector);
        return known;
      }
      const doc = docs.get(key);
      if (!doc) return null; // the snapshot moved on; the server rebuilds the index when it notices
      const entry: Entry = { key, doc, ref: row, vectors: [vector] };
      this.byKey.set(key, entry);
      return entry;
    });
    this.extraRows = index.ids.length - (index.manifest.base_items ?? index.manifest.items);
    for (const e of this.byKey.values()) this.link(e.key, e.doc.links);
    const scorer = (this.scorer = index.postings);
    this.live = new LiveIndex(
      {
        has: (term) => scorer.has(term),
        fieldPostings: (term) => scorer.fieldPostings(term),
        languages: (term) => {
          const langs = new Set<TextLang>();
          for (const ref of scorer.documents(term)) {
            const doc = this.rows[ref]?.doc;
            if (doc) for (const l of documentLanguages(doc)) langs.add(l);
          }
          return langs;
        },
      },
      index.manifest.keyword,
    );
    const built = indexVocabulary(index.keyword, (term) => scorer.has(term));
    // New and changed items since the full build join like published posts, with their stored vectors.
    for (const d of index.delta?.documents ?? []) {
      this.live.add(d.doc, d.vectors);
      this.link(docKey(d.doc.type, d.doc.id), d.doc.links);
    }
    this.vocabulary = {
      has: (t) => built.has(t) || this.live.hasTerm(t),
      near: (t, edits) => [...new Set([...built.near(t, edits), ...this.live.near(t, edits)])],
      startingWith: (p) => [...new Set([...built.startingWith(p), ...this.live.startingWith(p)])],
    };
  }

  /** Changes whenever the live index does: part of any cache key over results. */
  get version(): number {
    return this.live.version;
  }

  private link(key: string, targets: readonly string[]): void {
    for (const t of targets) {
      if (t === key) continue;
      let a = this.links.get(key);
      if (!a) this.links.set(key, (a = new Set()));
      a.add(t);
      let b = this.links.get(t);
      if (!b) this.links.set(t, (b = new Set()));
      b.add(key);
    }
  }

  private entry(key: string): Entry | undefined {
    const built = this.byKey.get(key);
    if (built) return built;
    const live = this.live.get(key);
    return live && this.liveEntry(live);
  }

  private liveEntry(le: LiveEntry): Entry {
    return { key: le.key, doc: le.doc, ref: -1, vectors: le.vectors };
  }

  /** The query's index terms an item contains: what its snippet marks. */
  private matchedTerms(e: Entry, clauses: readonly Clause[]): string[] {
    return clauses.filter((c) => (e.ref >= 0 ? this.scorer.contains(c.term, e.ref) : this.live.contains(e.key, c.term))).map((c) => c.term);
  }

  has(type: ItemType, id: string): boolean {
    return this.entry(docKey(type, id)) !== undefined;
  }

  /**
   * Adds or replaces an item between builds (a post when it is published or edited). Its words are
   * searchable before this returns its promise, so the next search finds it even while a transformer
   * model is still embedding it; its vector joins when the embedder is done.
   */
  async addDocument(doc: SearchDocument): Promise<void> {
    const key = docKey(doc.type, doc.id);
    this.removeDocument(doc.type, doc.id);
    const entry = this.live.add(doc, []);
    this.link(key, doc.links);
    const versions = languageVersions(doc);
    const matrix = await this.embedder.embedDocuments(versions);
    const dim = this.manifest.embedder.dimension;
    this.live.setVectors(entry, versions.map((_, i) => matrix.subarray(i * dim, (i + 1) * dim)));
  }

  /** The items added since the build (to carry over into the service of a new build). */
  liveDocuments(): SearchDocument[] {
    return [...this.live.all()].map((e) => e.doc);
  }

  /** Removes a live item (a post unpublished or deleted). Items of the built index stay until the next build. */
  removeDocument(type: ItemType, id: string): boolean {
    const key = docKey(type, id);
    const removed = this.live.get(key);
    if (!removed) return false;
    for (const t of removed.doc.links) {
      this.links.get(key)?.delete(t);
      this.links.get(t)?.delete(key);
    }
    return this.live.remove(key);
  }

  private async queryVector(q: string, clauses: readonly Clause[]): Promise<Float32Array> {
    let v = this.queryVectors.get(q);
    if (!v) {
      v = normalise(await this.embedder.embedQuery(q, new Map(clauses.map((c) => [c.term, c.boost]))));
      if (this.queryVectors.size >= QUERY_VECTOR_CACHE) this.queryVectors.delete(this.queryVectors.keys().next().value!);
      this.queryVectors.set(q, v);
    }
    return v;
  }

  /** The k items nearest to v (an item's score is its best language version's). */
  private vectorNeighbours(v: Float32Array, k: number, min: number, accept: (e: Entry) => boolean): { entry: Entry; score: number }[] {
    const dim = this.manifest.embedder.dimension;
    const seen = new Set<Entry>();
    const out: { entry: Entry; score: number }[] = [];
    const rowHits = nearest(this.index.vectors, dim, v, k + Math.min(this.extraRows, k), {
      min,
      accept: (row) => {
        const e = this.rows[row];
        return e !== null && accept(e);
      },
    });
    for (const h of rowHits) {
      const e = this.rows[h.row]!;
      if (seen.has(e)) continue;
      seen.add(e);
      out.push({ entry: e, score: h.score });
    }
    if (this.live.size > 0) {
      for (const h of this.live.nearest(v, k, min, (le) => accept(this.liveEntry(le)))) {
        out.push({ entry: this.entry(h.entry.key)!, score: h.score });
      }
      out.sort((a, b) => b.score - a.score);
    }
    return out.slice(0, k);
  }

  /** Best similarity between any language versions of two items. */
  private similarity(a: Entry, b: Entry): number {
    let best = -Infinity;
    for (const x of a.vectors) for (const y of b.vectors) if (x.length === y.length) best = Math.max(best, dot(x, 0, y, 0, x.length));
    return best === -Infinity ? 0 : best;
  }

  private hit(s: Scored, clauses: readonly Clause[], agent: boolean, origin = '', reader?: TextLang): SearchHit {
    const d = s.entry.doc;
    const kind = KIND_OF_TYPE[d.type];
    const segment = d.slug ?? d.id;
    // The snippet shows the passage that matched best (the query's own words before their translations);
    // the hit's language and links follow it, so a Slovenian passage of an essay links its Slovenian page.
    // A reader's language, when given, picks an essay's version in it instead (its title too).
    const own = new Set(clauses.filter((c) => !c.translated).map((c) => c.term));
    const version = reader !== undefined && d.type === 'essay' ? d.fields.title.find((p) => p.lang === reader) : undefined;
    const { snippet, lang } = version ? snippetOf(inOneLanguage(d, version.lang), new Set()) : snippetOf(d, new Set(this.matchedTerms(s.entry, clauses)), own);
    const primary = d.fields.title[0]?.lang ?? d.fields.summary[0]?.lang ?? 'en';
    const links =
      d.type === 'essay' && lang !== primary
        ? translationLinks(kind, segment, lang, agent, origin)
        : { url: itemUrl(kind, segment, agent), api_url: apiUrl(kind, segment), page_url: pageUrl(kind, segment, origin) };
    return {
      type: d.type,
      id: d.id,
      title: version?.text ?? d.title,
      ...links,
      lang,
      date: d.date,
      snippet,
      score: round(s.score),
      draft: d.draft,
    };
  }

  async search(p: SearchParams): Promise<SearchResult> {
    const mode = p.hybrid ? 'hybrid' : 'keyword';
    const words = analyseQuery(p.q);
    if (words.length === 0) return { query: p.q, mode, total: 0, total_exact: true, embedder: null, hits: [] };
    const types = p.types && p.types.length ? new Set(p.types) : null;
    const { lang, tag, since } = p;
    const accept = (e: Entry) =>
      (types === null || types.has(e.doc.type)) &&
      (p.draft || !e.doc.draft) &&
      (lang === undefined || inLanguage(e.doc, lang)) &&
      (tag === undefined || e.doc.tags.includes(tag)) &&
      (since === undefined || (e.doc.date !== null && e.doc.date >= since));
    const offset = p.offset ?? 0;
    const planned = planQuery(words, this.vocabulary);
    // Hybrid search reads the question more freely than keyword search: its words also stand for their
    // translations. Keyword search matches what was typed.
    const clauses = mode === 'hybrid' ? this.expandClauses(p.q, words, planned) : planned;

    // In keyword mode the draft multiplier applies to the score that ranks, before the top is cut; in
    // hybrid mode to the fused score below.
    const draftWeight = mode === 'keyword' ? DRAFT_SCORE_MULTIPLIER : 1;
    // A later page needs the keyword ranking that deep (never deeper than there are items to rank).
    const depth = Math.min(mode === 'hybrid' ? Math.max(FUSION_DEPTH, offset + p.limit) : offset + p.limit, this.rows.length + this.live.size);
    let { keyword, total } = this.keywordRanking(clauses, depth, accept, draftWeight);
    const page = (list: Scored[]) => list.slice(offset, offset + p.limit).map((s) => this.hit(s, clauses, p.agent, p.origin));
    if (mode === 'keyword') return { query: p.q, mode, total, total_exact: true, embedder: null, hits: page(keyword) };
    // The fusion sees the first FUSION_DEPTH whatever the page, so every page cuts the same ranking.
    const matches = keyword;
    keyword = keyword.slice(0, FUSION_DEPTH);

    const qv = await this.queryVector(boundQuery(p.q), clauses);
    const t = this.tuning;
    const vector = qv.some((x) => x !== 0) ? this.vectorNeighbours(qv, VECTOR_CANDIDATES, this.embedder.minSimilarity, accept) : [];
    // Fusion sees ranks only, so a match on words that carry next to no weight in this query would get
    // the same say as a real one at the same rank; such matches join the fusion only through the vectors.
    const floor = keyword.length ? keyword[0].score * FUSION_MIN_SHARE : 0;
    keyword = keyword.filter((s) => s.score >= floor);
    const fused = reciprocalRankFusion([keyword.map((s) => s.entry.key), vector.map((s) => s.entry.key)], t.rrfK, [t.keywordWeight, t.vectorWeight]);
    const keywordRank = new Map(keyword.map((s, i) => [s.entry.key, i]));
    const ranked: Scored[] = keyword.map((s) => ({ entry: s.entry, score: fused.get(s.entry.key) ?? 0 }));
    for (const s of vector) {
      if (keywordRank.has(s.entry.key)) continue;
      ranked.push({ entry: s.entry, score: fused.get(s.entry.key) ?? 0 });
      // Found by meaning only, or by words too but ranked below the fusion depth (then already counted).
      if (!this.matchedTerms(s.entry, clauses).length) total++;
    }
    for (const s of ranked) if (s.entry.doc.draft) s.score *= DRAFT_SCORE_MULTIPLIER;
    // Equal fused scores (rank 2 + rank 5 against rank 5 + rank 2) go to the better keyword rank: exact
    // words are the stronger evidence.
    ranked.sort(
      (a, b) =>
        b.score - a.score ||
        (keywordRank.get(a.entry.key) ?? Infinity) - (keywordRank.get(b.entry.key) ?? Infinity) ||
        (a.entry.key < b.entry.key ? -1 : 1),
    );
    if (p.everyMatch) {
      const listed = new Set(ranked.map((s) => s.entry.key));
      for (const s of matches) if (!listed.has(s.entry.key)) ranked.push({ entry: s.entry, score: 0 });
    }
    const { name, model, dimension } = this.manifest.embedder;
    return {
      query: p.q,
      mode,
      total,
      total_exact: vector.length < VECTOR_CANDIDATES,
      embedder: qv.some((x) => x !== 0) ? { name, model, dimension } : null,
      hits: page(ranked),
    };
  }

  /** Whether any item (a draft concept too) carries this tag. */
  hasTag(tag: string): boolean {
    if (!this.tags) {
      this.tags = new Set();
      for (const e of this.byKey.values()) for (const t of e.doc.tags) this.tags.add(t);
    }
    if (this.tags.has(tag)) return true;
    for (const e of this.live.all()) if (e.doc.tags.includes(tag)) return true;
    return false;
  }

  /** The keyword ranking (built and live items) of clauses, its best `depth`, and how many matched. */
  private keywordRanking(clauses: readonly Clause[], depth: number, accept: (e: Entry) => boolean, draftWeight: number): { keyword: Scored[]; total: number } {
    const built = this.scorer.search(clauses, depth, (row) => {
      const e = this.rows[row];
      return e === null || !accept(e) ? 0 : e.doc.draft ? draftWeight : 1;
    });
    let keyword: Scored[] = built.top.map((h) => ({ entry: this.rows[h.row]!, score: h.score }));
    let total = built.total;
    if (this.live.size > 0) {
      const live = this.live.search(clauses, (le) => accept(this.liveEntry(le)));
      total += live.length;
      keyword.push(...live.map((m) => ({ entry: this.liveEntry(m.entry), score: m.score })));
      keyword.sort((a, b) => b.score - a.score || (a.entry.key < b.entry.key ? -1 : 1));
      keyword = keyword.slice(0, depth);
    }
    return { keyword, total };
  }

  /** The query's clauses and the likely translations of its words into the other language (translate.ts). */
  private expandClauses(q: string, words: readonly QueryWord[], clauses: Clause[]): Clause[] {
    const lexicon = this.index.lexicon;
    const weight = this.tuning.translationWeight;
    if (!lexicon || weight <= 0) return clauses;
    const boosts = new Map(clauses.map((c) => [c.term, c.boost]));
    const langs = queryLanguages(wordsOf(boundQuery(q)));
    for (const w of words) {
      for (const lang of langs) {
        const term = termOf(w.word, lang);
        if (term === null) continue;
        for (const [t, probability] of lexicon[lang].get(term) ?? []) {
          if (this.vocabulary.has(t)) boosts.set(t, Math.max(boosts.get(t) ?? 0, probability * weight));
        }
      }
    }
    const own = new Set(clauses.map((c) => c.term));
    return [...boosts].map(([term, boost]) => (own.has(term) ? { term, boost } : { term, boost, translated: true }));
  }

  /**
   * How much of a question items answer by its words, each from 0 to 1 (chat cites only passages above a
   * floor: api/chat/retrieve.ts). A word weighs its idf here, and a word the index has never seen weighs
   * the most. An item's score is the share of the question's weight it contains, each word by its own
   * term (1), a typo's or prefix's (their boosts) or a translation (its probability), times the square of
   * the share the index knows at all: a question mostly in words this base never uses ("sourdough",
   * "tyre") scores low on every item, however well its one common word ("good", "fix") matches.
   */
  relevance(q: string, items: readonly { type: ItemType; id: string }[]): number[] {
    const words = analyseQuery(q);
    if (words.length === 0) return items.map(() => 0);
    const n = this.byKey.size + this.live.size;
    const idf = (term: string) => {
      // Refs ascend, with a repeat per field: the distinct ones are the documents.
      const docs = this.scorer.documents(term);
      let df = 0;
      for (let i = 0; i < docs.length; i++) if (i === 0 || docs[i] !== docs[i - 1]) df++;
      return Math.log(1 + n / Math.max(1, df));
    };
    const unknown = Math.log(1 + n);
    const langs = queryLanguages(wordsOf(boundQuery(q)));
    const lexicon = this.index.lexicon;
    const parts = words.map((w) => {
      const exact = w.terms.filter((t) => this.vocabulary.has(t));
      const terms = new Map(planQuery([w], this.vocabulary).map((c) => [c.term, Math.min(1, c.boost)]));
      if (lexicon && this.tuning.translationWeight > 0) {
        for (const lang of langs) {
          const term = termOf(w.word, lang);
          for (const [t, p] of (term !== null && lexicon[lang].get(term)) || []) if (this.vocabulary.has(t)) terms.set(t, Math.max(terms.get(t) ?? 0, p));
        }
      }
      return { weight: exact.length ? Math.max(...exact.map(idf)) : unknown, known: exact.length > 0, terms };
    });
    const total = parts.reduce((a, p) => a + p.weight, 0);
    const known = parts.reduce((a, p) => a + (p.known ? p.weight : 0), 0) / total;
    return items.map(({ type, id }) => {
      const e = this.entry(docKey(type, id));
      if (!e) return 0;
      const has = (t: string) => (e.ref >= 0 ? this.scorer.contains(t, e.ref) : this.live.contains(e.key, t));
      let covered = 0;
      for (const p of parts) {
        let best = 0;
        for (const [t, b] of p.terms) if (b > best && has(t)) best = b;
        covered += p.weight * best;
      }
      return round((covered / total) * known * known);
    });
  }

  /** The k items most related to one item (never itself, never a draft), or null when it does not exist. */
  /** `reader`: the language of the page the items are listed on (an essay then comes in its version in it). */
  related(type: ItemType, id: string, k: number, agent = false, origin = '', reader?: TextLang): RelatedResult | null {
    const item = this.entry(docKey(type, id));
    if (!item) return null;
    const accept = (e: Entry) => e.key !== item.key && !e.doc.draft;
    const candidates = new Map<string, Entry>();
    const similarity = new Map<string, number>();
    for (const v of item.vectors) {
      for (const n of this.vectorNeighbours(v, RELATED_CANDIDATES, -Infinity, accept)) {
        candidates.set(n.entry.key, n.entry);
        similarity.set(n.entry.key, Math.max(n.score, similarity.get(n.entry.key) ?? -Infinity));
      }
    }
    // Linked items and items that share a link target compete even when their texts differ.
    const itemLinks = this.links.get(item.key) ?? new Set<string>();
    for (const l of itemLinks) {
      const linked = this.entry(l);
      if (linked && accept(linked)) candidates.set(l, linked);
      const around = this.links.get(l);
      if (!around || around.size > MAX_CO_CITATION_FANOUT) continue;
      for (const m of around) {
        const e = this.entry(m);
        if (e && accept(e)) candidates.set(m, e);
      }
    }
    const me = { doc: item.doc, key: item.key, links: itemLinks };
    const scored: Scored[] = [...candidates.values()].map((e) => {
      const sim = similarity.get(e.key) ?? this.similarity(item, e);
      return { entry: e, score: relatedScore(me, { doc: e.doc, key: e.key, links: this.links.get(e.key) ?? new Set() }, sim) };
    });
    scored.sort((a, b) => b.score - a.score || (a.entry.key < b.entry.key ? -1 : 1));
    const kind = KIND_OF_TYPE[type];
    return {
      query: item.doc.title,
      mode: 'related',
      total: Math.min(k, scored.length),
      item: { type, id, title: item.doc.title, url: itemUrl(kind, item.doc.slug ?? id, agent), page_url: pageUrl(kind, item.doc.slug ?? id, origin) },
      hits: scored.slice(0, k).map((s) => this.hit(s, [], agent, origin, reader)),
    };
  }
}
