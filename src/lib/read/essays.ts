// Essay reads: the list (newest first) and one essay in a requested language, with its translations named.
import { essayIn, type Essay, type Snapshot } from '../content/model.ts';
import type { Lang } from '../content/schema.ts';
import { rewriteLinksForAgents } from '../content/markdown.ts';
import { apiUrl, itemUrl, pageUrl, type LinkOptions } from './links.ts';

export function essayThumbnailUrl(slug: string): string {
  return `${apiUrl('essays', slug)}/thumbnail`;
}

export function essayItem(snap: Snapshot, e: Essay, agent = false, lang?: Lang, origin = '') {
  const t = essayIn(e, lang);
  const video = t.video ? snap.videosById.get(t.video) : undefined;
  return {
    slug: e.slug,
    title: t.title,
    date: t.date,
    description: t.description,
    lang: t.lang,
    tags: t.tags,
    featured: t.featured,
    thumbnail: essayThumbnailUrl(e.slug),
    video: video ? video.url : null,
    video_id: video ? video.video_id : null,
    available_languages: e.languages,
    url: itemUrl('essays', e.slug, agent),
    api_url: apiUrl('essays', e.slug),
    // The page of the language asked for: the primary one at /essays/<slug>, the others below it.
    page_url: lang && lang !== e.primary ? `${pageUrl('essays', e.slug, origin)}/${lang}` : pageUrl('essays', e.slug, origin),
  };
}

export function listEssays(snap: Snapshot, origin = '') {
  return { total: snap.essays.length, items: snap.essays.map((e) => essayItem(snap, e, false, undefined, origin)) };
}

export function getEssay(snap: Snapshot, slug: string, opts: LinkOptions & { lang?: Lang }) {
  const e = snap.essaysBySlug.get(slug);
  if (!e) return null;
  const t = essayIn(e, opts.lang);
  return {
    ...essayItem(snap, e, opts.agent, opts.lang, opts.origin),
    content: opts.agent ? rewriteLinksForAgents(t.body) : t.body,
    translations: Object.fromEntries(
      e.languages.map((l) => [l, { title: e.translations[l]!.title, url: `${apiUrl('essays', e.slug)}?lang=${l}` }]),
    ),
  };
}

/** The newest featured essay, or the newest essay when none is featured. */
export function featuredEssay(snap: Snapshot): Essay | undefined {
  return snap.essays.find((e) => essayIn(e).featured) ?? snap.essays[0];
}
