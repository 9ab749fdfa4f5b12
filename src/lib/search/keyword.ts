// The keyword index: lunr's (BM25 per field, field boosts) over terms our own analysers produce, so every
// document is stemmed in its language, with idf taken per language. It is computed here and written in
// lunr's serialised form, which lunr.Index.load reads (load.ts); ./postings.ts scores queries over it and
// ./query-plan.ts turns query words into its terms through lunr's token set.
import lunr from 'lunr';
import { analyse, type TextLang } from './analyse.ts';
import { FIELDS, type Field, type SearchDocument } from './documents.ts';
import { KeywordScorer } from './postings.ts';

/** What a match in each field is worth relative to the body (test/search/queries.json scores within noise from 4/3/2 to 8/5/3). */
export const FIELD_BOOSTS: Record<Field, number> = { title: 6, tags: 4, summary: 2, body: 1 };

/** Corpus figures lunr uses in BM25 but does not serialise; the live index scores with them. */
export interface KeywordStats {
  documentCount: number;
  /** Documents with text in each language (a bilingual essay counts in both). */
  documentsByLanguage: Record<TextLang, number>;
  averageFieldLength: Record<Field, number>;
}

/** Terms of each field, and the languages each term was produced in. */
export function fieldTerms(doc: SearchDocument, termLanguages?: Map<string, Set<TextLang>>): Record<Field, string[]> {
  const out = {} as Record<Field, string[]>;
  for (const f of FIELDS) {
    out[f] = [];
    for (const p of doc.fields[f]) {
      for (const t of analyse(p.text, p.lang)) {
        out[f].push(t);
        if (termLanguages) {
          let set = termLanguages.get(t);
          if (!set) termLanguages.set(t, (set = new Set()));
          set.add(p.lang);
        }
      }
    }
  }
  return out;
}

export function documentLanguages(doc: SearchDocument): Set<TextLang> {
  return new Set(FIELDS.flatMap((f) => (f === 'tags' ? [] : doc.fields[f].map((p) => p.lang))));
}

/**
 * The document count a term's idf is taken over: the documents of the languages it occurs in. In a corpus
 * that is mostly English, "umetna inteligenca" is in nearly every Slovenian document, as "AI" is in nearly
 * every English one, and should weigh as little; over all documents it would look rare.
 */
export function idfDocumentCount(stats: KeywordStats, languages: ReadonlySet<TextLang> | undefined): number {
  if (!languages || languages.size !== 1) return stats.documentCount;
  const [lang] = languages;
  return Math.max(1, stats.documentsByLanguage[lang] ?? stats.documentCount);
}

/** lunr's BM25 idf (lunr.idf) for a term in `df` field postings among `n` documents. */
export function bm25Idf(df: number, n: number): number {
  return Math.log(1 + Math.abs((n - df + 0.5) / (df + 0.5)));
}

/** lunr's BM25 parameters (lunr.Builder's defaults), for the built index and the live one (live.ts). */
export const K1 = 1.2;
export const B = 0.75;

/** A growing Int32 array: the builder's per-posting columns, without a JS array's 8 bytes and more a number. */
class Int32Column {
  data = new Int32Array(1 << 16);
  length = 0;
  push(x: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = x;
  }
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/** JSON texts joined by commas, a thousand to a piece (one piece per text would be a write call each). */
function* commaJoined(texts: Iterable<string>): Generator<string> {
  let batch: string[] = [];
  let first = true;
  for (const t of texts) {
    batch.push(t);
    if (batch.length === 1000) {
      yield (first ? '' : ',') + batch.join(',');
      first = false;
      batch = [];
    }
  }
  if (batch.length) yield (first ? '' : ',') + batch.join(',');
}

/** A built keyword index: lunr's serialised form to write, and what a loaded index keeps of it. */
export interface KeywordIndex {
  stats: KeywordStats;
  /** The index exactly as lunr.Index#toJSON serialises it (lunr.Index.load reads it), in pieces (json-file.ts writeJsonPieces). */
  serialised(): Generator<string>;
  /** What a loaded index keeps (load.ts, takePostings): lunr's token set (its postings emptied) and the scorer. */
  loaded(refCount: number): { keyword: lunr.Index; postings: KeywordScorer };
}

/**
 * Builds the index; each document's ref is the number of its first row in the vector file. The result is
 * lunr's own index, byte for byte (test/search/keyword-build.test.ts compares it with lunr.Builder's):
 * the same term numbers, BM25 weights (rounded to 3 decimals, as lunr stores them) and postings. It is
 * computed here in typed arrays rather than by lunr.Builder, whose nested objects per term, field and
 * document took ~1 GB and ~8 s at 10k videos (and most of build-index's 7.5 GB peak at 100k).
 */
export function buildKeywordIndex(docs: readonly SearchDocument[], refs: readonly number[]): KeywordIndex {
  const counts = countTerms(docs);
  const weight = bm25Weights(counts);
  return keywordIndex(counts, weight, refs, postingsByTerm(counts, weight, refs));
}

/** The documents' terms, counted field by field in typed arrays: what lunr's index is computed from. */
interface TermCounts {
  termIds: Map<string, number>;
  terms: string[];
  /** Field postings of each term (lunr's document frequency: a document counts once per field). */
  df: Int32Array;
  /** Per field of each document (a field ref, documents in order, FIELDS in order): its terms and their frequencies, from refStart[fr] to refStart[fr + 1]. */
  termOf: Int32Array;
  tfOf: Int32Array;
  refStart: Int32Array;
  fieldLength: Int32Array;
  stats: KeywordStats;
  termLanguages: Map<string, Set<TextLang>>;
}

/** Every document's terms, each numbered in order of first occurrence (lunr's term numbers), with their frequencies per field. */
function countTerms(docs: readonly SearchDocument[]): TermCounts {
  const termIds = new Map<string, number>();
  const terms: string[] = [];
  const df = new Int32Column();
  const entryTerm = new Int32Column();
  const entryTf = new Int32Column();
  const refStart = new Int32Array(docs.length * FIELDS.length + 1);
  const fieldLength = new Int32Array(docs.length * FIELDS.length);
  const lengths = Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<Field, number>;
  const documentsByLanguage: Record<TextLang, number> = { en: 0, sl: 0 };
  const termLanguages = new Map<string, Set<TextLang>>();
  const tf = new Map<number, number>();
  docs.forEach((doc, row) => {
    const fieldTermsOf = fieldTerms(doc, termLanguages);
    for (const l of documentLanguages(doc)) documentsByLanguage[l]++;
    FIELDS.forEach((f, fi) => {
      const fr = row * FIELDS.length + fi;
      const list = fieldTermsOf[f];
      lengths[f] += list.length;
      fieldLength[fr] = list.length;
      tf.clear();
      for (const raw of list) {
        // lunr's tokenizer lowercases what it is given.
        const t = raw.toLowerCase();
        let id = termIds.get(t);
        if (id === undefined) {
          id = terms.length;
          termIds.set(t, id);
          terms.push(t);
          df.push(0);
        }
        tf.set(id, (tf.get(id) ?? 0) + 1);
      }
      // lunr.Vector keeps its elements by term number.
      const ids = [...tf.keys()].sort((a, b) => a - b);
      for (const id of ids) {
        entryTerm.push(id);
        entryTf.push(tf.get(id)!);
        df.data[id]++;
      }
      refStart[fr + 1] = entryTerm.length;
    });
  });
  const n = Math.max(1, docs.length);
  const stats: KeywordStats = {
    documentCount: docs.length,
    documentsByLanguage,
    averageFieldLength: Object.fromEntries(FIELDS.map((f) => [f, lengths[f] / n])) as Record<Field, number>,
  };
  return { termIds, terms, df: df.data, termOf: entryTerm.view(), tfOf: entryTf.view(), refStart, fieldLength, stats, termLanguages };
}

/** Each term's BM25 weight in each field of each document, as lunr computes and stores it (rounded to 3 decimals), in the order of termOf. */
function bm25Weights({ terms, df, termOf, tfOf, refStart, fieldLength, stats, termLanguages }: TermCounts): Float64Array {
  // lunr's average field length is the same sum over the same count (every document has every field).
  const average = FIELDS.map((f) => stats.averageFieldLength[f]);
  const boosts = FIELDS.map((f) => FIELD_BOOSTS[f] || 1);
  // idf per term, over the documents of the languages it occurs in (idfDocumentCount).
  const idf = new Float64Array(terms.length);
  for (let id = 0; id < terms.length; id++) idf[id] = bm25Idf(df[id], idfDocumentCount(stats, termLanguages.get(terms[id])));
  const weight = new Float64Array(termOf.length);
  for (let fr = 0; fr < fieldLength.length; fr++) {
    const fi = fr % FIELDS.length;
    const norm = K1 * (1 - B + B * (fieldLength[fr] / average[fi]));
    for (let e = refStart[fr]; e < refStart[fr + 1]; e++) {
      const f = tfOf[e];
      // lunr's expression, in lunr's order of operations, so the doubles are the same.
      let score = (idf[termOf[e]] * ((K1 + 1) * f)) / (norm + f);
      score *= boosts[fi];
      weight[e] = Math.round(score * 1000) / 1000;
    }
  }
  return weight;
}

/** The postings of each term (from start[t] to start[t + 1]), in field-ref order (documents ascending, then fields): the scorer's layout. */
interface Postings {
  start: Int32Array;
  postingRef: Int32Array;
  postingField: Uint8Array;
  postingWeight: Float32Array;
}

/** The postings by term, each document's ref from `refs`. */
function postingsByTerm({ terms, termOf, refStart, fieldLength }: TermCounts, weight: Float64Array, refs: readonly number[]): Postings {
  const start = new Int32Array(terms.length + 1);
  for (let e = 0; e < termOf.length; e++) start[termOf[e] + 1]++;
  for (let t = 0; t < terms.length; t++) start[t + 1] += start[t];
  const postingRef = new Int32Array(termOf.length);
  const postingField = new Uint8Array(termOf.length);
  const postingWeight = new Float32Array(termOf.length);
  const next = Int32Array.from(start);
  for (let fr = 0; fr < fieldLength.length; fr++) {
    const ref = refs[Math.floor(fr / FIELDS.length)];
    for (let e = refStart[fr]; e < refStart[fr + 1]; e++) {
      const at = next[termOf[e]]++;
      postingRef[at] = ref;
      postingField[at] = fr % FIELDS.length;
      postingWeight[at] = weight[e];
    }
  }
  return { start, postingRef, postingField, postingWeight };
}

/** The built index: lunr's serialised form, written in pieces, and what a loaded index keeps. */
function keywordIndex(
  { termIds, terms, termOf, refStart, fieldLength, stats }: TermCounts,
  weight: Float64Array,
  refs: readonly number[],
  { start, postingRef, postingField, postingWeight }: Postings,
): KeywordIndex {
  let sortedTerms: string[] | undefined;
  /** The terms in lunr's order of its serialised inverted index and of its token set. */
  const sorted = () => (sortedTerms ??= [...terms].sort());

  return {
    stats,
    *serialised() {
      yield `{"version":${JSON.stringify(lunr.version)},"fields":${JSON.stringify(FIELDS)},"fieldVectors":[`;
      yield* commaJoined(
        (function* () {
          for (let fr = 0; fr < fieldLength.length; fr++) {
            const els: number[] = [];
            for (let e = refStart[fr]; e < refStart[fr + 1]; e++) els.push(termOf[e], weight[e]);
            yield `[${JSON.stringify(`${FIELDS[fr % FIELDS.length]}/${refs[Math.floor(fr / FIELDS.length)]}`)},${JSON.stringify(els)}]`;
          }
        })(),
      );
      yield '],"invertedIndex":[';
      const byField: string[][] = FIELDS.map(() => []);
      yield* commaJoined(
        (function* () {
          for (const term of sorted()) {
            const id = termIds.get(term)!;
            for (const list of byField) list.length = 0;
            // A document with the term in two fields is in both fields' lists; refs ascend within each.
            for (let p = start[id]; p < start[id + 1]; p++) byField[postingField[p]].push(`${JSON.stringify(String(postingRef[p]))}:{}`);
            yield `[${JSON.stringify(term)},{"_index":${id}${FIELDS.map((f, fi) => `,${JSON.stringify(f)}:{${byField[fi].join(',')}}`).join('')}}]`;
          }
        })(),
      );
      yield '],"pipeline":[]}';
    },
    loaded(refCount) {
      const keyword = new lunr.Index({
        invertedIndex: {},
        fieldVectors: {},
        // lunr.TokenSet.fromArray (missing from lunr's type definitions), as lunr.Builder#build makes it.
        tokenSet: (lunr.TokenSet as unknown as { fromArray(terms: string[]): lunr.TokenSet }).fromArray(sorted()),
        fields: [...FIELDS],
        pipeline: new lunr.Pipeline(),
      } as unknown as lunr.Index.Attributes);
      return { keyword, postings: KeywordScorer.fromPostings({ termIds, start, docs: postingRef, weights: postingWeight }, refCount) };
    },
  };
}
