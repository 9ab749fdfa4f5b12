// A small Slovenian analyser: lunr-languages has none. It folds diacritics (č š ž ć đ) so queries typed
// without them match, drops function words, and strips the common inflection endings of nouns, adjectives
// and verbs so that "podjetje", "podjetja" and "podjetjem" meet in one term. A light stemmer, not a
// morphological one: it over- and under-stems some words, which recall-oriented search tolerates.

const ASCII = /^[\x00-\x7f]*$/;

/** Lower-cases and removes diacritics: "Učinek Š" → "ucinek s". */
export function foldDiacritics(word: string): string {
  // Most words are plain ASCII: nothing to decompose or strip (the same result, without normalize()).
  if (ASCII.test(word)) return word.toLowerCase();
  return word
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/đ/g, 'd')
    .replace(/ß/g, 'ss');
}

// Function words, already folded. Kept short on purpose: a word left out costs a little precision, a word
// wrongly included can never be found.
export const SLOVENIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a ali ampak bi bil bila bile bili bilo bo bodo bom bomo bos bosta bote ce da do ga gre ima imajo ' +
    'imam in iz ja jaz je jih jo ju k kaj kajti kako kar kateri katera katere kateri katero ker ki kje ko ' +
    'kot lahko le li mi na nad naj nam nas ne nek neka nekaj ni niso no o od oz pa po pred pri s sa ' +
    'saj se si sta ste smo so sva ta tako tam te tega temu ter ti tisti to tudi tu v vas ve vec vendar ' +
    'vi vsa vse vsi z za ze zelo'
  ).split(' '),
);

// Noun and adjective endings, folded (c for č, s for š, z for ž). Verb endings are left out on purpose:
// "-ati", "-ete" or "-ali" also end nouns ("rezultati", "ankete", "signali") and would split them from their
// base forms; people search for things far more than for actions.
const ENDINGS = [
  'ovega', 'ovih', 'ovim', 'ovem',
  'ega', 'ima', 'imi', 'ami', 'ovi', 'ove', 'ova', 'ovo',
  'ih', 'im', 'om', 'ov', 'ev', 'ah', 'ij', 'ja', 'je', 'ji', 'jo', 'ju',
  'a', 'e', 'i', 'o', 'u',
];
const ENDINGS_BY_LENGTH = [...new Set(ENDINGS)].sort((a, b) => b.length - a.length);

/** Shortest stem left behind: shorter stems of different words collide too often. */
const MIN_STEM = 3;

/**
 * Strips one inflection ending (the longest that leaves at least MIN_STEM letters), then undoes the
 * fleeting vowel of -ec/-ek/-el nouns ("uvajalec" / "uvajalca" → "uvajalc"). Input must be folded.
 */
export function stemSlovenian(word: string): string {
  if (word.length <= MIN_STEM || /\d/.test(word)) return word;
  let stem = word;
  // The adjectives' dative "-emu" ("javnemu", "slovenskemu", "poslovnemu"): checked against the paradigms of
  // the Slovenian Hunspell dictionary (test/search/slovenian-stemmer.test.ts), it was the ending that most
  // often split a word from its other forms. Only after the adjectives' -n- and -sk- (and as "-ovemu", like
  // "-ovega"): elsewhere it is often a noun in -em with its "-u" ("sistemu", "problemu"). The dual's "-ema",
  // "-oma" stay: rare in text, and "sistema", "dilema" would lose their stem's end.
  if (/ovemu$/.test(stem) && stem.length - 5 >= MIN_STEM) stem = stem.slice(0, -5);
  else if (/(?:n|sk)emu$/.test(stem) && stem.length - 3 >= MIN_STEM) stem = stem.slice(0, -3);
  // "-em" ends the instrumental and locative only after a soft consonant or -sk- ("podjetjem", "uvajalcem",
  // "slovenskem"); elsewhere it is part of the word ("sistem", "problem").
  else if (/[cjszkn]em$/.test(stem) && stem.length - 2 >= MIN_STEM) stem = stem.slice(0, -2);
  else {
    for (const ending of ENDINGS_BY_LENGTH) {
      if (stem.length - ending.length >= MIN_STEM && stem.endsWith(ending)) {
        stem = stem.slice(0, -ending.length);
        break;
      }
    }
  }
  // Soft-stem and nominal suffixes that survive the case ending: "podjetj" → "podjet", "uvajanj" → "uvajan".
  if (stem.length > MIN_STEM + 1 && stem.endsWith('j')) stem = stem.slice(0, -1);
  // Fleeting e: "uvajalec" → "uvajalc", "izdelek" → "izdelk", like the inflected forms "uvajalca", "izdelka".
  // Applied to every stem, so a noun that keeps its e ("človek", "človeka") still meets itself.
  const fleeting = /^(.{3,})e([ck])$/.exec(stem);
  if (fleeting) stem = fleeting[1] + fleeting[2];
  return stem;
}

/** The term of one Slovenian word, or null for a function word. Input: one word, any case. */
export function slovenianTerm(word: string): string | null {
  const folded = foldDiacritics(word);
  if (SLOVENIAN_STOP_WORDS.has(folded)) return null;
  return stemSlovenian(folded);
}
