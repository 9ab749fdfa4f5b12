// What each prerendered page shows, computed from the content snapshot: one function per page route, each
// returning the page's view model (plain JSON data). The .astro pages render only from these models
// (Astro.props), never from the snapshot directly, so a page's bytes are a function of its model: the
// incremental build (src/lib/pages/plan.ts) re-renders exactly the pages whose model changed.
import type { Snapshot, Essay } from '../content/model.ts';
import type { Lang } from '../content/schema.ts';
import type { SiteContext } from '../site.ts';
import { getChannel, listChannels } from '../read/channels.ts';
import { digestItem, getDigest, listDigests } from '../read/digests.ts';
import { essayItem, featuredEssay, getEssay, listEssays } from '../read/essays.ts';
import { getConcept, listKnowledge } from '../read/knowledge.ts';
import { getPersona, listPersonas } from '../read/personas.ts';
import { listTags, taggedItems } from '../read/tags.ts';
import { getVideo, listVideos } from '../read/videos.ts';
import { truncate } from '../../web/format.ts';
import { t } from '../../web/i18n.ts';
import { essayPath } from '../../web/paths.ts';
import { CHANNEL_PAGE_SIZE, pageUrl, TAG_PAGE_VIDEOS } from '../../web/paging.ts';
import { videoThumbnailPath } from '../read/thumbnails.ts';

/** The parts of an essay its links need (essayPath). */
function essayRef(e: Essay): Pick<Essay, 'slug' | 'primary' | 'languages'> {
  return { slug: e.slug, primary: e.primary, languages: e.languages };
}

const HOME_HIGHLIGHTS = 6;
const VIDEOS_SHOWN = 48;

export function homeModel(snap: Snapshot, site: SiteContext) {
  const digest = snap.digests[0];
  let highlights = listVideos(snap, { highlight: true, limit: HOME_HIGHLIGHTS, offset: 0 }).items;
  if (highlights.length === 0) highlights = listVideos(snap, { highlight: false, limit: HOME_HIGHLIGHTS, offset: 0 }).items;
  const featured = featuredEssay(snap);
  return {
    digest: digest ? { date: digest.date, title: digest.title, content: digest.content, url: digestItem(digest).url } : null,
    highlights,
    feature: featured ? essayItem(snap, featured) : null,
    latestEssays: snap.essays.filter((e) => e !== featured).slice(0, 4).map((e) => essayItem(snap, e)),
    meta: { title: site.siteName, description: site.description, path: '/', jsonTwin: '/api/latest' },
    siteName: site.siteName,
    description: site.description,
  };
}

export function videosIndexModel(snap: Snapshot) {
  const page = listVideos(snap, { highlight: false, limit: VIDEOS_SHOWN, offset: 0 });
  return {
    page,
    meta: { title: t('en', 'videos.title'), description: t('en', 'videos.description', { total: page.total }), path: '/videos', jsonTwin: '/api/videos' },
  };
}

export function videoModel(snap: Snapshot, id: string) {
  const v = getVideo(snap, id, { agent: false })!;
  return {
    v,
    meta: {
      title: v.title,
      description: truncate(v.summary || t(v.language, 'item.videoFrom', { channel: v.channel.name }), 200),
      path: v.url,
      lang: v.language,
      jsonTwin: v.api_url,
      ogType: 'video.other' as const,
      image: { url: videoThumbnailPath(v.video_id), alt: v.title },
      scripts: ['/assets/related.js', '/assets/comments.js'],
    },
  };
}

export function channelsIndexModel(snap: Snapshot) {
  return {
    channels: listChannels(snap),
    meta: { title: t('en', 'channels.title'), description: t('en', 'channels.description'), path: '/channels', jsonTwin: '/api/channels' },
  };
}

/** One page of a channel's videos (page 1 at /channels/<id>, then /channels/<id>/page/<n>). */
export function channelModel(snap: Snapshot, channelId: string, page: number) {
  const c = getChannel(snap, channelId, { limit: CHANNEL_PAGE_SIZE, offset: (page - 1) * CHANNEL_PAGE_SIZE })!;
  const pages = Math.max(1, Math.ceil(c.video_count / CHANNEL_PAGE_SIZE));
  const base = `/channels/${c.channel_id}`;
  return {
    c,
    page,
    pages,
    base,
    meta: {
      title: page > 1 ? t(c.language, 'paging.titled', { title: c.name, n: page }) : c.name,
      description: truncate(c.description, 200),
      path: pageUrl(base, page),
      lang: c.language,
      jsonTwin: page > 1 ? `/api/channels/${c.channel_id}?limit=${CHANNEL_PAGE_SIZE}&offset=${(page - 1) * CHANNEL_PAGE_SIZE}` : `/api/channels/${c.channel_id}`,
    },
  };
}

export function channelPageCount(snap: Snapshot, channelId: string): number {
  return Math.ceil((snap.videosByChannel.get(channelId)?.length ?? 0) / CHANNEL_PAGE_SIZE);
}

export function tagsIndexModel(snap: Snapshot) {
  return {
    tags: listTags(snap),
    meta: { title: t('en', 'tags.title'), description: t('en', 'tags.description'), path: '/tags', jsonTwin: '/api/tags' },
  };
}

export function tagModel(snap: Snapshot, tag: string) {
  return {
    tag,
    videos: listVideos(snap, { tag, highlight: false, limit: TAG_PAGE_VIDEOS, offset: 0 }),
    essays: taggedItems(snap, tag).essays.map((e) => essayItem(snap, e)),
    concepts: listKnowledge(snap, { draft: false, tag }).items,
    meta: { title: t('en', 'tags.tagged', { tag }), description: t('en', 'tags.taggedDescription', { tag }), path: `/tags/${tag}`, jsonTwin: `/api/videos?tag=${encodeURIComponent(tag)}` },
  };
}

export function essaysIndexModel(snap: Snapshot) {
  const essays = listEssays(snap);
  return {
    essays,
    /** slug → what the "Also in" links need. */
    refs: Object.fromEntries(essays.items.map((e) => [e.slug, essayRef(snap.essaysBySlug.get(e.slug)!)])),
    meta: { title: t('en', 'essays.title'), description: t('en', 'essays.description'), path: '/essays', jsonTwin: '/api/essays' },
  };
}

/** An essay in one language: the primary at /essays/<slug>, the others at /essays/<slug>/<lang>. */
export function essayModel(snap: Snapshot, slug: string, lang: Lang) {
  const essay = snap.essaysBySlug.get(slug)!;
  const e = getEssay(snap, slug, { agent: false, lang })!;
  const video = e.video_id ? snap.videosById.get(e.video_id) : undefined;
  return {
    slug,
    lang,
    e,
    essay: essayRef(essay),
    video: video ? { video_id: video.video_id, title: video.title, language: video.language } : null,
    meta: {
      title: e.title,
      description: e.description,
      path: essayPath(essay, lang),
      lang,
      jsonTwin: lang === essay.primary ? e.api_url : `${e.api_url}?lang=${lang}`,
      ogType: 'article' as const,
      image: { url: e.thumbnail, width: 1280, height: 720, alt: e.title },
      alternates: essay.languages.length > 1 ? essay.languages.map((l) => ({ lang: l, path: essayPath(essay, l) })) : undefined,
      scripts: ['/assets/related.js', '/assets/comments.js'],
    },
  };
}

export function digestsIndexModel(snap: Snapshot) {
  return {
    digests: listDigests(snap, {}),
    meta: { title: t('en', 'digests.title'), description: t('en', 'digests.description'), path: '/digests', jsonTwin: '/api/digests' },
  };
}

/** Each digest's place in the snapshot's newest-first list, made once per snapshot (not a scan per page). */
const digestPositions = new WeakMap<Snapshot, Map<string, number>>();
export function digestPosition(snap: Snapshot, date: string): number {
  let positions = digestPositions.get(snap);
  if (!positions) {
    positions = new Map(snap.digests.map((x, i) => [x.date, i]));
    digestPositions.set(snap, positions);
  }
  return positions.get(date) ?? -1;
}

export function digestModel(snap: Snapshot, date: string) {
  const d = getDigest(snap, date, { agent: false })!;
  const i = digestPosition(snap, d.date);
  const newer = snap.digests[i - 1];
  const older = snap.digests[i + 1];
  return {
    d,
    newer: newer ? { date: newer.date } : null,
    older: older ? { date: older.date } : null,
    meta: {
      title: d.title,
      description: d.intro,
      path: d.url,
      jsonTwin: d.api_url,
      ogType: 'article' as const,
      image: { url: d.thumbnail, width: 1280, height: 720, alt: d.title },
      scripts: ['/assets/related.js', '/assets/comments.js'],
    },
  };
}

export function personasIndexModel(snap: Snapshot) {
  return {
    personas: listPersonas(snap),
    meta: { title: t('en', 'personas.title'), description: t('en', 'personas.description'), path: '/personas', jsonTwin: '/api/personas' },
  };
}

export function personaModel(snap: Snapshot, id: string) {
  const p = getPersona(snap, id, { agent: false })!;
  return { p, meta: { title: p.name, description: p.description, path: p.url, jsonTwin: p.api_url, ogType: 'profile' as const, scripts: ['/assets/related.js', '/assets/comments.js'] } };
}

export function knowledgeIndexModel(snap: Snapshot) {
  return {
    concepts: listKnowledge(snap, { draft: false }),
    meta: { title: t('en', 'knowledge.title'), description: t('en', 'knowledge.description'), path: '/knowledge', jsonTwin: '/api/knowledge' },
  };
}

export function conceptModel(snap: Snapshot, slug: string) {
  const c = getConcept(snap, slug, { agent: false })!;
  return { c, meta: { title: c.title, description: c.summary, path: c.url, jsonTwin: c.api_url, ogType: 'article' as const, scripts: ['/assets/related.js', '/assets/comments.js'] } };
}
