// Knowledge concept reads: the list (drafts only on request) and one concept with resolved sources.
import type { Concept, Snapshot } from '../content/model.ts';
import type { ConceptSource } from '../content/schema.ts';
import { essayIn } from '../content/model.ts';
import { rewriteLinksForAgents } from '../content/markdown.ts';
import { apiUrl, itemUrl, pageUrl, type LinkOptions } from './links.ts';
import { taggedItems } from './tags.ts';

function conceptItem(c: Concept, agent = false, origin = '') {
  return {
    slug: c.slug,
    title: c.title,
    summary: c.summary,
    tags: c.tags,
    draft: c.draft,
    source_count: c.sources.length,
    related: c.related,
    url: itemUrl('knowledge', c.slug, agent),
    api_url: apiUrl('knowledge', c.slug),
    page_url: pageUrl('knowledge', c.slug, origin),
  };
}

/** Published concepts (drafts too when asked), optionally only those with a tag. */
export function listKnowledge(snap: Snapshot, params: { draft: boolean; tag?: string }, origin = '') {
  const pool = params.tag === undefined ? snap.concepts : taggedItems(snap, params.tag).concepts;
  const items = params.draft ? pool : pool.filter((c) => !c.draft);
  return { total: items.length, items: items.map((c) => conceptItem(c, false, origin)) };
}

export function resolveSource(snap: Snapshot, s: ConceptSource, agent: boolean, origin = '') {
  switch (s.type) {
    case 'video': {
      const v = snap.videosById.get(s.id)!;
      return { type: s.type, id: s.id, title: v.title, date: v.date, url: itemUrl('videos', s.id, agent), page_url: pageUrl('videos', s.id, origin) };
    }
    case 'essay': {
      const t = essayIn(snap.essaysBySlug.get(s.id)!);
      return { type: s.type, id: s.id, title: t.title, date: t.date, url: itemUrl('essays', s.id, agent), page_url: pageUrl('essays', s.id, origin) };
    }
    case 'digest': {
      const d = snap.digestsByDate.get(s.id)!;
      return { type: s.type, id: s.id, title: d.title, date: d.date, url: itemUrl('digests', s.id, agent), page_url: pageUrl('digests', s.id, origin) };
    }
    case 'web_page':
      return { type: s.type, id: s.url, title: s.title, date: null, url: s.url, page_url: s.url };
  }
}

export function getConcept(snap: Snapshot, slug: string, opts: LinkOptions) {
  const c = snap.conceptsBySlug.get(slug);
  if (!c) return null;
  return {
    ...conceptItem(c, opts.agent, opts.origin),
    body: opts.agent ? rewriteLinksForAgents(c.body) : c.body,
    sources: c.sources.map((s) => resolveSource(snap, s, opts.agent, opts.origin)),
    related: c.related.map((r) => {
      const rc = snap.conceptsBySlug.get(r)!;
      return { slug: r, title: rc.title, draft: rc.draft, url: itemUrl('knowledge', r, opts.agent), page_url: pageUrl('knowledge', r, opts.origin) };
    }),
  };
}
