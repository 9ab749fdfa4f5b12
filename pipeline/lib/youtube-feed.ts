// YouTube channel feeds (Atom with the yt: and media: namespaces), parsed with a real XML parser.
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export interface FeedEntry {
  videoId: string;
  title: string;
  published: string;
  url: string;
  description: string;
  thumbnailUrl: string | null;
}

export class FeedError extends Error {}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', isArray: (name) => name === 'entry' || name === 'link' });

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : typeof v === 'object' && v && '#text' in v ? String((v as { '#text': unknown })['#text']) : '');

export function parseYouTubeFeed(xml: string): FeedEntry[] {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new FeedError(`malformed feed: ${valid.err.msg} (line ${valid.err.line})`);
  const doc = parser.parse(xml) as { feed?: { entry?: Record<string, unknown>[] } };
  if (!doc.feed) throw new FeedError('not an Atom feed (no <feed> element)');
  const entries: FeedEntry[] = [];
  for (const e of doc.feed.entry ?? []) {
    const videoId = text(e['yt:videoId']).trim();
    const title = text(e.title).trim();
    const published = text(e.published).trim();
    if (!/^[A-Za-z0-9_-]{6,32}$/.test(videoId) || !title || Number.isNaN(Date.parse(published))) {
      throw new FeedError(`malformed entry ${videoId || '(no yt:videoId)'}: needs yt:videoId, title and published`);
    }
    const group = (e['media:group'] ?? {}) as Record<string, unknown>;
    const links = (e.link as { '@href'?: string; '@rel'?: string }[] | undefined) ?? [];
    const thumb = group['media:thumbnail'] as { '@url'?: string } | undefined;
    entries.push({
      videoId,
      title,
      published,
      url: links.find((l) => l['@rel'] === 'alternate')?.['@href'] ?? `https://www.youtube.com/watch?v=${videoId}`,
      description: text(group['media:description']).trim(),
      thumbnailUrl: thumb?.['@url'] ?? null,
    });
  }
  return entries;
}
