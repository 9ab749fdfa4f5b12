// ingest-videos: new videos from the channels' feeds and from the manual inbox (content/inbox/*.json)
// become files in content/videos/. Re-running adds nothing; an existing file is never overwritten; a
// failing feed is reported in one line and the other channels still run.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { loadChannels } from '../../src/lib/content/load.ts';
import { Lang, Slug, Tag, VideoId } from '../../src/lib/content/schema.ts';
import type { JobContext, JobResult } from './types.ts';
import { HttpCache, fetchText } from './http.ts';
import { parseYouTubeFeed } from './youtube-feed.ts';
import { createVideo } from './video-files.ts';
import { progress } from './progress.ts';

const InboxEntry = z.strictObject({
  video_id: VideoId,
  title: z.string().min(1).max(300),
  channel: Slug,
  date: z.iso.date().optional(),
  url: z.url().optional(),
  description: z.string().max(20_000).default(''),
  language: Lang.optional(),
  tags: z.array(Tag).max(12).default([]),
  highlight: z.boolean().default(false),
});
const InboxFile = z.union([InboxEntry, z.array(InboxEntry)]);

/** Feeds fetched at once (PIPELINE_FETCH_CONCURRENCY): polite to one host, and enough to hide its latency. */
const FETCH_CONCURRENCY = 8;

export async function ingestVideos(ctx: JobContext): Promise<JobResult> {
  // The channels and the ids of the videos present, not the whole corpus: at 100k videos a full load takes
  // seconds, and a run that finds nothing new should not. (createVideo never overwrites a file anyway.)
  // Lenient: a channel file an editor got wrong is skipped this time (update-index reports it), not the run.
  const snap = loadChannels(ctx.contentDir, { lenient: true });
  for (const p of snap.problems) ctx.log(`ingest-videos: skipping a channel that fails validation: ${p}`);
  const cache = new HttpCache(ctx.dataDir);
  const errors: string[] = [];
  let added = 0;
  let unchanged = 0;
  let fetched = 0;
  const known = new Set(snap.videoIds);
  const timeoutMs = Number(ctx.options.timeout_ms ?? process.env.PIPELINE_FETCH_TIMEOUT_MS ?? 10_000);
  const retries = Number(ctx.options.retries ?? process.env.PIPELINE_FETCH_RETRIES ?? 3);
  const backoffMs = Number(ctx.options.backoff_ms ?? process.env.PIPELINE_FETCH_BACKOFF_MS ?? 500);

  const concurrency = Math.max(1, Math.floor(Number(ctx.options.concurrency ?? process.env.PIPELINE_FETCH_CONCURRENCY ?? FETCH_CONCURRENCY)) || FETCH_CONCURRENCY);

  const bar = progress('ingest-videos', snap.channels.length);
  // Feeds are fetched several at a time (over the internet each takes ~0.1-0.5 s, and one after another
  // 50 channels took seconds), and taken in channel by channel, in order: the files written and the errors
  // reported are those of a run that fetched one after another.
  type Fetched = { res: Awaited<ReturnType<typeof fetchText>> } | { err: unknown };
  const fetches: Promise<Fetched>[] = [];
  const startFetches = (upTo: number) => {
    for (let i = fetches.length; i < Math.min(upTo, snap.channels.length); i++) {
      fetches.push(fetchText(snap.channels[i].feed_url, cache, { timeoutMs, retries, backoffMs }).then((res) => ({ res }), (err: unknown) => ({ err })));
    }
  };
  for (const [i, channel] of snap.channels.entries()) {
    startFetches(i + concurrency);
    const outcome = await fetches[i];
    try {
      if ('err' in outcome) throw outcome.err;
      const res = outcome.res;
      if (res === null) {
        unchanged++;
      } else {
        fetched++;
        for (const e of parseYouTubeFeed(res.body)) {
          if (known.has(e.videoId)) continue;
          const wrote = createVideo(ctx.contentDir, {
            video_id: e.videoId,
            title: e.title,
            date: new Date(e.published).toISOString().slice(0, 10),
            channel: channel.channel_id,
            language: channel.language,
            tags: [],
            summary: '', // the summarise job fills it in
            thumbnail_url: e.thumbnailUrl ?? `https://i.ytimg.com/vi/${e.videoId}/hqdefault.jpg`,
            url: e.url,
            highlight: false,
            transcript: e.description,
          });
          known.add(e.videoId);
          if (wrote) added++;
        }
        res.commit(); // remember the validators only once the whole feed was taken in
      }
    } catch (err) {
      errors.push(`channel ${channel.channel_id} (${channel.feed_url}): ${(err as Error).message}`);
    }
    bar.tick();
  }
  bar.done();
  cache.save();

  // The manual inbox: JSON files of one entry or a list; a processed file moves to inbox/processed/.
  const inbox = path.join(ctx.contentDir, 'inbox');
  for (const name of fs.existsSync(inbox) ? fs.readdirSync(inbox).filter((f) => f.endsWith('.json')).sort() : []) {
    const file = path.join(inbox, name);
    let entries: z.infer<typeof InboxEntry>[];
    try {
      const parsed = InboxFile.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
      if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.') || '(entry)'}: ${i.message}`).join(', '));
      entries = Array.isArray(parsed.data) ? parsed.data : [parsed.data];
      const unknown = entries.filter((e) => !snap.channelsById.has(e.channel)).map((e) => e.channel);
      if (unknown.length) throw new Error(`unknown channel ${[...new Set(unknown)].map((c) => `"${c}"`).join(', ')}`);
    } catch (err) {
      errors.push(`inbox/${name}: ${(err as Error).message}`);
      continue;
    }
    for (const e of entries) {
      if (known.has(e.video_id)) continue;
      const channel = snap.channelsById.get(e.channel)!;
      if (createVideo(ctx.contentDir, {
        video_id: e.video_id,
        title: e.title,
        date: e.date ?? ctx.now().toISOString().slice(0, 10),
        channel: e.channel,
        language: e.language ?? channel.language,
        tags: e.tags,
        summary: '',
        thumbnail_url: `https://i.ytimg.com/vi/${e.video_id}/hqdefault.jpg`,
        url: e.url ?? `https://www.youtube.com/watch?v=${e.video_id}`,
        highlight: e.highlight,
        transcript: e.description,
      })) added++;
      known.add(e.video_id);
    }
    fs.mkdirSync(path.join(inbox, 'processed'), { recursive: true });
    fs.renameSync(file, path.join(inbox, 'processed', name));
  }
  ctx.log(`ingest-videos: ${added} new, ${fetched} feeds fetched, ${unchanged} unchanged, ${errors.length} errors`);
  return { counts: { added, feeds_fetched: fetched, feeds_unchanged: unchanged, errors: errors.length }, changed: added > 0, errors };
}
