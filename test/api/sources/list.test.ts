// GET /api/sources: one newest-first feed of content, added pages, published posts and top-level visible
// comments; never knowledge concepts, drafts, replies, hidden or deleted comments; type filter and paging.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { fixtureContent } from '../../helpers/content.ts';

const snap = loadSnapshot(fixtureContent());
const contentCount = snap.videos.length + snap.essays.length + snap.digests.length;
let srv: TestServer;
let send: Send;

type Item = { type: string; id: string; date: string; title: string; url: string | null; excerpt: string; created_at?: string };

beforeAll(async () => {
  srv = await startTestServer({ env: { WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
  send = sender(srv);
  const ana = await (await sessionFor(srv, 'ana@example.org', 'Ana')).userId;
  // The posts and comments tables belong to their own features; the feed reads them as they are stored.
  const future = (days: number) => new Date(Date.UTC(2030, 0, 1) + days * 86_400_000).toISOString();
  const post = srv.db.prepare('INSERT INTO posts (id, slug, author_id, title, summary, status, created_at, updated_at, published_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  await post.run('pst_published', 'published-post', ana, 'A published post', 'What we learned.', 'published', future(0), future(0), future(1), null);
  await post.run('pst_draft', 'draft-post', ana, 'A draft post', '', 'draft', future(0), future(0), null, null);
  await post.run('pst_deleted', 'deleted-post', ana, 'A deleted post', '', 'published', future(0), future(0), future(1), future(2));
  const comment = srv.db.prepare('INSERT INTO comments (id, entity_type, entity_id, parent_id, author_id, body, hidden, deleted_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const v = snap.videos[0].video_id;
  await comment.run('cmt_top', 'video', v, null, ana, 'A top-level comment worth citing.', 0, null, future(3), future(3));
  await comment.run('cmt_reply', 'video', v, 'cmt_top', ana, 'A reply.', 0, null, future(4), future(4));
  await comment.run('cmt_hidden', 'video', v, null, ana, 'Hidden.', 1, null, future(5), future(5));
  await comment.run('cmt_deleted', 'video', v, null, ana, '', 0, future(6), future(6), future(6));
  await comment.run('cmt_on_post', 'post', 'pst_published', null, ana, 'On the published post.', 0, null, future(7), future(7));
  await comment.run('cmt_on_draft', 'post', 'pst_draft', null, ana, 'On a draft post.', 0, null, future(8), future(8));
  await srv.db
    .prepare('INSERT INTO sources (id, type, url, canonical_url, title, text, added_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run('src_page', 'web_page', 'https://example.org/a', 'https://example.org/a', 'A page', 'Text of the page.', ana, future(2));
});
afterAll(() => srv.stop());

const all = async (q = ''): Promise<{ total: number; items: Item[] }> => {
  const first = await (await send(`/api/sources?limit=100${q}`)).json();
  const items: Item[] = [...first.items];
  for (let offset = 100; offset < first.total; offset += 100) items.push(...(await (await send(`/api/sources?limit=100&offset=${offset}${q}`)).json()).items);
  return { total: first.total, items };
};

describe('GET /api/sources', () => {
  it('merges content, pages, published posts and top-level visible comments, newest first', async () => {
    const { total, items } = await all();
    expect(total).toBe(contentCount + 1 + 1 + 2);
    expect(items).toHaveLength(total);
    const ids = items.map((i) => `${i.type}:${i.id}`);
    expect(ids.slice(0, 4)).toEqual(['comment:cmt_on_post', 'comment:cmt_top', 'web_page:src_page', 'post:pst_published']);
    for (const gone of ['post:pst_draft', 'post:pst_deleted', 'comment:cmt_reply', 'comment:cmt_hidden', 'comment:cmt_deleted', 'comment:cmt_on_draft']) expect(ids).not.toContain(gone);
    expect(items.some((i) => (i.type as string) === 'knowledge')).toBe(false);
    const dates = items.map((i) => i.created_at ?? `${i.date}T00:00:00.000Z`);
    expect([...dates].sort().reverse()).toEqual(dates);
    const video = items.find((i) => i.type === 'video')!;
    expect(video).toMatchObject({ url: `/videos/${video.id}`, title: snap.videosById.get(video.id)!.title });
    expect(items.find((i) => i.id === 'cmt_top')).toMatchObject({ url: `/videos/${snap.videos[0].video_id}#comment-cmt_top`, excerpt: 'A top-level comment worth citing.' });
    expect(items.find((i) => i.id === 'pst_published')).toMatchObject({ url: '/api/posts/published-post', date: '2030-01-02' });
  });

  it('pages without overlaps or gaps', async () => {
    const { items } = await all();
    const paged: Item[] = [];
    for (let offset = 0; offset < items.length; offset += 7) paged.push(...(await (await send(`/api/sources?limit=7&offset=${offset}`)).json()).items);
    expect(paged.map((i) => i.id)).toEqual(items.map((i) => i.id));
    const page = await (await send('/api/sources?limit=3&offset=2')).json();
    expect(page).toMatchObject({ limit: 3, offset: 2, total: items.length });
    expect(page.items.map((i: Item) => i.id)).toEqual(items.slice(2, 5).map((i) => i.id));
    expect((await (await send('/api/sources')).json()).items).toHaveLength(20);
  });

  it('filters by a comma-separated subset of types', async () => {
    const videos = await all('&type=video');
    expect(videos.total).toBe(snap.videos.length);
    expect(videos.items.every((i) => i.type === 'video')).toBe(true);
    const mixed = await all('&type=essay,digest,comment');
    expect(mixed.total).toBe(snap.essays.length + snap.digests.length + 2);
    expect(new Set(mixed.items.map((i) => i.type))).toEqual(new Set(['essay', 'digest', 'comment']));
    expect((await all('&type=web_page,post')).items.map((i) => i.id)).toEqual(['src_page', 'pst_published']);
  });

  it('answers 422 for unknown types and out-of-bounds paging', async () => {
    for (const q of ['type=knowledge', 'type=video,podcast', 'type=VIDEO', 'limit=0', 'limit=101', 'limit=ten', 'offset=-1', 'offset=1.5']) {
      const res = await send(`/api/sources?${q}`);
      expect(res.status, q).toBe(422);
      expect((await res.json()).detail[0].loc[0]).toBe('query');
    }
    for (const q of ['limit=1', 'limit=100', 'offset=100000', 'type=video,essay,digest,web_page,post,comment']) expect((await send(`/api/sources?${q}`)).status, q).toBe(200);
    expect((await (await send('/api/sources?offset=100000')).json()).items).toEqual([]);
  });
});

describe('/openapi.json', () => {
  it('documents the source endpoints and their schemas', async () => {
    const doc = await (await send('/openapi.json')).json();
    expect(doc.paths['/api/sources'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['limit', 'offset', 'type']);
    expect(doc.paths['/api/sources'].post.description).toMatch(/SSRF/);
    expect(doc.paths['/api/sources/knowledge'].post).toBeDefined();
    for (const name of ['SourceListResponse', 'AddSourceRequest', 'AddKnowledgeRequest']) expect(doc.components.schemas).toHaveProperty(name);
  });
});
