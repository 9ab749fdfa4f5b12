// The keyword index is built in typed arrays (src/lib/search/keyword.ts), not by lunr.Builder: what it
// writes must be lunr's own index, byte for byte, and what it hands a caller (the token set, the scorer)
// must answer as the index loaded from that file does. The reference here is lunr.Builder itself, fed as
// the index used to be built.
import lunr from 'lunr';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { documentsFromSnapshot, FIELDS, languageVersions, type SearchDocument } from '../../src/lib/search/documents.ts';
import { buildKeywordIndex, documentLanguages, fieldTerms, FIELD_BOOSTS, idfDocumentCount, type KeywordStats } from '../../src/lib/search/keyword.ts';
import { KeywordScorer, takePostings } from '../../src/lib/search/postings.ts';
import { analyseQuery, type TextLang } from '../../src/lib/search/analyse.ts';
import { indexVocabulary, planQuery } from '../../src/lib/search/query-plan.ts';
import { fixtureContent } from '../helpers/content.ts';

/** The index as lunr.Builder builds it from the same terms (with idf per language, as keyword.ts gives it). */
function lunrBuilderIndex(docs: readonly SearchDocument[], refs: readonly number[]): lunr.Index {
  const builder = new lunr.Builder();
  builder.pipeline.reset();
  builder.searchPipeline.reset();
  builder.metadataWhitelist = [];
  builder.ref('ref');
  for (const f of FIELDS) builder.field(f, { boost: FIELD_BOOSTS[f] });
  const documentsByLanguage: Record<TextLang, number> = { en: 0, sl: 0 };
  const termLanguages = new Map<string, Set<TextLang>>();
  docs.forEach((doc, row) => {
    const terms = fieldTerms(doc, termLanguages);
    for (const l of documentLanguages(doc)) documentsByLanguage[l]++;
    builder.add({ ref: String(refs[row]), ...terms });
  });
  const stats = { documentCount: docs.length, documentsByLanguage } as KeywordStats;
  const termOfPosting = new Map<object, string>();
  for (const [term, posting] of Object.entries((builder as unknown as { invertedIndex: Record<string, object> }).invertedIndex)) termOfPosting.set(posting, term);
  const withIdf = lunr as unknown as { idf: (posting: object, n: number) => number };
  const idf = withIdf.idf;
  withIdf.idf = (posting, n) => {
    const term = termOfPosting.get(posting);
    return idf(posting, term === undefined ? n : idfDocumentCount(stats, termLanguages.get(term)));
  };
  try {
    return builder.build();
  } finally {
    withIdf.idf = idf;
  }
}

const docs = documentsFromSnapshot(loadSnapshot(fixtureContent()));
const refs: number[] = [];
let rows = 0;
for (const d of docs) {
  refs.push(rows);
  rows += languageVersions(d).length;
}

describe('the keyword index build', () => {
  const built = buildKeywordIndex(docs, refs);
  const json = [...built.serialised()].join('');

  it("writes lunr.Builder's index, byte for byte, over the sample corpus", () => {
    const reference = JSON.stringify(lunrBuilderIndex(docs, refs));
    expect(json.length).toBe(reference.length);
    expect(json === reference).toBe(true);
  });

  it('writes an index lunr loads, whose own query engine finds what it found', () => {
    const parsed = JSON.parse(json) as { invertedIndex: [string, Record<string, Record<string, object> | number>][] };
    const index = lunr.Index.load(parsed);
    for (const [term, posting] of parsed.invertedIndex.filter((_, i) => i % 97 === 0)) {
      const hits = index.query((q) => q.term(term, { usePipeline: false, wildcard: lunr.Query.wildcard.NONE }));
      const refsWithTerm = new Set(FIELDS.flatMap((f) => Object.keys(posting[f] as object)));
      expect(new Set(hits.map((h) => h.ref)), term).toEqual(refsWithTerm);
    }
  });

  it('hands on a token set and a scorer that answer as the index loaded from its file does', () => {
    const mine = built.loaded(rows);
    const fromFile = lunr.Index.load(JSON.parse(json));
    const theirs = takePostings(fromFile, rows);
    const vocabulary = (i: lunr.Index, s: KeywordScorer) => indexVocabulary(i, (t) => s.has(t));
    const a = vocabulary(mine.keyword, mine.postings);
    const b = vocabulary(fromFile, theirs);
    for (const word of ['governance', 'agentic', 'podjetja', 'halucinacije', 'retreival']) {
      expect(a.near(word, 2)).toEqual(b.near(word, 2));
      expect(a.startingWith(word.slice(0, 4))).toEqual(b.startingWith(word.slice(0, 4)));
    }
    for (const query of ['shadow AI', 'governance board', 'podjetja v sloveniji', 'retrieval augmented generation', 'agents']) {
      const clauses = planQuery(analyseQuery(query), a);
      expect(clauses.length, query).toBeGreaterThan(0);
      expect(mine.postings.search(clauses, 50, () => 1), query).toEqual(theirs.search(clauses, 50, () => 1));
      for (const c of clauses) expect(mine.postings.fieldPostings(c.term)).toBe(theirs.fieldPostings(c.term));
    }
  });

  it('gives the corpus figures BM25 needs', () => {
    expect(built.stats.documentCount).toBe(docs.length);
    expect(built.stats.documentsByLanguage.en + built.stats.documentsByLanguage.sl).toBeGreaterThanOrEqual(docs.length);
    for (const f of FIELDS) expect(built.stats.averageFieldLength[f]).toBeGreaterThan(0);
  });

  it('builds an empty index for no documents', () => {
    const empty = buildKeywordIndex([], []);
    expect(JSON.parse([...empty.serialised()].join(''))).toEqual(JSON.parse(JSON.stringify(lunrBuilderIndex([], []))));
    expect(empty.loaded(0).postings.search([{ term: 'x', boost: 1 }] as never, 10, () => 1)).toEqual({ top: [], total: 0 });
  });
});
