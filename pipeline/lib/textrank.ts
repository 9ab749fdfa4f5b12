// An extractive summariser: TextRank (Mihalcea & Tarau, 2004) over the sentences of a text, in English or
// Slovenian. Sentences are split with Intl.Segmenter; similarity is the paper's normalised word overlap
// over content words; the top sentences are returned in their original order.
import { contentWords, sentences } from '../../src/lib/text/words.ts';
import { escapeRegExp } from '../../src/lib/text/regexp.ts';

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
function phraseRegex(phrase: string): RegExp {
  const prefix = phrase.endsWith('*');
  const body = escapeRegExp(prefix ? phrase.slice(0, -1) : phrase).replace(/ /g, '[\\s-]+');
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
