// Snippets: the passage of an item that best shows why it matched, with the matched words wrapped in
// <mark>…</mark>. The rest of the snippet is HTML-escaped, so a page can insert it as HTML as it is and an
// agent can still read it as text.
import { termOf, wordSpans } from './analyse.ts';
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
  const parts = [...doc.fields.summary, ...doc.fields.body, ...doc.fields.title];
  if (parts.length === 0) return '';
  let best: Candidate | null = null;
  if (terms.size > 0) {
    for (const part of parts) {
      const c = bestWindow(part, terms);
      if (!best || c.distinct > best.distinct || (c.distinct === best.distinct && c.count > best.count)) best = c;
      if (best.distinct === terms.size) break;
    }
  }
  if (!best || best.distinct === 0) best = bestWindow(parts[0], new Set());
  return render(best);
}
