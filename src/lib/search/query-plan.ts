// Query planning: which index terms a query's words stand for, with what weight. Queries are built term by
// term rather than through lunr's query syntax, which would reject ordinary input such as "EU:AI" or
// "-ish"; a word the index does not know is expanded to the known terms within a typo's reach and to its
// completions.
import lunr from 'lunr';
import type { QueryWord } from './analyse.ts';

export interface Clause {
  term: string;
  boost: number;
  /** A translation of the query's words (hybrid search), not a term of the words themselves. */
  translated?: boolean;
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
export const MAX_PREFIX_TERMS = 12;

// Bounds of the expansion, whatever the input: the cost of a typo lookup grows with the word's length, so
// an anonymous query must not be able to choose it. Real words are short; a 30-letter "word" is a paste or
// an attack, matched exactly or not at all.
/** Words up to this long are looked up as typos and as prefixes of longer terms. */
export const MAX_EXPANDED_LENGTH = 20;
/** At most this many unknown words of one query are expanded; the others count only when known. */
export const MAX_EXPANDED_WORDS = 8;
/** Trie nodes one lookup (a typo search or a prefix's completions) may visit before it stops. */
export const MAX_LOOKUP_VISITS = 4000;

/**
 * Turns analysed query words into clauses. A word with a term the index knows (in either language) is
 * matched exactly. An unknown word is taken for a typo or a word being typed: it matches terms within
 * one edit (two from eight letters) that start with the same letter, since typos rarely hit the first
 * one, the longest known term it starts with, and terms it is a prefix of.
 */
export function planQuery(words: readonly QueryWord[], vocabulary: Vocabulary): Clause[] {
  const boosts = new Map<string, number>();
  const add = (term: string, boost: number) => boosts.set(term, Math.max(boosts.get(term) ?? 0, boost));
  let expanded = 0;
  for (const w of words) {
    const exact = w.terms.filter((t) => vocabulary.has(t));
    if (exact.length) {
      for (const term of exact) add(term, 1);
      continue;
    }
    let counted = false;
    for (const term of w.terms) {
      // A number is exact or nothing: "1500" is not a typo of "1580".
      if (/^\d+$/.test(term)) continue;
      if (term.length > MAX_EXPANDED_LENGTH) continue;
      if (expanded >= MAX_EXPANDED_WORDS) break;
      counted = true;
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
    if (counted) expanded++;
  }
  return [...boosts].map(([term, boost]) => ({ term, boost }));
}

/** A node of lunr's token set: the index's terms as a minimised automaton (a trie with shared suffixes). */
interface TokenNode {
  final: boolean;
  edges: Record<string, TokenNode>;
}

/**
 * Terms within `edits` edits of `term` that start with its first letter, counting an insertion, a deletion,
 * a substitution or a swap of two neighbours as one edit, as lunr does. It walks the automaton with one row
 * of the edit-distance table per node (the classic trie walk, with the row before for swaps): a branch ends
 * as soon as every cell of its row is beyond `edits`, and the whole walk after `maxVisits` nodes. lunr's own
 * fuzzy token set (`TokenSet.fromFuzzyString`) spells out every edit of the word first, which grows with
 * the cube of its length: 300 letters took seconds and gigabytes.
 */
export function nearInAutomaton(root: TokenNode, term: string, edits: number, maxVisits = MAX_LOOKUP_VISITS): string[] {
  const out: string[] = [];
  const start = term.length ? root.edges[term[0]] : undefined;
  if (!start) return out;
  const n = term.length;
  // The row of a candidate prefix ending in `ch`, from the rows of the one and two letters shorter.
  const next = (row: readonly number[], before: readonly number[] | null, prevCh: string, ch: string): number[] => {
    const r = [row[0] + 1];
    for (let j = 1; j <= n; j++) {
      let d = Math.min(row[j] + 1, r[j - 1] + 1, row[j - 1] + (term[j - 1] === ch ? 0 : 1));
      if (before && j > 1 && term[j - 1] === prevCh && term[j - 2] === ch) d = Math.min(d, before[j - 2] + 1);
      r[j] = d;
    }
    return r;
  };
  const empty = Array.from({ length: n + 1 }, (_, j) => j);
  type Step = { node: TokenNode; prefix: string; row: number[]; before: number[] };
  const stack: Step[] = [{ node: start, prefix: term[0], row: next(empty, null, '', term[0]), before: empty }];
  let visits = 0;
  while (stack.length && visits++ < maxVisits) {
    const { node, prefix, row, before } = stack.pop()!;
    if (node.final && row[n] <= edits) out.push(prefix);
    for (const ch in node.edges) {
      const r = next(row, before, prefix[prefix.length - 1], ch);
      if (Math.min(...r) <= edits) stack.push({ node: node.edges[ch], prefix: prefix + ch, row: r, before: row });
    }
  }
  return out;
}

/**
 * The shortest terms that start with `prefix` (shortest first, then alphabetical), at most `limit` of them:
 * a breadth-first walk below the prefix's node, stopped after `limit` terms or MAX_LOOKUP_VISITS nodes.
 */
export function completionsInAutomaton(root: TokenNode, prefix: string, limit = MAX_PREFIX_TERMS, maxVisits = MAX_LOOKUP_VISITS): string[] {
  let node: TokenNode | undefined = root;
  for (const ch of prefix) if (!(node = node.edges[ch])) return [];
  const out: string[] = [];
  let level: { node: TokenNode; word: string }[] = [{ node, word: prefix }];
  let visits = 0;
  while (level.length && out.length < limit) {
    const below: { node: TokenNode; word: string }[] = [];
    for (const { node: at, word } of level) {
      if (visits++ >= maxVisits) return out;
      if (at.final) {
        out.push(word);
        if (out.length >= limit) return out;
      }
      for (const ch of Object.keys(at.edges).sort()) below.push({ node: at.edges[ch], word: word + ch });
    }
    level = below;
  }
  return out;
}

/** The built index's vocabulary, through lunr's token set, with bounded lookups. */
export function indexVocabulary(index: lunr.Index, has: (term: string) => boolean): Vocabulary {
  const root = (index as unknown as { tokenSet: TokenNode }).tokenSet;
  return {
    has,
    near: (term, edits) => nearInAutomaton(root, term, edits),
    startingWith: (prefix) => completionsInAutomaton(root, prefix),
  };
}
