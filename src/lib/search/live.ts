// The live index: items that appear between index builds (published posts), kept in memory beside the
// built index. lunr indexes are immutable, so this is a small BM25 scorer of its own that mirrors lunr's
// formula (per-field BM25, field boosts, query-vector normalisation) with the built index's document
// frequencies and field lengths, so its scores sit on the same scale and the two lists merge by score.
// Meant for hundreds of items; the next index build absorbs them.
import { FIELDS, docKey, type Field, type SearchDocument } from './documents.ts';
import type { TextLang } from './analyse.ts';
import { B, bm25Idf, FIELD_BOOSTS, fieldTerms, idfDocumentCount, K1, type KeywordStats } from './keyword.ts';
import type { Clause } from './query-plan.ts';
import { dot, type VectorHit } from './vectors.ts';

export interface LiveEntry {
  key: string;
  doc: SearchDocument;
  tf: Record<Field, Map<string, number>>;
  length: Record<Field, number>;
  termLanguages: Map<string, Set<TextLang>>;
  /** One per language version; the first is the item's own language. */
  vectors: Float32Array[];
}

export interface LiveMatch {
  entry: LiveEntry;
  score: number;
  terms: string[];
}

/** Edit distance with an early exit once it exceeds `max`. */
export function withinEdits(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      rowMin = Math.min(rowMin, cur[j]);
    }
    if (rowMin > max) return false;
    prev = cur;
  }
  return prev[b.length] <= max;
}

/** What the live index needs to know of the built index's terms. */
export interface BuiltTerms {
  has(term: string): boolean;
  /** lunr's document frequency: the term's postings, one per field it occurs in per document. */
  fieldPostings(term: string): number;
  /** Languages of the built documents that contain the term. */
  languages(term: string): Set<TextLang>;
}

export class LiveIndex {
  private readonly entries = new Map<string, LiveEntry>();
  /** term → keys of live items that contain it. */
  private readonly postings = new Map<string, Set<string>>();
  private readonly built: BuiltTerms;
  private readonly stats: KeywordStats;
  /** Changes with every add or remove, so cached results of earlier searches are not reused. */
  version = 0;

  constructor(built: BuiltTerms, stats: KeywordStats) {
    this.built = built;
    this.stats = stats;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): LiveEntry | undefined {
    return this.entries.get(key);
  }

  all(): IterableIterator<LiveEntry> {
    return this.entries.values();
  }

  /** Adds or replaces an item. */
  add(doc: SearchDocument, vectors: Float32Array[]): LiveEntry {
    const key = docKey(doc.type, doc.id);
    this.remove(key);
    const termLanguages = new Map<string, Set<TextLang>>();
    const terms = fieldTerms(doc, termLanguages);
    const tf = {} as Record<Field, Map<string, number>>;
    const length = {} as Record<Field, number>;
    for (const f of FIELDS) {
      tf[f] = new Map();
      for (const t of terms[f]) tf[f].set(t, (tf[f].get(t) ?? 0) + 1);
      length[f] = terms[f].length;
      for (const t of tf[f].keys()) {
        let set = this.postings.get(t);
        if (!set) this.postings.set(t, (set = new Set()));
        set.add(key);
      }
    }
    const entry: LiveEntry = { key, doc, tf, length, termLanguages, vectors };
    this.entries.set(key, entry);
    this.version++;
    return entry;
  }

  /** Gives an entry its vectors once they are computed, unless it was replaced or removed meanwhile. */
  setVectors(entry: LiveEntry, vectors: Float32Array[]): void {
    if (this.entries.get(entry.key) !== entry) return;
    entry.vectors = vectors;
    this.version++;
  }

  remove(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    for (const f of FIELDS) {
      for (const t of entry.tf[f].keys()) {
        const set = this.postings.get(t);
        set?.delete(key);
        if (set?.size === 0) this.postings.delete(t);
      }
    }
    this.entries.delete(key);
    this.version++;
    return true;
  }

  contains(key: string, term: string): boolean {
    const e = this.entries.get(key);
    return !!e && FIELDS.some((f) => e.tf[f].has(term));
  }

  /** Whether a live item has the term (the query planner treats it as known, not as a typo). */
  hasTerm(term: string): boolean {
    return this.postings.has(term);
  }

  /** Documents with the term, counted per field as lunr.idf counts them, built and live together. */
  private documentFrequency(term: string): number {
    let n = this.built.fieldPostings(term);
    for (const key of this.postings.get(term) ?? []) {
      const e = this.entries.get(key)!;
      for (const f of FIELDS) if (e.tf[f].has(term)) n++;
    }
    return n;
  }

  /** The live items' share of the vocabulary (the built index has the rest). */
  near(term: string, edits: number): string[] {
    return [...this.postings.keys()].filter((t) => withinEdits(term, t, edits));
  }

  startingWith(prefix: string): string[] {
    return [...this.postings.keys()].filter((t) => t.startsWith(prefix));
  }

  search(clauses: readonly Clause[], accept: (e: LiveEntry) => boolean): LiveMatch[] {
    if (this.entries.size === 0 || clauses.length === 0) return [];
    const boosts = new Map<string, number>();
    // Like lunr, the query vector holds every clause term that exists anywhere, matched by this item or not.
    for (const c of clauses) {
      if (this.postings.has(c.term) || this.built.has(c.term)) boosts.set(c.term, (boosts.get(c.term) ?? 0) + c.boost);
    }
    let norm = 0;
    for (const b of boosts.values()) norm += b * b;
    norm = Math.sqrt(norm);
    if (norm === 0) return [];
    const idf = new Map<string, number>();
    const out: LiveMatch[] = [];
    for (const e of this.entries.values()) {
      if (!accept(e)) continue;
      let score = 0;
      const matched: string[] = [];
      for (const [term, boost] of boosts) {
        let hit = false;
        for (const f of FIELDS) {
          const tf = e.tf[f].get(term);
          if (!tf) continue;
          hit = true;
          let i = idf.get(term);
          if (i === undefined) {
            const langs = this.built.languages(term);
            for (const x of this.entries.values()) for (const l of x.termLanguages.get(term) ?? []) langs.add(l);
            const n = idfDocumentCount(this.stats, langs) + this.entries.size;
            idf.set(term, (i = bm25Idf(this.documentFrequency(term), n)));
          }
          const avg = this.stats.averageFieldLength[f] || 1;
          const w = (i * (K1 + 1) * tf) / (K1 * (1 - B + (B * e.length[f]) / avg) + tf);
          score += (boost * Math.round(w * FIELD_BOOSTS[f] * 1000)) / 1000;
        }
        if (hit) matched.push(term);
      }
      if (matched.length) out.push({ entry: e, score: score / norm, terms: matched });
    }
    return out.sort((a, b) => b.score - a.score);
  }

  nearest(query: Float32Array, k: number, min: number, accept: (e: LiveEntry) => boolean): (VectorHit & { entry: LiveEntry })[] {
    const out: (VectorHit & { entry: LiveEntry })[] = [];
    for (const e of this.entries.values()) {
      if (!accept(e)) continue;
      let score = -Infinity;
      for (const v of e.vectors) if (v.length === query.length) score = Math.max(score, dot(v, 0, query, 0, query.length));
      if (score >= min) out.push({ row: -1, score, entry: e });
    }
    return out.sort((a, b) => b.score - a.score).slice(0, k);
  }
}
