import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { listVideos, getVideo, VIDEO_LIST_DEFAULTS } from '../../src/lib/read/videos.ts';
import { getChannel, listChannels } from '../../src/lib/read/channels.ts';
import { getEssay, listEssays } from '../../src/lib/read/essays.ts';
import { getDigest, listDigests } from '../../src/lib/read/digests.ts';
import { getConcept, listKnowledge } from '../../src/lib/read/knowledge.ts';
import { getModelfile, getPersona } from '../../src/lib/read/personas.ts';
import { listTags } from '../../src/lib/read/tags.ts';
import { graphData } from '../../src/lib/read/graph.ts';
import { briefing } from '../../src/lib/read/latest.ts';
import { rewriteLinksForAgents } from '../../src/lib/content/markdown.ts';
import { llmsFullParts, llmsFullTxt } from '../../src/lib/read/page-markdown.ts';
import { writePiecesFile } from '../../src/lib/static-build/pieces.ts';
import type { Piece } from '../../src/lib/representation.ts';
import { fixtureContent } from '../helpers/content.ts';

const snap = loadSnapshot(fixtureContent());
const site = {
  baseUrl: 'http://kb.test',
  siteName: 'KB',
  description: 'd',
  generatedAt: '2026-11-21T06:00:00Z',
  devMode: true,
  keyPrefix: 'kb_',
  pipeline: { last_run_at: '2026-11-21T03:00:00Z', last_status: 'ok' },
};

describe('videos', () => {
  it('lists newest first with totals and pages without overlap', () => {
    const all = listVideos(snap, { ...VIDEO_LIST_DEFAULTS, limit: 200 });
    expect(all.total).toBe(snap.videos.length);
    const dates = all.items.map((v) => v.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const p1 = listVideos(snap, { ...VIDEO_LIST_DEFAULTS, limit: 7, offset: 0 });
    const p2 = listVideos(snap, { ...VIDEO_LIST_DEFAULTS, limit: 7, offset: 7 });
    expect(p1.items).toHaveLength(7);
    expect(p2.items[0].video_id).toBe(all.items[7].video_id);
    expect(listVideos(snap, { ...VIDEO_LIST_DEFAULTS, offset: 10_000 }).items).toEqual([]);
  });

  it('filters by channel, tag, highlight and since, together', () => {
    const channel = snap.channels[0].channel_id;
    const tag = snap.videos[0].tags[0];
    const since = snap.videos[Math.floor(snap.videos.length / 2)].date;
    const r = listVideos(snap, { ...VIDEO_LIST_DEFAULTS, limit: 200, channel, tag, since });
    const expected = snap.videos.filter((v) => v.channel === channel && v.tags.includes(tag) && v.date >= since);
    expect(r.items.map((v) => v.video_id)).toEqual(expected.map((v) => v.video_id));
    const h = listVideos(snap, { ...VIDEO_LIST_DEFAULTS, limit: 200, highlight: true });
    expect(h.total).toBe(snap.videos.filter((v) => v.highlight).length);
    expect(h.items.every((v) => v.highlight)).toBe(true);
    expect(listVideos(snap, { ...VIDEO_LIST_DEFAULTS, channel: 'no-such' }).total).toBe(0);
  });

  it('gives one video with the spec fields, and links in agent form on request', () => {
    const id = snap.videos[3].video_id;
    const v = getVideo(snap, id, { agent: false })!;
    for (const k of ['video_id', 'title', 'date', 'tags', 'summary', 'thumbnail_url', 'url', 'channel', 'highlight']) expect(v).toHaveProperty(k);
    expect(v.url).toBe(`/videos/${id}`);
    expect(getVideo(snap, id, { agent: true })!.url).toBe(`/api/videos/${id}?agent=true`);
    expect(getVideo(snap, 'missing', { agent: false })).toBeNull();
  });
});

describe('channels', () => {
  it('counts videos per channel and pages a channel', () => {
    const list = listChannels(snap);
    expect(list.items.reduce((n, c) => n + c.video_count, 0)).toBe(snap.videos.length);
    const c = list.items[0];
    const page = getChannel(snap, c.channel_id, { limit: 2, offset: 1 })!;
    expect(page.videos.total).toBe(c.video_count);
    expect(page.videos.items).toHaveLength(Math.min(2, c.video_count - 1));
    expect(getChannel(snap, 'missing', { limit: 1, offset: 0 })).toBeNull();
  });
});

describe('essays', () => {
  it('lists newest first with the spec fields and serves each language', () => {
    const list = listEssays(snap);
    expect(list.total).toBe(snap.essays.length);
    for (const k of ['slug', 'title', 'date', 'description', 'thumbnail', 'video', 'available_languages']) expect(list.items[0]).toHaveProperty(k);
    expect(list.items[0].thumbnail).toBe(`/api/essays/${list.items[0].slug}/thumbnail`);
    const bilingual = snap.essays.find((e) => e.languages.includes('sl'))!;
    const en = getEssay(snap, bilingual.slug, { agent: false })!;
    const sl = getEssay(snap, bilingual.slug, { agent: false, lang: 'sl' })!;
    expect(en.lang).toBe('en');
    expect(sl.lang).toBe('sl');
    expect(sl.title).toBe(bilingual.translations.sl!.title);
    expect(sl.content).not.toBe(en.content);
    expect(Object.keys(en.translations).sort()).toEqual(['en', 'sl']);
  });
});

describe('digests and agent links', () => {
  it('rewrites site links to the agent form and nothing else', () => {
    expect(rewriteLinksForAgents('See [a](/videos/abc_DEF-123) and [b](/knowledge/x-y) and [c](https://e.org/videos/z).')).toBe(
      'See [a](/api/videos/abc_DEF-123?agent=true) and [b](/api/knowledge/x-y?agent=true) and [c](https://e.org/videos/z).',
    );
  });

  it('serves a digest in both forms and filters the list by date', () => {
    const d = snap.digests[0];
    const human = getDigest(snap, d.date, { agent: false })!;
    const agent = getDigest(snap, d.date, { agent: true })!;
    expect(human.content).toBe(d.content);
    expect(agent.content).not.toMatch(/\]\(\/videos\//);
    expect(agent.content).toMatch(/\]\(\/api\/videos\/[A-Za-z0-9_-]+\?agent=true\)/);
    expect(agent.items[0].sources[0].url).toMatch(/^\/api\/videos\/.+\?agent=true$/);
    const since = snap.digests[3].date;
    expect(listDigests(snap, { since }).items.map((x) => x.date)).toEqual(snap.digests.filter((x) => x.date >= since).map((x) => x.date));
  });
});

describe('knowledge', () => {
  it('hides drafts unless asked and resolves sources and related concepts', () => {
    const drafts = snap.concepts.filter((c) => c.draft).length;
    expect(listKnowledge(snap, { draft: false }).total).toBe(snap.concepts.length - drafts);
    expect(listKnowledge(snap, { draft: true }).total).toBe(snap.concepts.length);
    expect(listKnowledge(snap, { draft: false }).items.some((c) => c.draft)).toBe(false);
    const c = snap.concepts.find((x) => !x.draft && x.related.length > 0)!;
    const full = getConcept(snap, c.slug, { agent: false })!;
    expect(full.sources.every((s) => typeof s.title === 'string' && s.title.length > 0)).toBe(true);
    expect(full.related.map((r) => r.slug)).toEqual(c.related);
  });
});

describe('personas, tags, graph', () => {
  it('serves each modelfile', () => {
    const p = snap.personas[0];
    const persona = getPersona(snap, p.persona_id, { agent: false })!;
    expect(persona.modelfiles).toHaveLength(p.modes.length * p.languages.length);
    const mf = getModelfile(snap, p.persona_id, p.modes[0], 'sl')!;
    expect(mf.modelfile).toMatch(/^FROM /m);
    expect(getModelfile(snap, p.persona_id, 'no-mode', 'en')).toBeNull();
  });

  it('counts tags consistently with the videos', () => {
    const tags = listTags(snap);
    const t = tags.items[0];
    expect(t.videos).toBe(snap.videos.filter((v) => v.tags.includes(t.tag)).length);
  });

  it('draws edges only between nodes it has', () => {
    const g = graphData(snap);
    const ids = new Set(g.nodes.map((n) => n.id));
    expect(g.edges.every((e) => ids.has(e.source) && ids.has(e.target))).toBe(true);
    expect(g.nodes.filter((n) => n.type === 'knowledge')).toHaveLength(snap.concepts.filter((c) => !c.draft).length);
  });
});

describe('briefing', () => {
  it('has every field of the spec table with the right types', () => {
    const b = briefing(snap, site);
    expect(b.supported_languages).toEqual(['en', 'sl']);
    expect(b.generated_at).toBe(site.generatedAt);
    expect(b.freshness.last_digest_date).toBe(snap.digests[0].date);
    expect(b.freshness.last_video_date).toBe(snap.videos[0].date);
    expect(b.freshness.summary_todo_count).toBe(snap.videos.filter((v) => !v.summary).length);
    expect(b.freshness.pipeline_status).toEqual({ last_run_at: '2026-11-21T03:00:00Z', last_status: 'ok', hours_since_last_run: 3, invalid_file_count: 0, invalid_files: [] });
    for (const k of ['friendly', 'anonymous_read', 'read_via_get_works_everywhere', 'auth_available']) expect(typeof (b.agent as Record<string, unknown>)[k]).toBe('boolean');
    for (const k of ['auth_preferred', 'auth_type', 'auth_metadata', 'auth_resource_metadata', 'auth_start', 'auth_token', 'auth_verify', 'mcp', 'skill', 'llms']) {
      expect(typeof (b.agent as Record<string, unknown>)[k]).toBe('string');
    }
    expect(b.agent.recommended_behavior.length).toBeGreaterThan(0);
    expect(b.access.browser_login).toBe('/api/auth/idp/login');
    expect(typeof b.access.agent_login).toBe('object');
    expect(b.stats).toEqual({ total_videos: snap.videos.length, knowledge_concepts: snap.concepts.filter((c) => !c.draft).length, essays: snap.essays.length, digests: snap.digests.length });
    expect(b.latest_digest!.content).toMatch(/^# /);
    for (const v of b.latest_videos) {
      expect(Object.keys(v).sort()).toEqual(['date', 'page_url', 'summary', 'tags', 'thumbnail_url', 'title', 'url', 'video_id']);
      expect(v.url).toBe(`/api/videos/${v.video_id}?agent=true`);
    }
    expect(b.featured_essay!.thumbnail).toBe(`/api/essays/${b.featured_essay!.slug}/thumbnail`);
    expect(b.explore).toEqual({ search: '/api/search?q=<query>&agent=true', knowledge: '/api/knowledge', graph: '/api/graph', all_videos: '/api/videos', skills: '/api/skills' });
  });
});

describe('/llms-full.txt in pieces', () => {
  it('is written as the bytes of the whole text, across the buffer and multi-byte letters', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-llms-full-'));
    const written = (pieces: Iterable<Piece>) => {
      const file = path.join(dir, 'out.txt');
      writePiecesFile(file, pieces);
      return fs.readFileSync(file);
    };
    try {
      const whole = Buffer.from(llmsFullTxt(snap, site), 'utf8');
      expect(whole.length).toBeGreaterThan(65536 * 2); // the sample spans several chunks
      expect(written(llmsFullParts(snap, site)).equals(whole)).toBe(true);
      const tricky = ['a'.repeat(65535), 'č', '😀', 'ž'.repeat(40000), '', 'x'.repeat(5 << 20), 'š'.repeat(1_500_000), 'end'];
      expect(written(tricky).equals(Buffer.from(tricky.join(''), 'utf8'))).toBe(true);
      expect(written([]).length).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
