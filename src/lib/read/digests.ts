// Digest reads: the list (newest first, optionally since a date) and one day's digest.
import type { Snapshot } from '../content/model.ts';
import { rewriteLinksForAgents } from '../content/markdown.ts';
import { apiUrl, itemUrl, pageUrl, type LinkOptions } from './links.ts';

export function digestItem(d: { date: string; title: string; intro: string }, agent = false, origin = '') {
  return {
    date: d.date,
    title: d.title,
    intro: d.intro,
    thumbnail: `${apiUrl('digests', d.date)}/thumbnail`,
    url: itemUrl('digests', d.date, agent),
    api_url: apiUrl('digests', d.date),
    page_url: pageUrl('digests', d.date, origin),
  };
}

export function listDigests(snap: Snapshot, params: { since?: string }, origin = '') {
  const items = snap.digests.filter((d) => params.since === undefined || d.date >= params.since);
  return { total: items.length, items: items.map((d) => digestItem(d, false, origin)) };
}

export function getDigest(snap: Snapshot, date: string, opts: LinkOptions) {
  const d = snap.digestsByDate.get(date);
  if (!d) return null;
  return {
    ...digestItem(d, opts.agent, opts.origin),
    content: opts.agent ? rewriteLinksForAgents(d.content) : d.content,
    items: d.items.map((i) => ({
      number: i.number,
      headline: i.headline,
      paragraph: i.paragraph,
      sources: i.sources.map((s) => ({ video_id: s.video_id, title: s.title, url: itemUrl('videos', s.video_id, opts.agent), page_url: pageUrl('videos', s.video_id, opts.origin) })),
    })),
  };
}
