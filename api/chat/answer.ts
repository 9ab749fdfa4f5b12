// Answers: the prompt an LLM gets (the persona's SYSTEM, the numbered passages, the conversation), and
// the extractive answer without one — the passages' sentences that best match the question, each cited.
import type { ChatMessage } from '../../src/lib/llm/client.ts';
import type { Modelfile } from '../../src/lib/personas/modelfile.ts';
import { contentWords, sentences } from '../../src/lib/text/words.ts';
import type { Passage } from './retrieve.ts';

const LANGUAGE_NAME = { en: 'English', sl: 'Slovenian' } as const;

export function buildPrompt(modelfile: Modelfile, passages: Passage[], conversation: ChatMessage[], lang: 'en' | 'sl'): ChatMessage[] {
  const context = passages.length
    ? passages.map((p) => `[${p.n}] ${p.title} (${p.type}, ${p.url})\n${p.text}`).join('\n\n')
    : '(no passage in the knowledge base matches this question)';
  const system =
    `${modelfile.system ?? 'You answer questions from the knowledge base.'}\n\n` +
    `Knowledge-base passages:\n\n${context}\n\n` +
    `Answer in ${LANGUAGE_NAME[lang]}. Use only these passages; cite each claim with its number, like [1]. ` +
    'If the passages do not answer the question, say so.';
  // The client's own system messages are not allowed to replace the persona's.
  return [{ role: 'system', content: system }, ...conversation.filter((m) => m.role !== 'system')];
}

/**
 * Renumbers an answer's citations [n] of the passages 1, 2, 3… in the order the answer first cites them,
 * so the sources it lists have no gaps ([1][2][3], not [1][2][3][6]). Fed in pieces as a stream arrives,
 * it holds back a citation cut between two pieces ("[" then "6]") until it is whole. `order` maps each
 * cited passage's number to the one the reader sees.
 */
export class CitationNumbers {
  readonly order = new Map<number, number>();
  private readonly valid: Set<number>;
  private pending = '';
  constructor(passages: readonly Passage[]) {
    this.valid = new Set(passages.map((p) => p.n));
  }

  /** The text of the next piece that can be passed on, renumbered. */
  push(piece: string): string {
    const text = this.pending + piece;
    const open = /\[\d{0,2}$/.exec(text);
    const cut = open ? open.index : text.length;
    this.pending = text.slice(cut);
    return this.rewrite(text.slice(0, cut));
  }

  /** What was held back, at the end of the answer. */
  end(): string {
    const rest = this.rewrite(this.pending);
    this.pending = '';
    return rest;
  }

  /** A whole answer, renumbered. */
  all(text: string): string {
    return this.push(text) + this.end();
  }

  private rewrite(s: string): string {
    return s.replace(/\[(\d{1,2})\]/g, (whole, d: string) => {
      const n = Number(d);
      if (!this.valid.has(n)) return whole;
      let shown = this.order.get(n);
      if (shown === undefined) this.order.set(n, (shown = this.order.size + 1));
      return `[${shown}]`;
    });
  }
}

const EXTRACT_INTRO = {
  en: 'This is an extract of the most relevant passages in the knowledge base, not a generated answer:',
  sl: 'To je izvleček najustreznejših odlomkov iz baze znanja, ne ustvarjen odgovor:',
} as const;
/** The answer when no passage is relevant enough to be a source (coverage "none"). */
export const NOT_COVERED = {
  en: 'The knowledge base does not cover this question: none of its videos, essays, concepts or digests answers it.',
  sl: 'Baza znanja tega vprašanja ne pokriva: nanj ne odgovarja noben njen video, esej, pojem ali povzetek.',
} as const;

/** The best-matching sentences of the passages, at most two from one passage, each with its [n]. */
export function extractiveAnswer(question: string, passages: Passage[], lang: 'en' | 'sl', maxSentences = 4): { text: string; cited: Set<number> } {
  const q = new Set([...contentWords(question, 'en'), ...contentWords(question, 'sl')]);
  const scored: { s: string; n: number; score: number; order: number }[] = [];
  for (const p of passages) {
    sentences(p.text, p.lang).forEach((s, i) => {
      const words = contentWords(s, p.lang);
      const overlap = new Set(words.filter((w) => q.has(w))).size;
      if (overlap > 0) scored.push({ s, n: p.n, score: overlap + 1 / (p.n + i + 1), order: p.n * 1000 + i });
    });
  }
  const picked: typeof scored = [];
  const perPassage = new Map<number, number>();
  for (const x of scored.sort((a, b) => b.score - a.score)) {
    if (picked.length >= maxSentences) break;
    if ((perPassage.get(x.n) ?? 0) >= 2) continue;
    perPassage.set(x.n, (perPassage.get(x.n) ?? 0) + 1);
    picked.push(x);
  }
  if (picked.length === 0) return { text: NOT_COVERED[lang], cited: new Set() };
  picked.sort((a, b) => a.order - b.order);
  return { text: `${EXTRACT_INTRO[lang]}\n\n${picked.map((x) => `- ${x.s} [${x.n}]`).join('\n')}`, cited: new Set(picked.map((x) => x.n)) };
}
