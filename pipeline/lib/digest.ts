// build-digest: the day's digest in the spec's exact shape. For date D it takes the videos of D-1,
// highlights first, then for diversity across channels and tags; with fewer than five it reaches back
// day by day and says so in the intro. A digest an editor changed is never overwritten.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { contentCacheDir } from '../../src/lib/content/parse-cache.ts';
import type { Video } from '../../src/lib/content/model.ts';
import { parseDigest } from '../../src/lib/content/markdown.ts';
import type { JobContext, JobResult } from './types.ts';
import { writeFileAtomic } from '../../src/lib/fs-atomic.ts';
import { sentences } from '../../src/lib/text/words.ts';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const longDate = (d: string) => {
  const [y, m, day] = d.split('-').map(Number);
  return `${day} ${MONTHS[m - 1]} ${y}`;
};
const dayBefore = (d: string, n = 1) => new Date(Date.parse(`${d}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
const MAX_REACH_BACK_DAYS = 14;

/** Up to `n` more videos: highlights first, then greedily the one adding the most new channels and tags. */
export function pickDiverse(candidates: Video[], n: number, already: Video[] = []): Video[] {
  const picked: Video[] = [...already];
  const pool = [...candidates];
  while (picked.length < already.length + n && pool.length > 0) {
    const channels = new Set(picked.map((v) => v.channel));
    const tags = new Set(picked.flatMap((v) => v.tags));
    let best = 0;
    let bestScore = -Infinity;
    pool.forEach((v, i) => {
      const newTags = v.tags.filter((t) => !tags.has(t)).length;
      const score = (v.highlight ? 10 : 0) + (channels.has(v.channel) ? 0 : 2) + newTags + (v.summary ? 1 : 0) - i * 0.01;
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    });
    picked.push(pool.splice(best, 1)[0]);
  }
  return picked.slice(already.length);
}

const linkText = (s: string) => s.replace(/([[\]\\])/g, '\\$1');
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function paragraphFor(v: Video): string {
  const text = v.summary || v.transcript || v.title;
  const two = sentences(text, v.language).slice(0, 2).join(' ');
  return oneLine(two || text).slice(0, 700);
}

export function renderDigest(date: string, videos: Video[], window: { from: string; to: string }): string {
  const yesterday = dayBefore(date);
  const topTags = [...videos.flatMap((v) => v.tags).reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map<string, number>())]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 3)
    .map(([t]) => t.replace(/-/g, ' '));
  const intro =
    window.from < yesterday
      ? `Fewer than five videos arrived on ${longDate(yesterday)}, so this digest reaches back to ${longDate(window.from)}.`
      : `Five videos from ${longDate(yesterday)}${topTags.length ? `, on ${topTags.join(', ')}` : ''}.`;
  const items = videos.map(
    (v, i) => `## ${i + 1}. ${oneLine(v.title)}\n\n${paragraphFor(v)}\n\nSources: [${linkText(oneLine(v.title))}](/videos/${v.video_id})`,
  );
  return `---\ndate: ${date}\n---\n# AI Transformation Daily — ${longDate(date)}\n\n${intro}\n\n${items.join('\n\n')}\n`;
}

interface Ledger {
  [date: string]: string;
}
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

export async function buildDigest(ctx: JobContext): Promise<JobResult> {
  const date = ctx.options.date ?? ctx.now().toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) throw new Error(`--date must be YYYY-MM-DD, not "${date}"`);
  const snap = loadSnapshot(ctx.contentDir, { cacheDir: contentCacheDir(ctx.dataDir), lenient: true });
  const file = path.join(ctx.contentDir, 'digests', `${date}.md`);
  const ledgerFile = path.join(ctx.dataDir, 'pipeline', 'digests.json');
  let ledger: Ledger = {};
  try {
    ledger = JSON.parse(fs.readFileSync(ledgerFile, 'utf8'));
  } catch {
    /* first run */
  }
  if (fs.existsSync(file) && ledger[date] !== sha(fs.readFileSync(file, 'utf8'))) {
    ctx.log(`build-digest: digests/${date}.md was written or edited by a person; left as it is`);
    return { counts: { written: 0, kept: 1 }, changed: false, errors: [] };
  }
  // The previous day's videos first; only when they are fewer than five, earlier days, one at a time.
  const to = dayBefore(date);
  const picked: Video[] = [];
  for (let back = 0; picked.length < 5 && back <= MAX_REACH_BACK_DAYS; back++) {
    const day = dayBefore(to, back);
    picked.push(...pickDiverse(snap.videos.filter((v) => v.date === day), 5 - picked.length, picked));
  }
  if (picked.length < 5) {
    throw new Error(`only ${picked.length} videos between ${dayBefore(to, MAX_REACH_BACK_DAYS)} and ${to}; a digest needs five`);
  }
  const oldest = picked.reduce((m, v) => (v.date < m ? v.date : m), to);
  const text = renderDigest(date, picked, { from: oldest, to });
  parseDigest(date, text.slice(text.indexOf('---\n', 4) + 4)); // never write a digest the loader would refuse
  writeFileAtomic(file, text);
  ledger[date] = sha(text);
  writeFileAtomic(ledgerFile, JSON.stringify(ledger, null, 2) + '\n');
  ctx.log(`build-digest: digests/${date}.md written from ${picked.length} videos (${oldest}..${to})`);
  return { counts: { written: 1, videos: picked.length }, changed: true, errors: [] };
}
