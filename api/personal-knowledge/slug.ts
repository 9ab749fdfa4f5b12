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

/** The note's title: a front-matter `title:`, else its first Markdown heading, else the slug. */
export function titleOf(content: string, slug: string): string {
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(content);
  const title = front && /^title:[ \t]*["']?(.+?)["']?[ \t]*$/m.exec(front[1]);
  if (title) return title[1].slice(0, 200);
  const heading = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(front ? content.slice(front[0].length) : content);
  return heading ? heading[1].trim().slice(0, 200) : slug;
}
