// Item 7 of issue 16: every JSON link has an absolute page_url beside it (the page a person should be sent
// to), agent=true is honoured by the video list, and search says how its total was counted, which
// language each hit is in and which embedder ranked by meaning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let srv: TestServer;
const BASE = 'http://kb.test';
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.stop());

const json = async (p: string) => {
  const res = await srv.get(p);
  expect(res.status, p).toBe(200);
  return res.json();
};

describe('page_url', () => {
  it('stands beside every link of the briefing and says to cite it', async () => {
    const b = await json('/api/latest');
    for (const v of b.latest_videos) expect(v.page_url).toBe(`${BASE}/videos/${v.video_id}`);
    for (const e of b.latest_essays) expect(e.page_url).toBe(`${BASE}/essays/${e.slug}`);
    expect(b.featured_essay.page_url).toBe(`${BASE}/essays/${b.featured_essay.slug}`);
    expect(b.latest_digest.page_url).toBe(`${BASE}/digests/${b.latest_digest.date}`);
    expect(b.agent.recommended_behavior.join(' ')).toMatch(/page_url/);
  });

  it('is on every item read and list, prerendered or dynamic, with or without agent=true', async () => {
    const list = await json('/api/videos');
    const id = list.items[0].video_id;
    expect(list.items[0].page_url).toBe(`${BASE}/videos/${id}`);
    for (const p of [`/api/videos/${id}`, `/api/videos/${id}?agent=true`]) {
      const v = await json(p);
      expect(v.page_url, p).toBe(`${BASE}/videos/${id}`);
    }
    const essays = await json('/api/essays');
    const slug = essays.items[0].slug;
    expect((await json(`/api/essays/${slug}?agent=true`)).page_url).toBe(`${BASE}/essays/${slug}`);
    const bilingual = essays.items.find((e: { available_languages: string[] }) => e.available_languages.length > 1);
    if (bilingual) {
      const other = bilingual.available_languages.find((l: string) => l !== bilingual.lang);
      expect((await json(`/api/essays/${bilingual.slug}?lang=${other}`)).page_url).toBe(`${BASE}/essays/${bilingual.slug}/${other}`);
    }
    const digest = (await json('/api/digests')).items[0];
    const d = await json(`/api/digests/${digest.date}?agent=true`);
    expect(d.page_url).toBe(`${BASE}/digests/${digest.date}`);
    expect(d.items[0].sources[0].page_url).toMatch(new RegExp(`^${BASE}/videos/`));
    const concept = (await json('/api/knowledge')).items[0];
    expect(concept.page_url).toBe(`${BASE}/knowledge/${concept.slug}`);
    const persona = (await json('/api/personas')).items[0];
    expect((await json(`/api/personas/${persona.persona_id}`)).page_url).toBe(`${BASE}/personas/${persona.persona_id}`);
    const channel = (await json('/api/channels')).items[0];
    expect(channel.page_url).toBe(`${BASE}/channels/${channel.channel_id}`);
  });
});

describe('agent=true on lists', () => {
  it('turns the video list\'s urls into API links (it was ignored)', async () => {
    const human = await json('/api/videos?limit=3');
    const agent = await json('/api/videos?limit=3&agent=true');
    expect(human.items[0].url).toBe(`/videos/${human.items[0].video_id}`);
    for (const v of agent.items) {
      expect(v.url).toBe(`/api/videos/${v.video_id}?agent=true`);
      expect(v.page_url).toBe(`${BASE}/videos/${v.video_id}`);
    }
    const channel = (await json('/api/channels')).items[0].channel_id;
    const ch = await json(`/api/channels/${channel}?agent=true`);
    expect(ch.videos.items[0].url).toMatch(/^\/api\/videos\/.+\?agent=true$/);
  });
});

describe('search', () => {
  it('gives each hit its page_url and language, and names the embedder', async () => {
    const r = await json('/api/search?q=governance&agent=true&limit=50');
    expect(r.hits.length).toBeGreaterThan(0);
    for (const h of r.hits) {
      expect(h.page_url.startsWith(`${BASE}/`), h.page_url).toBe(true);
      expect(h.url).toMatch(/^\/api\/.+\?agent=true$/);
      expect(['en', 'sl']).toContain(h.lang);
    }
    expect(r.embedder).toMatchObject({ name: expect.any(String), model: expect.any(String), dimension: expect.any(Number) });
    expect(typeof r.total_exact).toBe('boolean');
    const k = await json('/api/search?q=governance&hybrid=false');
    expect(k.embedder).toBeNull();
    expect(k.total_exact).toBe(true);
    // The keyword total is the number of items containing the word, not a page or a cap.
    const all = await json('/api/search?q=governance&hybrid=false&limit=100');
    expect(k.total).toBe(all.hits.length);
    const sl = await json(`/api/search?q=${encodeURIComponent('umetna inteligenca v šolah gimnazij')}&types=video&limit=5`);
    expect(sl.hits[0].lang).toBe('sl');
  });

  it('gives related items page_url too', async () => {
    const id = (await json('/api/videos')).items[0].video_id;
    const r = await json(`/api/videos/${id}/related?k=3`);
    expect(r.item.page_url).toBe(`${BASE}/videos/${id}`);
    for (const h of r.hits) expect(h.page_url.startsWith(`${BASE}/`)).toBe(true);
  });
});
