// summarise: videos still without a summary get one — from the configured OpenAI-compatible LLM when
// there is one, otherwise extractively (TextRank over the transcript or description, in the video's
// language) — and keyword tags from the existing tag vocabulary when they have none.
import path from 'node:path';
import { withWrites } from '../../src/lib/content/files.ts';
import { contentCacheDir } from '../../src/lib/content/parse-cache.ts';
import type { JobContext, JobResult } from './types.ts';
import { keywordTags, textRank } from './textrank.ts';
import { updateFrontMatter } from './video-files.ts';
import { progress } from './progress.ts';
import { videosToSummarise } from './summarise-record.ts';

export interface Summariser {
  name: string;
  summarise(input: { title: string; text: string; lang: 'en' | 'sl'; vocabulary: string[] }): Promise<{ summary: string; tags: string[] }>;
}

export const extractiveSummariser: Summariser = {
  name: 'textrank',
  async summarise({ title, text, lang, vocabulary }) {
    const source = text.trim() || title;
    const summary = textRank(source, lang, 3).join(' ') || title;
    return { summary, tags: keywordTags(`${title}. ${source}`, vocabulary) };
  },
};

export async function summariseVideos(ctx: JobContext, summariser: Summariser = extractiveSummariser): Promise<JobResult> {
  // The videos alone, from summarise's record of them (summarise-record.ts): assembling the whole corpus cost
  // ~5 s at 100k videos, reading the parses of every video 3.3 s. A video file that fails validation is not
  // summarised (update-index reports it).
  const { todo, vocabulary, listing } = videosToSummarise(ctx.contentDir, contentCacheDir(ctx.dataDir));
  const errors: string[] = [];
  /** The video files written, by path under content/: handed on with the listing (ChainState.videos). */
  const written = new Map<string, string>();
  let done = 0;
  const bar = progress(`summarise (${summariser.name})`, todo.length);
  for (const v of todo) {
    try {
      const r = await summariser.summarise({ title: v.title, text: v.transcript, lang: v.language, vocabulary });
      if (!r.summary.trim()) throw new Error('empty summary');
      const rel = `videos/${v.video_id}.md`;
      const text = updateFrontMatter(path.join(ctx.contentDir, rel), {
        summary: r.summary.trim(),
        ...(v.tags.length === 0 ? { tags: r.tags } : {}),
      });
      written.set(rel, text);
      done++;
    } catch (err) {
      errors.push(`video ${v.video_id}: ${(err as Error).message}`);
    }
    bar.tick();
  }
  bar.done();
  if (ctx.chain) ctx.chain.videos = withWrites(listing, written);
  ctx.log(`summarise: ${done} of ${todo.length} videos summarised with ${summariser.name}`);
  return { counts: { summarised: done, waiting: todo.length - done }, changed: done > 0, errors };
}
