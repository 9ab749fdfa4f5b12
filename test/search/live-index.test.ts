// The live index beside the built one: posts added and removed between builds, scored on the built
// index's scale, with vectors from the index's own embedder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { buildSearchIndex, documentFromPost, SearchService, type Embedder } from '../../src/lib/search/index.ts';
import { fixtureContent } from '../helpers/content.ts';

const snap = loadSnapshot(fixtureContent());
let dataDir: string;
let service: SearchService;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-live-'));
  service = new SearchService(snap, await buildSearchIndex(snap, { dataDir, embedder: { provider: 'builtin', dimensions: 128 } }));
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const search = (q: string, extra: Partial<Parameters<SearchService['search']>[0]> = {}) => service.search({ q, hybrid: false, draft: false, limit: 20, agent: false, ...extra });

describe('live index', () => {
  it('finds an added post at once and forgets it when removed', async () => {
    expect(service.has('post', 'p-1')).toBe(false);
    await service.addDocument(documentFromPost({ post_id: 'p-1', slug: 'brindlewick', title: 'Brindlewick reviews for agent rollouts', date: '2026-11-21', body: 'We run a brindlewick review before every agent goes live.', tags: ['agents'] }));
    const found = await search('brindlewick');
    expect(found.hits.map((h) => [h.type, h.id, h.url])).toEqual([['post', 'p-1', '/posts/brindlewick']]);
    expect((await search('brindlewik')).hits[0]?.id).toBe('p-1'); // typos reach live terms too
    expect(service.liveDocuments().map((d) => d.id)).toEqual(['p-1']);
    expect(service.removeDocument('post', 'p-1')).toBe(true);
    expect((await search('brindlewick')).hits).toEqual([]);
    expect(service.removeDocument('post', 'p-1')).toBe(false);
  });

  it('scores a post like the same text in the built index', async () => {
    const v = snap.videosById.get('H9QI-gGWbdX')!;
    await service.addDocument(documentFromPost({ post_id: 'twin', title: v.title, date: v.date, summary: v.summary, body: v.transcript, tags: v.tags, lang: 'en' }));
    const r = await search('inventory of employees tool use');
    const video = r.hits.find((h) => h.id === v.video_id)!;
    const post = r.hits.find((h) => h.id === 'twin')!;
    expect(post.score / video.score).toBeGreaterThan(0.85);
    expect(post.score / video.score).toBeLessThan(1.15);
    const hybrid = await search('shadow AI inventory', { hybrid: true });
    expect(hybrid.hits.slice(0, 4).map((h) => h.id)).toEqual(expect.arrayContaining(['twin', v.video_id]));
    service.removeDocument('post', 'twin');
  });

  it('makes a post\'s words searchable at once, before a slow embedder has its vector', async () => {
    const built = await buildSearchIndex(snap, { dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'kb-live-slow-')), embedder: { provider: 'builtin', dimensions: 128 } });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const inner = built.embedder;
    const slow: Embedder = {
      info: inner.info,
      minSimilarity: inner.minSimilarity,
      embedQuery: (q, terms) => inner.embedQuery(q, terms),
      embedDocuments: async (docs) => {
        await gate;
        return inner.embedDocuments(docs);
      },
    };
    const s = new SearchService(snap, { ...built, embedder: slow });
    const done = s.addDocument(documentFromPost({ post_id: 'slow', title: 'Tamarack handover notes', date: '2026-11-23', body: 'How the tamarack team hands over an agent at night.' }));
    expect((await s.search({ q: 'tamarack', hybrid: true, draft: false, limit: 5, agent: false })).hits.map((h) => h.id)).toEqual(['slow']);
    expect(s.related('post', 'slow', 5)).not.toBeNull();
    release();
    await done;
    expect(s.related('post', 'slow', 5)!.hits).toHaveLength(5);
    fs.rmSync(path.dirname(built.dir), { recursive: true, force: true });
  });

  it('replaces a post that is published again, and relates posts and built items both ways', async () => {
    const post = (title: string) => documentFromPost({ post_id: 'p-2', title, date: '2026-11-22', body: 'Prompt injection hid in a supplier PDF; our agent obeyed it until a guardrail stopped the refund.', tags: ['security', 'agents'] });
    await service.addDocument(post('First title'));
    await service.addDocument(post('Second title'));
    expect((await search('injection', { types: ['post'] })).hits.map((h) => h.title)).toEqual(['Second title']);
    const related = service.related('post', 'p-2', 5)!;
    expect(related.hits.map((h) => h.id)).toContain('prompt-injection');
    expect(related.hits.some((h) => h.id === 'p-2')).toBe(false);
    expect(service.related('knowledge', 'prompt-injection', 20)!.hits.map((h) => h.id)).toContain('p-2');
    service.removeDocument('post', 'p-2');
    expect(service.related('post', 'p-2', 5)).toBeNull();
  });
});
