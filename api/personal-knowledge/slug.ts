// Note slugs: 1..80 characters of lower-case letters, digits, `-` and `_`, starting and ending with a letter
// or digit. A slug names exactly one file, notes/<slug>.md: no dots or slashes, so no path traversal, no
// hidden files, and no names that differ only by case (which collide on macOS and Windows clones).
import { z } from '@hono/zod-openapi';

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9_-]{0,78}[a-z0-9])?$/;
export const NOTES_DIR = 'notes';

export const slugSchema = z
  .string()
  .min(1)
  .max(80)
  .regex(SLUG_PATTERN, 'lower-case letters, digits, "-" and "_", starting and ending with a letter or digit')
  .openapi({ description: 'Note slug: 1..80 of a-z, 0-9, "-", "_"; the note is notes/<slug>.md in the repository.', example: 'reading-list' });

export const isSlug = (s: string): boolean => s.length <= 80 && SLUG_PATTERN.test(s);

/** The tree entry name of a note inside notes/. */
export const noteFileName = (slug: string): string => `${slug}.md`;

/** The slug of a notes/ tree entry, or null for anything that is not one of our notes (other files are left alone). */
export function slugOfEntry(name: string): string | null {
  if (!name.endsWith('.md')) return null;
  const slug = name.slice(0, -3);
  return isSlug(slug) ? slug : null;
}

/** A free slug for a copy of a note that conflicted with a change on the host: `<slug>-conflict-<commit7>`. */
export function conflictSlug(slug: string, commit: string): string {
  return `${slug.slice(0, 80 - 17).replace(/[-_]+$/, '')}-conflict-${commit.slice(0, 7)}`;
}

const TITLE_MAX = 200;
const SPACE = (ch: string | undefined) => ch === ' ' || ch === '\t';

/** `s` without the characters at its end for which `drop` holds: one pass from the right, linear in `s`. */
function trimEndWhile(s: string, drop: (ch: string) => boolean): string {
  let end = s.length;
  while (end > 0 && drop(s[end - 1])) end--;
  return s.slice(0, end);
}

/**
 * The lines of `text` from `from` on, each without its line ending, with the offset after it. Line endings
 * are `\n`, `\r\n` and a lone `\r`, as in CommonMark.
 */
function* lines(text: string, from = 0): Generator<{ line: string; end: number }> {
  const ending = /\r\n?|\n/g;
  ending.lastIndex = from;
  let start = from;
  for (let m = ending.exec(text); m; m = ending.exec(text)) {
    yield { line: text.slice(start, m.index), end: ending.lastIndex };
    start = ending.lastIndex;
  }
  yield { line: text.slice(start), end: text.length };
}

/** The value of a front-matter `title:` line, without the spaces and one pair of quotes around it. */
function frontTitle(line: string): string | null {
  if (!line.startsWith('title:')) return null;
  let v = trimEndWhile(line.slice('title:'.length), SPACE);
  let i = 0;
  while (SPACE(v[i])) i++;
  v = v.slice(i);
  if (v.startsWith('"') || v.startsWith("'")) v = v.slice(1);
  if (v.length > 1 && (v.endsWith('"') || v.endsWith("'"))) v = v.slice(0, -1);
  return v.length > 0 ? v : null;
}

/** The text of an ATX heading line (`#` to `######`, a space, the text, optional closing `#`s), or null. */
function headingText(line: string): string | null {
  let level = 0;
  while (line[level] === '#') level++;
  if (level < 1 || level > 6 || !SPACE(line[level])) return null;
  const text = trimEndWhile(line.slice(level), (ch) => SPACE(ch) || ch === '#').trim();
  return text.length > 0 ? text : null;
}

/**
 * The note's title: a front-matter `title:`, else its first Markdown heading, else the slug. One pass over the
 * lines, linear in the content: the note's content is the caller's (up to the content cap), and the regexes
 * this replaced backtracked quadratically on a long line of spaces (a 40,000-space heading held the event
 * loop for seconds).
 */
export function titleOf(content: string, slug: string): string {
  let bodyFrom = 0;
  const it = lines(content);
  const first = it.next();
  if (!first.done && first.value.line === '---') {
    let title: string | null = null;
    for (const { line, end } of it) {
      if (line.startsWith('---')) {
        if (title) return title.slice(0, TITLE_MAX);
        bodyFrom = end;
        break;
      }
      title ??= frontTitle(line);
    }
  }
  for (const { line } of lines(content, bodyFrom)) {
    const text = headingText(line);
    if (text) return text.slice(0, TITLE_MAX);
  }
  return slug;
}
