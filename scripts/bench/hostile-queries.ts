// The worst queries an anonymous caller can send within the API's bounds (MAX_QUERY_CHARS characters,
// MAX_QUERY_WORDS words), and a few beyond them: shared by the test that sends them to every entry point
// (test/search/hostile-queries.test.ts) and by `npm run bench -- search`, which prints the slowest.
import { MAX_QUERY_CHARS, MAX_QUERY_WORDS } from '../../src/lib/search/analyse.ts';

/** Deterministic letters that make no real word: unknown to any index, so each one is expanded. */
export function gibberish(n: number, seed: number): string {
  const letters = 'bcdfghjklmnpqrstvwxz';
  let s = '';
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    s += letters[x % letters.length];
  }
  return s;
}

const fit = (q: string) => q.slice(0, MAX_QUERY_CHARS).trim();
const words = (make: (i: number) => string) => fit(Array.from({ length: MAX_QUERY_WORDS }, (_, i) => make(i)).join(' '));

/** Each at most MAX_QUERY_CHARS characters and MAX_QUERY_WORDS words: what /api/search accepts. */
export const WORST_QUERIES: Record<string, string> = {
  'one word of maximum length': 'a'.repeat(MAX_QUERY_CHARS),
  'one long word of varied letters': gibberish(MAX_QUERY_CHARS, 1),
  'the most words of 14 unknown letters': words((i) => gibberish(14, i + 2)),
  'words of 20 letters (the longest expanded)': words((i) => gibberish(20, i + 40)),
  'three-letter prefixes': words((i) => `p${'aeiour'[i % 6]}${'abcdefghijklmnopqrstuvwxyz'[i % 26]}`),
  // Four words a chunk (a letter, 2, 9 and the gibberish): MAX_QUERY_WORDS words in all, the rest operators.
  'wildcards and lunr syntax': Array.from({ length: MAX_QUERY_WORDS / 4 }, (_, i) => `${'abcdefgh'[i % 8]}*~2^9 +*:*${gibberish(12, i)}*?* -*~*`).join(' '),
  'Slovenian diacritics': words((i) => `čšžćđ${gibberish(8, i + 90)}ščž`),
  'one word of diacritics': 'ž'.repeat(MAX_QUERY_CHARS),
};

/** Longer than /api/search accepts (422 there); chat and the MCP tool read only the first part. */
export const OVERSIZED_QUERIES: Record<string, string> = {
  '15,000 letters': 'a'.repeat(15_000),
  'the longest chat message, of unknown words': Array.from({ length: 400 }, (_, i) => gibberish(9, i + 7)).join(' '),
  '2,000 words': Array.from({ length: 2000 }, (_, i) => gibberish(7, i)).join(' '),
};
