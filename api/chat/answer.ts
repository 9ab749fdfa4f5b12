// Answers: the prompt an LLM gets (the persona's SYSTEM, the numbered passages, the conversation), and
// the extractive answer without one — the passages' sentences that best match the question, each cited.
import type { ChatMessage } from '../llm/client.ts';
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

/** The numbers [n] an answer cites that are among the passages. */
export function citedNumbers(text: string, passages: Passage[]): Set<number> {
  const valid = new Set(passages.map((p) => p.n));
  return new Set([...text.matchAll(/\[(\d{1,2})\]/g)].map((m) => Number(m[1])).filter((n) => valid.has(n)));
}

const EXTRACT_INTRO = {
  en: 'This is an extract of the most relevant passages in the knowledge base, not a generated answer:',
  sl: 'To je izvleček najustreznejših odlomkov iz baze znanja, ne ustvarjen odgovor:',
} as const;
const NOTHING = {
  en: 'The knowledge base has nothing that answers this question.',
  sl: 'Baza znanja nima ničesar, kar bi odgovorilo na to vprašanje.',
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
  if (picked.length === 0) return { text: NOTHING[lang], cited: new Set() };
  picked.sort((a, b) => a.order - b.order);
  return { text: `${EXTRACT_INTRO[lang]}\n\n${picked.map((x) => `- ${x.s} [${x.n}]`).join('\n')}`, cited: new Set(picked.map((x) => x.n)) };
}
