// Tag reads: every tag in use with how often videos, essays and concepts carry it.
import { essayIn, type Snapshot } from '../content/model.ts';

export function listTags(snap: Snapshot) {
  const counts = new Map<string, { videos: number; essays: number; knowledge: number }>();
  const bump = (tag: string, key: 'videos' | 'essays' | 'knowledge') => {
    const c = counts.get(tag) ?? { videos: 0, essays: 0, knowledge: 0 };
    c[key]++;
    counts.set(tag, c);
  };
  for (const v of snap.videos) for (const t of v.tags) bump(t, 'videos');
  for (const e of snap.essays) for (const t of essayIn(e).tags) bump(t, 'essays');
  for (const c of snap.concepts) if (!c.draft) for (const t of c.tags) bump(t, 'knowledge');
  const items = [...counts]
    .map(([tag, c]) => ({ tag, count: c.videos + c.essays + c.knowledge, ...c, videos_url: `/api/videos?tag=${encodeURIComponent(tag)}` }))
    .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : 1));
  return { total: items.length, items };
}
