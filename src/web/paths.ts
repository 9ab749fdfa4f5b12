// Where pages live, for the items whose page path is not simply /<kind>/<id>.
import type { Essay } from '../lib/content/model.ts';
import type { Lang } from '../lib/content/schema.ts';

/** The primary language at /essays/<slug>, every other language at /essays/<slug>/<lang>. */
export function essayPath(essay: Pick<Essay, 'slug' | 'primary'>, lang: Lang): string {
  return lang === essay.primary ? `/essays/${essay.slug}` : `/essays/${essay.slug}/${lang}`;
}
