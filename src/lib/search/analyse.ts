// Text analysis shared by the keyword index, the builtin embedder and snippets: splitting text into words,
// turning a word into its index term in English (lunr's Porter stemmer and stop words, after folding
// diacritics) or Slovenian (./slovenian.ts), and guessing the language of untagged text.
import lunr from 'lunr';
import { foldDiacritics, slovenianTerm, SLOVENIAN_STOP_WORDS } from './slovenian.ts';

export type TextLang = 'en' | 'sl';
export const TEXT_LANGS: readonly TextLang[] = ['en', 'sl'];

/** Bumped whenever a change here would give an existing index different terms: it forces a rebuild. */
export const ANALYSER_VERSION = 3;

// Letters and digits; an apostrophe inside a word keeps it whole ("CFO's", "don't"). Hyphens split.
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

export interface WordSpan {
  word: string;
  start: number;
  end: number;
}

/** Every word of a text with its character span (for snippets). */
export function wordSpans(text: string): WordSpan[] {
  const out: WordSpan[] = [];
  for (const m of text.matchAll(WORD)) out.push({ word: m[0], start: m.index, end: m.index + m[0].length });
  return out;
}

export function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

function isEnglishStopWord(folded: string): boolean {
  return lunr.stopWordFilter(new lunr.Token(folded, {})) === undefined;
}

function englishTerm(word: string): string | null {
  const folded = foldDiacritics(word).replace(/['’]s$/, '').replace(/['’]/g, '');
  if (folded === '' || isEnglishStopWord(folded)) return null;
  return lunr.stemmer(new lunr.Token(folded, {})).toString();
}

// Stemming dominates analysis time; the vocabulary of a corpus is small, so a memo turns it into lookups.
const MEMO_LIMIT = 200_000;
const memo: Record<TextLang, Map<string, string | null>> = { en: new Map(), sl: new Map() };

/** The index term of one word in a language, or null for a stop word. */
export function termOf(word: string, lang: TextLang): string | null {
  const m = memo[lang];
  let term = m.get(word);
  if (term === undefined) {
    term = lang === 'sl' ? slovenianTerm(word.replace(/['’]/g, '')) : englishTerm(word);
    if (m.size >= MEMO_LIMIT) m.clear();
    m.set(word, term);
  }
  return term;
}

/** The terms of a text in its language, in order, stop words dropped. */
export function analyse(text: string, lang: TextLang): string[] {
  const out: string[] = [];
  for (const w of wordsOf(text)) {
    const t = termOf(w, lang);
    if (t !== null) out.push(t);
  }
  return out;
}

/** One word of a query and its terms: queries carry no language, so a word gets its term in each. */
export interface QueryWord {
  word: string;
  terms: string[];
}

/** At most this many words of a query are used: a pasted page is not a query. */
export const MAX_QUERY_WORDS = 32;
/** At most this many characters of a query are read (the API refuses longer ones; chat and MCP cut theirs). */
export const MAX_QUERY_CHARS = 500;
/** A longer "word" is no word of either language: it is cut here before stemming. */
export const MAX_WORD_LENGTH = 64;

/** The part of a query that search reads: its first MAX_QUERY_CHARS characters. */
export function boundQuery(q: string): string {
  return q.length > MAX_QUERY_CHARS ? q.slice(0, MAX_QUERY_CHARS) : q;
}

/**
 * The languages a query is in. Function words give it away ("for", "the" against "v", "za", "je"), as do
 * č, š and ž; a query without them ("mala podjetja", "shadow AI") could be either and is read as both.
 */
export function queryLanguages(words: readonly string[]): TextLang[] {
  let sl = 0;
  let en = 0;
  for (const w of words) {
    const folded = foldDiacritics(w);
    if (/[čšž]/i.test(w)) sl++;
    // "a", "in", "to", "so", "no", "do" are function words of both languages: evidence for neither, so
    // "cameras in a factory" is not read as Slovenian for its "in" and "a".
    const englishStop = termOf(w, 'en') === null;
    if (SLOVENIAN_STOP_WORDS.has(folded) && !englishStop) sl++;
    if (ENGLISH_MARKERS.has(folded) || (englishStop && !SLOVENIAN_STOP_WORDS.has(folded))) en++;
  }
  return sl > en ? ['sl'] : en > sl ? ['en'] : ['en', 'sl'];
}

/**
 * Analyses a query. Each word gets its term in each language the query may be in (see queryLanguages),
 * so "podjetja" meets Slovenian documents and "training" English ones without the other language's
 * stemmer making noise of them. Function words are dropped, unless every word of the query is one.
 */
export function analyseQuery(q: string): QueryWord[] {
  const ws = wordsOf(boundQuery(q))
    .slice(0, MAX_QUERY_WORDS)
    .map((w) => (w.length > MAX_WORD_LENGTH ? w.slice(0, MAX_WORD_LENGTH) : w));
  const langs = queryLanguages(ws);
  const out: QueryWord[] = [];
  for (const word of ws) {
    const terms = langs.map((l) => termOf(word, l));
    if (terms.some((t) => t === null)) continue;
    out.push({ word, terms: [...new Set(terms as string[])] });
  }
  if (out.length === 0) {
    for (const word of ws) out.push({ word, terms: [foldDiacritics(word)] });
  }
  return out;
}

const ENGLISH_MARKERS = new Set(['the', 'and', 'of', 'to', 'is', 'that', 'for', 'with', 'are', 'this', 'it', 'on', 'as', 'be', 'what', 'how', 'from', 'an', 'by', 'or', 'when', 'why', 'which', 'who', 'our', 'your', 'their']);

/**
 * Guesses whether text is Slovenian or English from function words and č/š/ž, for content that carries
 * no language (concepts, digests, personas). English wins ties: it is the site's primary language.
 */
export function guessLanguage(text: string): TextLang {
  let sl = 0;
  let en = 0;
  for (const w of wordsOf(text.slice(0, 4000))) {
    const lower = w.toLowerCase();
    if (/[čšž]/.test(lower)) sl += 1;
    const folded = foldDiacritics(lower);
    if (SLOVENIAN_STOP_WORDS.has(folded) && !ENGLISH_MARKERS.has(folded)) sl += 1;
    if (ENGLISH_MARKERS.has(folded)) en += 1;
  }
  return sl > en ? 'sl' : 'en';
}
