// How published posts reach search: the posts routes' listener, and the sync that fills a new service.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { buildSearchIndex, SearchService } from '../../src/lib/search/index.ts';
import { searchPostListener, syncPublishedPosts } from '../../api/search/posts.ts';
import type { PostRow } from '../../src/lib/data/posts/store.ts';
import { fixtureContent } from '../helpers/content.ts';

const snap = loadSnapshot(fixtureContent());
let dataDir: string;
let service: SearchService;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-posts-search-'));
  service = new SearchService(snap, await buildSearchIndex(snap, { dataDir, embedder: { provider: 'builtin', dimensions: 128 } }));
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const row = (id: string, title: string): PostRow => ({
  id,
  slug: title.toLowerCase().replace(/\W+/g, '-'),
  author_id: 'u1',
  title,
  summary: 'A field report.',
  tags: '["agents"]',
  lang: 'en',
  status: 'published',
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:00.000Z',
  submitted_at: '2026-11-21T10:00:00.000Z',
  published_at: '2026-11-21T10:00:00.000Z',
  deleted_at: null,
});
const ids = async (q: string) => (await service.search({ q, hybrid: true, draft: false, limit: 10, agent: false })).hits.filter((h) => h.type === 'post').map((h) => h.id);
const settle = () => new Promise((r) => setTimeout(r, 10));

describe('posts in search', () => {
  it('follows the posts listener: published posts are found, removed ones are not', async () => {
    const listener = searchPostListener(() => service);
    listener.published(row('p1', 'Marmalade audits for agents'), 'We audit every agent with a marmalade checklist.');
    await settle();
    expect(await ids('marmalade')).toEqual(['p1']);
    const hit = (await service.search({ q: 'marmalade', hybrid: false, draft: false, limit: 1, agent: false })).hits[0];
    expect(hit).toMatchObject({ type: 'post', id: 'p1', url: '/posts/marmalade-audits-for-agents', date: '2026-11-21' });
    listener.removed('p1');
    expect(await ids('marmalade')).toEqual([]);
  });

  it('syncs a service with the published posts, dropping those no longer published', async () => {
    const store = (rows: PostRow[]) => ({
      listPublished: async () => ({ total: rows.length, rows }),
      essay: async (id: string) => ({ post_id: id, revision: 1, body: `Quillwort notes for ${id}.`, author_id: 'u1', created_at: '' }),
    });
    await syncPublishedPosts(service, store([row('a', 'Quillwort one'), row('b', 'Quillwort two')]));
    expect((await ids('quillwort')).sort()).toEqual(['a', 'b']);
    await syncPublishedPosts(service, store([row('b', 'Quillwort two')]));
    expect(await ids('quillwort')).toEqual(['b']);
  });
});
