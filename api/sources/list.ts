// GET /api/sources: everything the knowledge base can cite, newest first, in one list: videos, essays and
// digests of the content snapshot, web pages and texts people added, published posts, and top-level
// visible comments. Knowledge concepts (derived, not sources) and drafts are never listed.
import type { Db } from '../../src/lib/data/db/index.ts';
import type { Snapshot } from '../../src/lib/content/model.ts';
import { essayIn } from '../../src/lib/content/model.ts';

export const SOURCE_TYPES = ['video', 'essay', 'digest', 'web_page', 'post', 'comment'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export interface SourceItem {
  type: SourceType;
  id: string;
  title: string;
  /** Where to read it: the site page of content, the page's own address for web pages (null for pasted text). */
  url: string | null;
  /** YYYY-MM-DD */
  date: string;
  excerpt: string;
  [extra: string]: unknown;
}

/** Sort key: an ISO timestamp; content dates count as the start of their day. */
interface Keyed {
  key: string;
  item: SourceItem;
}

const EXCERPT = 280;
const excerpt = (s: string) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length <= EXCERPT ? t : `${t.slice(0, EXCERPT - 1).trimEnd()}…`;
};

/** Newest first; ties by type, then id descending, so pages never overlap or skip. */
function compare(a: Keyed, b: Keyed): number {
  if (a.key !== b.key) return a.key < b.key ? 1 : -1;
  if (a.item.type !== b.item.type) return a.item.type < b.item.type ? -1 : 1;
  return a.item.id < b.item.id ? 1 : a.item.id > b.item.id ? -1 : 0;
}

const contentCache = new WeakMap<Snapshot, Keyed[]>();

function contentSources(s: Snapshot): Keyed[] {
  let list = contentCache.get(s);
  if (list) return list;
  list = [];
  for (const v of s.videos) {
    list.push({ key: `${v.date}T00:00:00.000Z`, item: { type: 'video', id: v.video_id, title: v.title, url: `/videos/${v.video_id}`, date: v.date, excerpt: excerpt(v.summary), api_url: `/api/videos/${v.video_id}`, source_url: v.url } });
  }
  for (const e of s.essays) {
    const t = essayIn(e);
    list.push({ key: `${t.date}T00:00:00.000Z`, item: { type: 'essay', id: e.slug, title: t.title, url: `/essays/${e.slug}`, date: t.date, excerpt: excerpt(t.description), api_url: `/api/essays/${e.slug}`, languages: e.languages } });
  }
  for (const d of s.digests) {
    list.push({ key: `${d.date}T00:00:00.000Z`, item: { type: 'digest', id: d.date, title: d.title, url: `/digests/${d.date}`, date: d.date, excerpt: excerpt(d.intro), api_url: `/api/digests/${d.date}` } });
  }
  list.sort(compare);
  contentCache.set(s, list);
  return list;
}

interface DbStream {
  type: SourceType;
  count(): Promise<number>;
  /** The first `n` in this stream's order (created desc, id desc). */
  first(n: number): Promise<Keyed[]>;
}

const ENTITY_PAGE: Record<string, string> = { video: 'videos', essay: 'essays', digest: 'digests', knowledge: 'knowledge', persona: 'personas' };

function dbStreams(db: Db): DbStream[] {
  // Comments are sources when top-level, visible and not deleted; on a post, only while the post is public.
  const commentWhere = `c.parent_id IS NULL AND c.hidden = 0 AND c.deleted_at IS NULL
    AND (c.entity_type <> 'post' OR EXISTS (SELECT 1 FROM posts p WHERE p.id = c.entity_id AND p.status = 'published' AND p.deleted_at IS NULL))`;
  const postWhere = `status = 'published' AND deleted_at IS NULL AND published_at IS NOT NULL`;
  return [
    {
      type: 'web_page',
      count: async () => (await db.prepare('SELECT COUNT(*) FROM sources').pluck().get()) as number,
      first: async (n) =>
        ((await db.prepare('SELECT id, type, url, canonical_url, title, substr(text, 1, 400) AS text, created_at FROM sources ORDER BY created_at DESC, id DESC LIMIT ?').all(n)) as {
          id: string; type: string; url: string | null; canonical_url: string | null; title: string; text: string; created_at: string;
        }[]).map((r) => ({
          key: r.created_at,
          item: { type: 'web_page', id: r.id, title: r.title, url: r.url, date: r.created_at.slice(0, 10), excerpt: excerpt(r.text), canonical_url: r.canonical_url, origin: r.type === 'text' ? 'pasted_text' : 'fetched', created_at: r.created_at },
        })),
    },
    {
      type: 'post',
      count: async () => (await db.prepare(`SELECT COUNT(*) FROM posts WHERE ${postWhere}`).pluck().get()) as number,
      first: async (n) =>
        ((await db.prepare(`SELECT id, slug, title, summary, published_at FROM posts WHERE ${postWhere} ORDER BY published_at DESC, id DESC LIMIT ?`).all(n)) as {
          id: string; slug: string; title: string; summary: string; published_at: string;
        }[]).map((r) => ({
          key: r.published_at,
          item: { type: 'post', id: r.id, title: r.title, url: `/api/posts/${r.slug}`, date: r.published_at.slice(0, 10), excerpt: excerpt(r.summary), slug: r.slug, created_at: r.published_at },
        })),
    },
    {
      type: 'comment',
      count: async () => (await db.prepare(`SELECT COUNT(*) FROM comments c WHERE ${commentWhere}`).pluck().get()) as number,
      first: async (n) =>
        ((await db.prepare(`SELECT c.id, c.entity_type, c.entity_id, substr(c.body, 1, 400) AS body, c.created_at FROM comments c WHERE ${commentWhere} ORDER BY c.created_at DESC, c.id DESC LIMIT ?`).all(n)) as {
          id: string; entity_type: string; entity_id: string; body: string; created_at: string;
        }[]).map((r) => ({
          key: r.created_at,
          item: {
            type: 'comment',
            id: r.id,
            title: `Comment on ${r.entity_type} ${r.entity_id}`,
            url: r.entity_type === 'post' ? `/api/posts/${r.entity_id}#comment-${r.id}` : `/${ENTITY_PAGE[r.entity_type]}/${r.entity_id}#comment-${r.id}`,
            date: r.created_at.slice(0, 10),
            excerpt: excerpt(r.body),
            entity_type: r.entity_type,
            entity_id: r.entity_id,
            created_at: r.created_at,
          },
        })),
    },
  ];
}

export async function listSources(db: Db, snapshot: Snapshot, q: { types: SourceType[]; limit: number; offset: number }) {
  const wanted = new Set<SourceType>(q.types.length ? q.types : SOURCE_TYPES);
  const content = contentSources(snapshot).filter((k) => wanted.has(k.item.type));
  const streams = dbStreams(db).filter((s) => wanted.has(s.type));
  // Each stream is already in the global order, so the page lies within the first offset+limit of each.
  const need = q.offset + q.limit;
  const [counts, firsts] = await Promise.all([Promise.all(streams.map((s) => s.count())), Promise.all(streams.map((s) => s.first(need)))]);
  const total = content.length + counts.reduce((n, c) => n + c, 0);
  const merged = [...content.slice(0, need), ...firsts.flat()].sort(compare);
  return { total, limit: q.limit, offset: q.offset, items: merged.slice(q.offset, need).map((k) => k.item) };
}
