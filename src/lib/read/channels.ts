// Channel reads: all channels with their video counts, and one channel with its videos paged.
import type { Channel, Snapshot } from '../content/model.ts';
import { apiUrl, page, pageUrl } from './links.ts';
import { videoItem } from './videos.ts';

export interface ChannelParams {
  limit: number;
  offset: number;
  /** Links in the agent form. */
  agent?: boolean;
}
export const CHANNEL_DEFAULTS: ChannelParams = { limit: 50, offset: 0 };

function channelItem(snap: Snapshot, c: Channel, origin = '') {
  const videos = snap.videosByChannel.get(c.channel_id) ?? [];
  return {
    channel_id: c.channel_id,
    name: c.name,
    description: c.description,
    language: c.language,
    source_url: c.url,
    video_count: videos.length,
    last_video_date: videos.length > 0 ? videos[0].date : null,
    url: apiUrl('channels', c.channel_id),
    page_url: pageUrl('channels', c.channel_id, origin),
  };
}

export function listChannels(snap: Snapshot, origin = '') {
  return { total: snap.channels.length, items: snap.channels.map((c) => channelItem(snap, c, origin)) };
}

export function getChannel(snap: Snapshot, channelId: string, params: ChannelParams, origin = '') {
  const c = snap.channelsById.get(channelId);
  if (!c) return null;
  const videos = page(snap.videosByChannel.get(channelId) ?? [], params.limit, params.offset);
  return {
    ...channelItem(snap, c, origin),
    about: c.body || null,
    videos: { ...videos, items: videos.items.map((v) => videoItem(snap, v, params.agent ?? false, origin)) },
  };
}
