// Snippets: the passage of an item that best shows why it matched, with the matched words wrapped in
// <mark>…</mark>. The rest of the snippet is HTML-escaped, so a page can insert it as HTML as it is and an
// agent can still read it as text.
import { termOf, wordSpans, type TextLang } from './analyse.ts';
import type { SearchDocument, TextPart } from './documents.ts';

/** Words in a snippet: about two lines of a result list. */
const WINDOW_WORDS = 32;
const MAX_CHARS = 320;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ESCAPES[c]);
}

interface Candidate {
  part: TextPart;
  spans: ReturnType<typeof wordSpans>;
  marked: boolean[];
  start: number;
  distinct: number;
  count: number;
}

/** The best window of one text: most distinct matched terms, then most matches, then earliest. */
function bestWindow(part: TextPart, terms: ReadonlySet<string>): Candidate {
  const spans = wordSpans(part.text);
  const termAt = spans.map((s) => {
    const t = termOf(s.word, part.lang);
    return t !== null && terms.has(t) ? t : null;
  });
  const marked = termAt.map((t) => t !== null);
  const counts = new Map<string, number>();
  let count = 0;
  let best = { start: 0, distinct: 0, count: 0 };
  for (let i = 0; i < spans.length; i++) {
    const t = termAt[i];
    if (t !== null) {
      counts.set(t, (counts.get(t) ?? 0) + 1);
      count++;
    }
    const out = i - WINDOW_WORDS;
    if (out >= 0 && termAt[out] !== null) {
      const o = termAt[out]!;
      const c = counts.get(o)! - 1;
      if (c === 0) counts.delete(o);
      else counts.set(o, c);
      count--;
    }
    const start = Math.max(0, i - WINDOW_WORDS + 1);
    if (counts.size > best.distinct || (counts.size === best.distinct && count > best.count)) best = { start, distinct: counts.size, count };
  }
  return { part, spans, marked, ...best };
}

function render(c: Candidate): string {
  const { spans, marked, part } = c;
  if (spans.length === 0) return '';
  // Lead into the first match with a few words of context rather than starting on it.
  const firstMatch = marked.indexOf(true, c.start);
  let start = c.distinct > 0 ? Math.max(0, Math.min(c.start, firstMatch - 4)) : 0;
  if (c.distinct > 0 && firstMatch - start > 8) start = firstMatch - 4;
  const end = Math.min(spans.length, start + WINDOW_WORDS);
  let out = start > 0 ? '…' : '';
  let pos = spans[start].start;
  const limit = spans[start].start + MAX_CHARS;
  let cut = false;
  for (let i = start; i < end; i++) {
    const s = spans[i];
    if (s.end > limit) {
      cut = true;
      break;
    }
    out += escapeHtml(part.text.slice(pos, s.start));
    out += marked[i] ? `<mark>${escapeHtml(s.word)}</mark>` : escapeHtml(s.word);
    pos = s.end;
  }
  const lastEnd = pos;
  // Keep the punctuation that closes the last word ("…the review queue.").
  const tail = /^[^\s\p{L}\p{N}]*/u.exec(part.text.slice(lastEnd))![0];
  out += escapeHtml(tail);
  if (cut || end < spans.length) out += '…';
  return out.replace(/\s+/g, ' ');
}

/** A snippet for `doc` marking `terms` (index terms); its summary's opening when nothing matches. */
export function makeSnippet(doc: SearchDocument, terms: ReadonlySet<string>): string {
  return snippetOf(doc, terms).snippet;
}

/**
 * The snippet and the language of the passage it comes from. With `own` (the terms of the query's own
 * words, not their translations), the passage that matches most of them wins before the one that matches
 * most terms: an English question about an essay in both languages shows its English passage, though the
 * Slovenian one may match more of the question's translations; an item that matched only by translations
 * shows the opening of its version in the other language, the question's, when it has one.
 */
export function snippetOf(doc: SearchDocument, terms: ReadonlySet<string>, own: ReadonlySet<string> = terms): { snippet: string; lang: TextLang } {
  const parts = [...doc.fields.summary, ...doc.fields.body, ...doc.fields.title];
  if (parts.length === 0) return { snippet: '', lang: 'en' };
  let best: (Candidate & { own: number }) | null = null;
  if (terms.size > 0) {
    for (const part of parts) {
      const c = bestWindow(part, terms);
      const mine = { ...c, own: ownDistinct(c, own) };
      if (!best || mine.own > best.own || (mine.own === best.own && (c.distinct > best.distinct || (c.distinct === best.distinct && c.count > best.count)))) best = mine;
      if (best.distinct === terms.size && best.own >= own.size) break;
    }
  }
  let chosen: Candidate = !best || best.distinct === 0 ? bestWindow(parts[0], new Set()) : best;
  // Matched only by translations of the query's words: the query is in the other language, and a version
  // in it (the same text, in other words) serves its reader better, from its opening.
  if (best && best.distinct > 0 && best.own === 0 && own.size > 0) {
    const other = parts.find((p) => p.lang !== best.part.lang);
    if (other) chosen = bestWindow(other, new Set());
  }
  return { snippet: render(chosen), lang: chosen.part.lang };
}

/** How many of the `own` terms a candidate's window marks. */
function ownDistinct(c: Candidate, own: ReadonlySet<string>): number {
  if (own.size === 0 || c.distinct === 0) return 0;
  const seen = new Set<string>();
  for (let i = c.start; i < Math.min(c.spans.length, c.start + WINDOW_WORDS); i++) {
    if (!c.marked[i]) continue;
    const t = termOf(c.spans[i].word, c.part.lang);
    if (t !== null && own.has(t)) seen.add(t);
  }
  return seen.size;
}
