// Tag reads: every tag in use with how often videos, essays and concepts carry it.
import { essayIn, type Concept, type Essay, type Snapshot, type Video } from '../content/model.ts';

export interface Tagged {
  videos: Video[];
  essays: Essay[];
  /** Drafts included. */
  concepts: Concept[];
}

/** Each tag's items, in the snapshot's order: one pass per snapshot instead of a scan of every item per tag. */
const tagIndexes = new WeakMap<Snapshot, Map<string, Tagged>>();
const NONE: Tagged = { videos: [], essays: [], concepts: [] };

/** The videos, essays (by their primary language's tags) and concepts carrying a tag, in snapshot order. */
export function taggedItems(snap: Snapshot, tag: string): Tagged {
  let index = tagIndexes.get(snap);
  if (!index) {
    const ix = new Map<string, Tagged>();
    const entry = (t: string) => {
      let e = ix.get(t);
      if (!e) ix.set(t, (e = { videos: [], essays: [], concepts: [] }));
      return e;
    };
    // An item that lists a tag twice is listed once, as a filter over the items would.
    for (const v of snap.videos) for (const t of new Set(v.tags)) entry(t).videos.push(v);
    for (const e of snap.essays) for (const t of new Set(essayIn(e).tags)) entry(t).essays.push(e);
    for (const c of snap.concepts) for (const t of new Set(c.tags)) entry(t).concepts.push(c);
    tagIndexes.set(snap, (index = ix));
  }
  return index.get(tag) ?? NONE;
}

/** Every tag with its counts, most used first; made once per snapshot (a build asks for it six times). */
const tagLists = new WeakMap<Snapshot, ReturnType<typeof countTags>>();
export function listTags(snap: Snapshot): ReturnType<typeof countTags> {
  let list = tagLists.get(snap);
  if (!list) tagLists.set(snap, (list = countTags(snap)));
  return list;
}

function countTags(snap: Snapshot) {
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
