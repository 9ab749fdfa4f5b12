// The keyword index: lunr (BM25 per field, field boosts) over terms our own analysers produce, so every
// document is stemmed in its language, with idf taken per language. lunr builds and serialises it;
// ./postings.ts scores queries over it and ./query-plan.ts turns query words into its terms.
import lunr from 'lunr';
import { analyse, type TextLang } from './analyse.ts';
import { FIELDS, type Field, type SearchDocument } from './documents.ts';

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

/** Builds the index; each document's ref is the number of its first row in the vector file. */
export function buildKeywordIndex(docs: readonly SearchDocument[], refs: readonly number[]): { index: lunr.Index; stats: KeywordStats } {
  const builder = new lunr.Builder();
  // Terms arrive analysed: lunr's own pipeline (English only) must not touch them again.
  builder.pipeline.reset();
  builder.searchPipeline.reset();
  builder.metadataWhitelist = [];
  builder.ref('ref');
  for (const f of FIELDS) builder.field(f, { boost: FIELD_BOOSTS[f] });
  const lengths = Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<Field, number>;
  const documentsByLanguage: Record<TextLang, number> = { en: 0, sl: 0 };
  const termLanguages = new Map<string, Set<TextLang>>();
  docs.forEach((doc, row) => {
    const terms = fieldTerms(doc, termLanguages);
    for (const f of FIELDS) lengths[f] += terms[f].length;
    for (const l of documentLanguages(doc)) documentsByLanguage[l]++;
    // lunr's tokenizer takes an array as ready-made tokens.
    builder.add({ ref: String(refs[row]), ...terms });
  });
  const n = Math.max(1, docs.length);
  const stats: KeywordStats = {
    documentCount: docs.length,
    documentsByLanguage,
    averageFieldLength: Object.fromEntries(FIELDS.map((f) => [f, lengths[f] / n])) as Record<Field, number>,
  };
  // lunr bakes idf into the document vectors at build time through lunr.idf(posting, documentCount); for
  // the length of the build it answers with the per-language count instead (see idfDocumentCount).
  const termOfPosting = new Map<object, string>();
  for (const [term, posting] of Object.entries((builder as unknown as { invertedIndex: Record<string, object> }).invertedIndex)) termOfPosting.set(posting, term);
  const lunrWithIdf = lunr as unknown as { idf: (posting: object, documentCount: number) => number };
  const lunrIdf = lunrWithIdf.idf;
  lunrWithIdf.idf = (posting, documentCount) => {
    const term = termOfPosting.get(posting);
    return lunrIdf(posting, term === undefined ? documentCount : idfDocumentCount(stats, termLanguages.get(term)));
  };
  try {
    return { index: builder.build(), stats };
  } finally {
    lunrWithIdf.idf = lunrIdf;
  }
}
