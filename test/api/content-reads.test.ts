// Every read endpoint of the spec's "Content reads" table, through the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtureContent } from '../helpers/content.ts';

const snap = loadSnapshot(fixtureContent());
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.stop());

async function json(p: string, status = 200) {
  const res = await srv.get(p);
  expect(res.status, p).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return res.json();
}

const video = snap.videos[0];
const channel = snap.channels[0];
const essay = snap.essays[0];
const digest = snap.digests[0];
const concept = snap.concepts.find((c) => !c.draft)!;
const persona = snap.personas[0];

describe('content reads answer with the spec shape', () => {
  it('/api/videos and /api/videos/{id}', async () => {
    const list = await json('/api/videos');
    expect(list).toMatchObject({ total: snap.videos.length, limit: 50, offset: 0 });
    expect(list.items).toHaveLength(Math.min(50, snap.videos.length));
    const one = await json(`/api/videos/${video.video_id}`);
    expect(one).toMatchObject({ video_id: video.video_id, title: video.title, date: video.date, tags: video.tags, summary: video.summary, thumbnail_url: video.thumbnail_url, highlight: video.highlight });
    expect(one.channel.channel_id).toBe(video.channel);
    expect((await json(`/api/videos/${video.video_id}?agent=true`)).url).toBe(`/api/videos/${video.video_id}?agent=true`);
  });

  it('/api/videos filters: channel, tag, highlight, since, paging', async () => {
    const byChannel = await json(`/api/videos?channel=${channel.channel_id}&limit=200`);
    expect(byChannel.items.every((v: { channel: { channel_id: string } }) => v.channel.channel_id === channel.channel_id)).toBe(true);
    expect(byChannel.total).toBe(snap.videosByChannel.get(channel.channel_id)!.length);
    const tag = video.tags[0];
    const byTag = await json(`/api/videos?tag=${tag}&limit=200`);
    expect(byTag.total).toBe(snap.videos.filter((v) => v.tags.includes(tag)).length);
    const hl = await json('/api/videos?highlight=true&limit=200');
    expect(hl.total).toBe(snap.videos.filter((v) => v.highlight).length);
    const since = await json('/api/videos?since=2026-11-15&limit=200');
    expect(since.items.every((v: { date: string }) => v.date >= '2026-11-15')).toBe(true);
    expect(since.total).toBe(snap.videos.filter((v) => v.date >= '2026-11-15').length);
    const page = await json('/api/videos?limit=5&offset=5');
    expect(page.items.map((v: { video_id: string }) => v.video_id)).toEqual(snap.videos.slice(5, 10).map((v) => v.video_id));
    expect(await json('/api/videos?limit=200')).toMatchObject({ limit: 200 });
    expect((await json('/api/videos?limit=1')).items).toHaveLength(1);
  });

  it('/api/channels and /api/channels/{id} paged', async () => {
    const list = await json('/api/channels');
    expect(list.total).toBe(snap.channels.length);
    const one = await json(`/api/channels/${channel.channel_id}?limit=2&offset=1`);
    expect(one).toMatchObject({ channel_id: channel.channel_id, name: channel.name });
    expect(one.videos).toMatchObject({ limit: 2, offset: 1, total: snap.videosByChannel.get(channel.channel_id)!.length });
  });

  it('/api/essays, /api/essays/{slug} and its thumbnail', async () => {
    const list = await json('/api/essays');
    expect(list.items.map((e: { slug: string }) => e.slug)).toEqual(snap.essays.map((e) => e.slug));
    const one = await json(`/api/essays/${essay.slug}`);
    expect(Object.keys(one)).toEqual(expect.arrayContaining(['slug', 'title', 'date', 'description', 'thumbnail', 'video', 'available_languages', 'content']));
    const thumb = await srv.get(`/api/essays/${essay.slug}/thumbnail`);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await thumb.text()).toMatch(/^<svg /);
    const sl = snap.essays.find((e) => e.languages.includes('sl'))!;
    expect((await json(`/api/essays/${sl.slug}?lang=sl`)).lang).toBe('sl');
  });

  it('/api/digests, /api/digests/{date} and its thumbnail', async () => {
    const list = await json('/api/digests');
    expect(list.total).toBe(snap.digests.length);
    const since = await json(`/api/digests?since=${snap.digests[2].date}`);
    expect(since.total).toBe(3);
    const one = await json(`/api/digests/${digest.date}`);
    expect(one).toMatchObject({ date: digest.date, title: digest.title, content: digest.content });
    const agent = await json(`/api/digests/${digest.date}?agent=true`);
    expect(agent.content).toMatch(/\(\/api\/videos\/[^)]+\?agent=true\)/);
    const thumb = await srv.get(`/api/digests/${digest.date}/thumbnail`);
    expect(thumb.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
  });

  it('/api/knowledge with and without drafts, and /api/knowledge/{slug}', async () => {
    const published = await json('/api/knowledge');
    const all = await json('/api/knowledge?draft=true');
    expect(all.total - published.total).toBe(snap.concepts.filter((c) => c.draft).length);
    expect(published.items.some((c: { draft: boolean }) => c.draft)).toBe(false);
    const one = await json(`/api/knowledge/${concept.slug}`);
    expect(one).toMatchObject({ slug: concept.slug, title: concept.title, draft: false });
    expect(one.sources.length).toBe(concept.sources.length);
  });

  it('/api/personas, /api/personas/{id} and modelfiles', async () => {
    expect((await json('/api/personas')).total).toBe(snap.personas.length);
    const one = await json(`/api/personas/${persona.persona_id}`);
    expect(one.modelfiles.length).toBe(persona.modes.length * persona.languages.length);
    const mf = await json(one.modelfiles[0].url);
    expect(mf).toMatchObject({ persona_id: persona.persona_id, mode: one.modelfiles[0].mode, lang: one.modelfiles[0].lang });
    expect(mf.modelfile).toMatch(/^FROM /m);
  });

  it('/api/tags, /api/graph and /api/graph/data', async () => {
    const tags = await json('/api/tags');
    expect(tags.items[0]).toMatchObject({ tag: expect.any(String), count: expect.any(Number) });
    const data = await json('/api/graph/data');
    expect(data.nodes.length).toBeGreaterThan(snap.concepts.length / 2);
    const html = await srv.get('/api/graph');
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await html.text();
    expect(page).toMatch(/^<!doctype html>/);
    // Drawn by /assets/graph.js (and its worker): scripts from this origin only, none inline.
    expect(page).toContain('<script type="module" src="/assets/graph.js">');
    expect(page).not.toMatch(/<script[^>]+src="(https?:)?\/\//);
  });
});

describe('bad parameters answer 422 in the FastAPI shape', () => {
  const cases: [string, string, string, string][] = [
    // path, param, value, pydantic type
    ['/api/videos', 'limit', '0', 'greater_than_equal'],
    ['/api/videos', 'limit', '201', 'less_than_equal'],
    ['/api/videos', 'limit', 'ten', 'int_parsing'],
    ['/api/videos', 'limit', '1.5', 'int_parsing'],
    ['/api/videos', 'offset', '-1', 'greater_than_equal'],
    ['/api/videos', 'offset', 'x', 'int_parsing'],
    ['/api/videos', 'highlight', 'maybe', 'bool_parsing'],
    ['/api/videos', 'since', '2026-11', 'date_from_datetime_parsing'],
    ['/api/videos', 'since', '2026-02-30', 'date_from_datetime_parsing'],
    [`/api/videos/${video.video_id}`, 'agent', 'perhaps', 'bool_parsing'],
    [`/api/channels/${channel.channel_id}`, 'limit', '0', 'greater_than_equal'],
    [`/api/channels/${channel.channel_id}`, 'limit', '201', 'less_than_equal'],
    [`/api/channels/${channel.channel_id}`, 'offset', '-5', 'greater_than_equal'],
    [`/api/essays/${essay.slug}`, 'agent', '2', 'bool_parsing'],
    [`/api/essays/${essay.slug}`, 'lang', 'de', 'enum'],
    ['/api/digests', 'since', 'yesterday', 'date_from_datetime_parsing'],
    [`/api/digests/${digest.date}`, 'agent', 'nope', 'bool_parsing'],
    ['/api/knowledge', 'draft', 'sometimes', 'bool_parsing'],
    [`/api/knowledge/${concept.slug}`, 'agent', 'x', 'bool_parsing'],
    [`/api/personas/${persona.persona_id}`, 'agent', 'x', 'bool_parsing'],
  ];
  it.each(cases)('%s ?%s=%s -> %s', async (p, param, value, type) => {
    const res = await srv.get(`${p}?${param}=${encodeURIComponent(value)}`);
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.detail).toHaveLength(1);
    expect(body.detail[0]).toMatchObject({ type, loc: ['query', param], input: value });
    expect(typeof body.detail[0].msg).toBe('string');
  });

  it('reports every bad parameter of a request at once', async () => {
    const body = await (await srv.get('/api/videos?limit=0&offset=-1&since=bad')).json();
    expect(body.detail.map((d: { loc: string[] }) => d.loc[1]).sort()).toEqual(['limit', 'offset', 'since']);
  });

  it('a malformed digest date in the path is a 422, an unknown one a 404', async () => {
    const bad = await srv.get('/api/digests/2026-99-01');
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail[0]).toMatchObject({ loc: ['path', 'date'], type: 'date_from_datetime_parsing' });
    const unknown = await srv.get('/api/digests/1999-01-01');
    expect(unknown.status).toBe(404);
  });
});

describe('unknown ids answer 404 with a detail', () => {
  it.each([
    '/api/videos/no-such-video',
    '/api/channels/no-such-channel',
    '/api/essays/no-such-essay',
    '/api/essays/no-such-essay/thumbnail',
    '/api/digests/2001-01-01',
    '/api/digests/2001-01-01/thumbnail',
    '/api/knowledge/no-such-concept',
    '/api/personas/no-such-persona',
    `/api/personas/modelfiles/${persona.persona_id}/no-such-mode/en`,
    `/api/personas/modelfiles/${persona.persona_id}/${persona.modes[0]}/de`,
    '/api/skills/no-such-skill',
    '/api/no-such-endpoint',
  ])('%s', async (p) => {
    for (const suffix of ['', '?agent=true']) {
      const res = await srv.get(p + suffix);
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(typeof body.detail).toBe('string');
    }
  });
});

describe('caching headers a CDN can use', () => {
  it('answers 304 to a matching If-None-Match, on static and dynamic reads alike', async () => {
    for (const p of ['/api/videos', '/api/videos?limit=3']) {
      const first = await srv.get(p);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[\w-]+"$/);
      expect(first.headers.get('cache-control')).toMatch(/max-age=\d+/);
      const again = await srv.get(p, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      const changed = await srv.get(p, { headers: { 'If-None-Match': '"something-else"' } });
      expect(changed.status).toBe(200);
    }
  });

  it('answers HEAD with headers only', async () => {
    const res = await srv.get('/api/channels', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await res.text()).toBe('');
  });

  it('never caches the liveness probe', async () => {
    const res = await srv.get('/api/health');
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
