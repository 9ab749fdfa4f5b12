// Words and sentences of English and Slovenian text: sentence splitting with Intl.Segmenter, content
// words without stop words and with a crude suffix strip. Shared by the summariser, the knowledge job and
// the extractive chat answers.
export const STOP_WORDS: Record<'en' | 'sl', Set<string>> = {
  en: new Set(
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its itself just me more most my no not now of on once only or other our out over own same she should so some such than that the their them then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your also about after again all any because before being below between both during each few further here let many much must nor off per since still upon us yet'.split(' '),
  ),
  sl: new Set(
    'a ali in je so se da na za z s v o od do pri po ki kot ter tudi pa ne ni bi bil bila bilo bili smo ste sem si jih jo ga mu ji jim njih njegov njena njihov to ta te ti tem tega temu tej teh kar če ko kjer kako kaj kdo zakaj ker samo še že bo bodo bomo lahko mora morajo več manj zelo vse vsi vsak vsaka tako tudi iz med brez nad pod pred za zato'.split(' '),
  ),
};

export function sentences(text: string, lang: 'en' | 'sl'): string[] {
  const seg = new Intl.Segmenter(lang, { granularity: 'sentence' });
  return [...seg.segment(text.replace(/\s+/g, ' ').trim())].map((s) => s.segment.trim()).filter((s) => /\p{L}{2,}/u.test(s) && s.split(' ').length >= 4);
}

/** Content words, lower-cased, with a crude suffix strip so "agents"/"agent" and "modeli"/"model" meet. */
export function contentWords(sentence: string, lang: 'en' | 'sl'): string[] {
  return (sentence.toLowerCase().match(/\p{L}[\p{L}\p{N}-]*/gu) ?? [])
    .filter((w) => w.length > 2 && !STOP_WORDS[lang].has(w))
    .map((w) => (lang === 'en' ? w.replace(/(ies|es|s|ing|ed)$/, '') : w.replace(/(ih|ov|ev|ami|ega|emu|em|ja|je|ju|ov|a|e|i|o|u)$/, '')))
    .filter((w) => w.length > 2);
}

