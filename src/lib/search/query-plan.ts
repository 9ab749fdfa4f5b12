// Query planning: which index terms a query's words stand for, with what weight. Queries are built term by
// term rather than through lunr's query syntax, which would reject ordinary input such as "EU:AI" or
// "-ish"; a word the index does not know is expanded to the known terms within a typo's reach and to its
// completions.
import lunr from 'lunr';
import type { QueryWord } from './analyse.ts';

export interface Clause {
  term: string;
  boost: number;
}

/** The terms a query can meet: the built index's and the live index's. */
export interface Vocabulary {
  has(term: string): boolean;
  /** Terms within `edits` edits of `term`. */
  near(term: string, edits: number): string[];
  /** Terms that start with `prefix`. */
  startingWith(prefix: string): string[];
}

/** Boosts of the looser clauses: a typo or prefix match is evidence, but less than the word itself. */
const FUZZY_BOOST = 0.5;
const PREFIX_BOOST = 0.3;
/** A short prefix can open thousands of terms; the shortest few are the likely completions. */
const MAX_PREFIX_TERMS = 12;

/**
 * Turns analysed query words into clauses. A word with a term the index knows (in either language) is
 * matched exactly. An unknown word is taken for a typo or a word being typed: it matches terms within
 * one edit (two from eight letters) that start with the same letter, since typos rarely hit the first
 * one, the longest known term it starts with, and terms it is a prefix of.
 */
export function planQuery(words: readonly QueryWord[], vocabulary: Vocabulary): Clause[] {
  const boosts = new Map<string, number>();
  const add = (term: string, boost: number) => boosts.set(term, Math.max(boosts.get(term) ?? 0, boost));
  for (const w of words) {
    const exact = w.terms.filter((t) => vocabulary.has(t));
    if (exact.length) {
      for (const term of exact) add(term, 1);
      continue;
    }
    for (const term of w.terms) {
      // A number is exact or nothing: "1500" is not a typo of "1580".
      if (/^\d+$/.test(term)) continue;
      if (term.length >= 4) {
        for (const t of vocabulary.near(term, term.length >= 8 ? 2 : 1)) if (t[0] === term[0]) add(t, FUZZY_BOOST);
        // A typo late in a long word defeats the stemmer ("observabilty" stems to "observabilti", far from
        // "observ"): the longest known term the word starts with stands in for it.
        for (let n = term.length - 1; n >= Math.max(5, Math.ceil(term.length / 2)); n--) {
          if (vocabulary.has(term.slice(0, n))) {
            add(term.slice(0, n), FUZZY_BOOST);
            break;
          }
        }
      }
      if (term.length >= 3) {
        const completions = vocabulary.startingWith(term).sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
        for (const t of completions.slice(0, MAX_PREFIX_TERMS)) add(t, PREFIX_BOOST);
      }
    }
  }
  return [...boosts].map(([term, boost]) => ({ term, boost }));
}

// lunr has these constructors; its type definitions leave them out.
const TokenSets = lunr.TokenSet as unknown as {
  fromFuzzyString(term: string, edits: number): lunr.TokenSet;
  fromString(pattern: string): lunr.TokenSet;
};

/** The built index's vocabulary, through lunr's token set (a finite automaton, so fuzzy lookups are cheap). */
export function indexVocabulary(index: lunr.Index, has: (term: string) => boolean): Vocabulary {
  const tokenSet = (index as unknown as { tokenSet: lunr.TokenSet }).tokenSet;
  return {
    has,
    near: (term, edits) => tokenSet.intersect(TokenSets.fromFuzzyString(term, edits)).toArray(),
    startingWith: (prefix) => tokenSet.intersect(TokenSets.fromString(prefix + '*')).toArray(),
  };
}
