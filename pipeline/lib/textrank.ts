// An extractive summariser: TextRank (Mihalcea & Tarau, 2004) over the sentences of a text, in English or
// Slovenian. Sentences are split with Intl.Segmenter; similarity is the paper's normalised word overlap
// over content words; the top sentences are returned in their original order.
const STOP: Record<'en' | 'sl', Set<string>> = {
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
    .filter((w) => w.length > 2 && !STOP[lang].has(w))
    .map((w) => (lang === 'en' ? w.replace(/(ies|es|s|ing|ed)$/, '') : w.replace(/(ih|ov|ev|ami|ega|emu|em|ja|je|ju|ov|a|e|i|o|u)$/, '')))
    .filter((w) => w.length > 2);
}

function similarity(a: string[], b: string[]): number {
  if (a.length < 2 || b.length < 2) return 0;
  const sb = new Set(b);
  const common = new Set(a.filter((w) => sb.has(w))).size;
  return common / (Math.log(a.length) + Math.log(b.length));
}

/** The `count` most central sentences, in text order. */
export function textRank(text: string, lang: 'en' | 'sl', count = 3): string[] {
  const sents = sentences(text, lang);
  if (sents.length <= count) return sents;
  const words = sents.map((s) => contentWords(s, lang));
  const n = sents.length;
  const w = words.map((a, i) => words.map((b, j) => (i === j ? 0 : similarity(a, b))));
  const out = w.map((row) => row.reduce((x, y) => x + y, 0));
  let score = new Array<number>(n).fill(1);
  for (let iter = 0; iter < 40; iter++) {
    const next = score.map((_, i) => 0.15 + 0.85 * w.reduce((acc, row, j) => acc + (out[j] > 0 ? (row[i] / out[j]) * score[j] : 0), 0));
    const delta = next.reduce((acc, v, i) => acc + Math.abs(v - score[i]), 0);
    score = next;
    if (delta < 1e-6) break;
  }
  // Ties go to the earlier sentence: openings tend to state the point.
  const top = score.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i).slice(0, count).map((x) => x.i).sort((a, b) => a - b);
  return top.map((i) => sents[i]);
}

/** Phrases that mean a tag when the tag's own words do not appear; a trailing * matches any word ending. */
const TAG_SYNONYMS: Record<string, string[]> = {
  'eu-ai-act': ['ai act', 'akt o umetni inteligenci'],
  rag: ['retrieval', 'retrieval-augmented'],
  llmops: ['mlops', 'model monitoring'],
  smes: ['sme', 'small business', 'small firms', 'mala podjetja', 'msp'],
  hr: ['human resources', 'hiring', 'kadrovsk*'],
  roi: ['return on investment', 'payback'],
  'public-sector': ['government', 'ministry', 'municipal*', 'javna uprava', 'javni sektor', 'občin*'],
  'open-source-models': ['open-weight', 'open weight', 'odprtokodn*'],
  'responsible-ai': ['fairness', 'bias'],
  copilots: ['copilot', 'assistant'],
  agents: ['agent', 'agentic'],
};

/** Tags from the existing vocabulary that the text talks about, most mentioned first. */
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
function phraseRegex(phrase: string): RegExp {
  const prefix = phrase.endsWith('*');
  const body = escapeRe(prefix ? phrase.slice(0, -1) : phrase).replace(/ /g, '[\\s-]+');
  return new RegExp(`(?<![\\p{L}\\p{N}])${body}${prefix ? '' : 's?(?![\\p{L}\\p{N}])'}`, 'giu');
}

export function keywordTags(text: string, vocabulary: string[], max = 4): string[] {
  const t = text.toLowerCase();
  const scored = vocabulary.map((tag) => {
    const phrases = [...new Set([tag.replace(/-/g, ' '), ...(TAG_SYNONYMS[tag] ?? [])])];
    const hits = phrases.reduce((acc, p) => acc + (t.match(phraseRegex(p))?.length ?? 0), 0);
    return { tag, hits };
  });
  return scored.filter((s) => s.hits > 0).sort((a, b) => b.hits - a.hits || (a.tag < b.tag ? -1 : 1)).slice(0, max).map((s) => s.tag);
}
