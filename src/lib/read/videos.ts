// Video reads: the filtered, paged list and one video, with the spec's fields.
import type { Snapshot, Video } from '../content/model.ts';
import { apiUrl, itemUrl, page, pageUrl, type LinkOptions, type Page } from './links.ts';
import { taggedItems } from './tags.ts';

export interface VideoListParams {
  channel?: string;
  tag?: string;
  limit: number;
  offset: number;
  highlight: boolean;
  since?: string;
  /** Links in the agent form (/api/videos/<id>?agent=true). */
  agent?: boolean;
}

export const VIDEO_LIST_DEFAULTS: VideoListParams = { limit: 50, offset: 0, highlight: false };

export function videoItem(snap: Snapshot, v: Video, agent = false, origin = '') {
  const channel = snap.channelsById.get(v.channel)!;
  return {
    video_id: v.video_id,
    title: v.title,
    date: v.date,
    channel: { channel_id: channel.channel_id, name: channel.name, url: apiUrl('channels', channel.channel_id) },
    language: v.language,
    tags: v.tags,
    summary: v.summary,
    thumbnail_url: v.thumbnail_url,
    highlight: v.highlight,
    source_url: v.url,
    url: itemUrl('videos', v.video_id, agent),
    api_url: apiUrl('videos', v.video_id),
    page_url: pageUrl('videos', v.video_id, origin),
  };
}
export type VideoItem = ReturnType<typeof videoItem>;

export function listVideos(snap: Snapshot, params: VideoListParams, origin = ''): Page<VideoItem> {
  const pool = params.tag === undefined ? snap.videos : taggedItems(snap, params.tag).videos;
  const matching = pool.filter(
    (v) =>
      (params.channel === undefined || v.channel === params.channel) &&
      (!params.highlight || v.highlight) &&
      (params.since === undefined || v.date >= params.since),
  );
  const p = page(matching, params.limit, params.offset);
  return { ...p, items: p.items.map((v) => videoItem(snap, v, params.agent ?? false, origin)) };
}

export function getVideo(snap: Snapshot, videoId: string, opts: LinkOptions) {
  const v = snap.videosById.get(videoId);
  if (!v) return null;
  return {
    ...videoItem(snap, v, opts.agent, opts.origin),
    transcript: v.transcript || null,
    digests: (snap.digestsByVideo.get(videoId) ?? []).map((d) => ({ date: d.date, title: d.title, url: itemUrl('digests', d.date, opts.agent), page_url: pageUrl('digests', d.date, opts.origin) })),
    knowledge: (snap.conceptsByVideo.get(videoId) ?? []).map((c) => ({ slug: c.slug, title: c.title, url: itemUrl('knowledge', c.slug, opts.agent), page_url: pageUrl('knowledge', c.slug, opts.origin) })),
  };
}
