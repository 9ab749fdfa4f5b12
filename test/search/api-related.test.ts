// The six /related endpoints through the real server: k at its bounds, never the item itself, 404 for
// unknown items, and neighbours that reflect both the text and the links editors made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { startSearchServer, type SearchTestServer } from './helpers/search-server.ts';
import { fixtureContent } from '../helpers/content.ts';

const snap = loadSnapshot(fixtureContent());
let srv: SearchTestServer;
beforeAll(async () => {
  srv = await startSearchServer();
});
afterAll(() => srv.stop());

interface Body {
  query: string;
  mode: string;
  total: number;
  item: { type: string; id: string; title: string; url: string };
  hits: { type: string; id: string; title: string; url: string; lang: string; score: number; draft: boolean; snippet: string }[];
}

const ITEMS = [
  { kind: 'videos', type: 'video', id: snap.videos[0].video_id, what: 'Video' },
  { kind: 'knowledge', type: 'knowledge', id: 'shadow-ai', what: 'Knowledge concept' },
  { kind: 'essays', type: 'essay', id: snap.essays[0].slug, what: 'Essay' },
  { kind: 'digests', type: 'digest', id: snap.digests[0].date, what: 'Digest' },
  { kind: 'personas', type: 'persona', id: snap.personas[0].persona_id, what: 'Persona' },
];

async function related(p: string, status = 200): Promise<Body> {
  const res = await srv.get(p);
  expect(res.status, p).toBe(status);
  return res.json();
}

describe('related items', () => {
  it.each(ITEMS)('/api/$kind/{id}/related gives 5 by default, never the item itself', async ({ kind, type, id }) => {
    const r = await related(`/api/${kind}/${id}/related`);
    expect(r.mode).toBe('related');
    expect(r.item).toMatchObject({ type, id });
    expect(r.hits).toHaveLength(5);
    expect(r.hits.some((h) => h.type === type && h.id === id)).toBe(false);
    expect(r.hits.some((h) => h.draft)).toBe(false);
    const scores = r.hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('k is 1..20', async () => {
    const base = `/api/knowledge/shadow-ai/related`;
    expect((await related(`${base}?k=1`)).hits).toHaveLength(1);
    expect((await related(`${base}?k=20`)).hits).toHaveLength(20);
    for (const [k, type] of [['0', 'greater_than_equal'], ['21', 'less_than_equal'], ['five', 'int_parsing']]) {
      const res = await srv.get(`${base}?k=${k}`);
      expect(res.status).toBe(422);
      expect((await res.json()).detail[0]).toMatchObject({ type, loc: ['query', 'k'], input: k });
    }
  });

  it.each([...ITEMS.map((i) => ({ kind: i.kind, what: i.what, id: i.type === 'digest' ? '1999-01-01' : 'no-such-item' })), { kind: 'posts', what: 'Post', id: 'no-such-post' }])(
    'an unknown $kind id is a 404',
    async ({ kind, what, id }) => {
      const res = await srv.get(`/api/${kind}/${id}/related`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ detail: `${what} not found` });
    },
  );

  it('a digest date that is not a date is a 422, as on /api/digests/{date}', async () => {
    const res = await srv.get('/api/digests/2026-13-45/related');
    expect(res.status).toBe(422);
    expect((await res.json()).detail[0]).toMatchObject({ loc: ['path', 'date'], type: 'date_from_datetime_parsing' });
  });

  it('blends in the links: a concept is related to the videos it cites', async () => {
    const concept = snap.conceptsBySlug.get('shadow-ai')!;
    const cited = concept.sources.flatMap((s) => (s.type === 'video' ? [s.id] : []));
    const r = await related('/api/knowledge/shadow-ai/related');
    expect(r.hits.filter((h) => h.type === 'video' && cited.includes(h.id)).length).toBeGreaterThanOrEqual(2);
    // …and a video to the concepts that cite it.
    const v = await related(`/api/videos/${cited[0]}/related?k=10`);
    expect(v.hits.some((h) => h.type === 'knowledge' && h.id === 'shadow-ai')).toBe(true);
  });

  it('finds the other essays and videos on the same subject', async () => {
    const r = await related('/api/essays/eu-ai-act-for-deployers/related?k=5');
    const ids = r.hits.map((h) => h.id);
    expect(ids).toContain('eu-ai-act-deployer-obligations');
  });

  it('lang: essays come in their version in the reader\'s language, by its title and page; nothing is filtered', async () => {
    const base = '/api/essays/eu-ai-act-for-deployers/related?k=20';
    const plain = await related(base);
    const slovenian = await related(`${base}&lang=sl`);
    expect(slovenian.hits.map((h) => h.id)).toEqual(plain.hits.map((h) => h.id));
    const translated = slovenian.hits.filter((h) => h.type === 'essay' && snap.essaysBySlug.get(h.id)!.languages.includes('sl'));
    expect(translated.length).toBeGreaterThan(0);
    for (const h of translated) {
      const essay = snap.essaysBySlug.get(h.id)!;
      expect(h, h.id).toMatchObject({ lang: 'sl', title: essay.translations.sl!.title, url: essay.primary === 'sl' ? `/essays/${h.id}` : `/essays/${h.id}/sl` });
      expect(plain.hits.find((p) => p.id === h.id), h.id).toMatchObject({ title: essay.translations[essay.primary]!.title, url: `/essays/${h.id}` });
    }
  });

  it('rewrites links for agents', async () => {
    const r = await related('/api/knowledge/shadow-ai/related?agent=true');
    expect(r.item.url).toBe('/api/knowledge/shadow-ai?agent=true');
    expect(r.hits.every((h) => h.url.startsWith('/api/') && h.url.endsWith('?agent=true'))).toBe(true);
  });
});
