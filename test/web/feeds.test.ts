// Atom feeds (issue 42, item 12): what a feed reader gets from the real server over the sample build, read
// with a well-kept feed parser (feedsmith) and checked for well-formedness with fast-xml-parser; where the
// feeds are advertised (every page's head, /api/latest, /api, llms.txt); and that every entry leads to a
// page that answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectAtomFeed, parseAtomFeed } from 'feedsmith';
import { XMLValidator } from 'fast-xml-parser';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtureContent } from '../helpers/content.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { essayIn, type Snapshot } from '../../src/lib/content/model.ts';
import type { Lang } from '../../src/lib/content/schema.ts';
import { essayPath } from '../../src/web/paths.ts';
import { atomFeed } from '../../src/lib/read/feeds.ts';

const ORIGIN = 'http://kb.test';
const FEEDS = ['all', 'videos', 'essays', 'digests', 'en', 'sl'] as const;
type Name = (typeof FEEDS)[number];
const ATOM = 'application/atom+xml; charset=utf-8';

let srv: TestServer;
let snap: Snapshot;
const local = (url: string) => {
  expect(url.startsWith(`${ORIGIN}/`), url).toBe(true);
  return url.slice(ORIGIN.length);
};

type Parsed = ReturnType<typeof parseAtomFeed>;
const fetched = new Map<Name, { xml: string; feed: Parsed }>();
/** Every feed as served, fetched once. */
async function loadFeeds(): Promise<Map<Name, { xml: string; feed: Parsed }>> {
  for (const name of FEEDS) {
    if (fetched.has(name)) continue;
    const res = await srv.get(`/feeds/${name}.atom`);
    expect(res.status, name).toBe(200);
    expect(res.headers.get('content-type'), name).toBe(ATOM);
    const xml = await res.text();
    fetched.set(name, { xml, feed: parseAtomFeed(xml) });
  }
  return fetched;
}

/** Every item a feed may hold, as a reader would see it: its page, date, kind and language. */
interface Item {
  url: string;
  date: string;
  kind: 'videos' | 'essays' | 'digests';
  lang: Lang;
}
function allItems(s: Snapshot): Item[] {
  return [
    ...s.videos.map((v) => ({ url: `${ORIGIN}/videos/${v.video_id}`, date: v.date, kind: 'videos' as const, lang: v.language })),
    ...s.essays.flatMap((e) => e.languages.map((l) => ({ url: `${ORIGIN}${essayPath(e, l)}`, date: essayIn(e, l).date, kind: 'essays' as const, lang: l }))),
    ...s.digests.map((d) => ({ url: `${ORIGIN}/digests/${d.date}`, date: d.date, kind: 'digests' as const, lang: 'en' as const })),
  ];
}
const belongs = (name: Name, i: Item) => name === 'all' || i.kind === name || i.lang === name;

beforeAll(async () => {
  srv = await startTestServer();
  snap = loadSnapshot(fixtureContent());
});
afterAll(() => srv.stop());

/** The <link> elements of an HTML page's head with their attributes. */
async function headLinks(path: string): Promise<Record<string, string>[]> {
  const res = await srv.get(path, { headers: { Accept: 'text/html' } });
  expect(res.status, path).toBe(200);
  const html = await res.text();
  const head = html.slice(0, html.indexOf('</head>'));
  return [...head.matchAll(/<link\b([^>]*)>/g)].map((m) => Object.fromEntries([...m[1].matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2].replace(/&amp;/g, '&')])));
}
const feedLinksOf = async (path: string) => (await headLinks(path)).filter((l) => l.rel === 'alternate' && l.type === 'application/atom+xml');

describe('Atom feeds', () => {
  it('are well-formed Atom 1.0 documents a feed parser reads whole', async () => {
    const feeds = await loadFeeds();
    for (const name of FEEDS) {
      const { xml, feed } = feeds.get(name)!;
      expect(XMLValidator.validate(xml), name).toBe(true);
      expect(detectAtomFeed(xml), name).toBe(true);
      // RFC 4287 §4.1.1: the feed's id, title, updated, an author, and here its own address and page.
      expect(feed.id, name).toBe(`${ORIGIN}/feeds/${name}.atom`);
      expect(feed.title?.value, name).toBeTruthy();
      expect(feed.authors?.[0]?.name, name).toBeTruthy();
      expect(feed.links?.find((l) => l.rel === 'self'), name).toMatchObject({ href: `${ORIGIN}/feeds/${name}.atom`, type: 'application/atom+xml' });
      expect(feed.links?.find((l) => l.rel === 'alternate')?.href, name).toMatch(/^http:\/\/kb\.test\//);
      const entries = feed.entries ?? [];
      expect(entries.length, name).toBeGreaterThan(0);
      expect(entries.length, name).toBeLessThanOrEqual(50);
      // Each entry: a unique id that is its page's address, a title, dates, one alternate link to the page.
      expect(new Set(entries.map((e) => e.id)).size, name).toBe(entries.length);
      for (const e of entries) {
        expect(e.title?.value, e.id).toBeTruthy();
        expect(e.updated, e.id).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00Z$/);
        expect(e.published, e.id).toBe(e.updated);
        expect(e.links?.filter((l) => l.rel === 'alternate'), e.id).toEqual([{ rel: 'alternate', type: 'text/html', href: e.id }]);
      }
      // Newest first, and the feed is as new as its newest entry.
      const dates = entries.map((e) => String(e.updated));
      expect(dates, name).toEqual([...dates].sort().reverse());
      expect(feed.updated, name).toBe(dates[0]);
    }
  });

  it('hold the newest 50 items of their kind or language, each entry in its own language', async () => {
    const feeds = await loadFeeds();
    const items = allItems(snap);
    const byUrl = new Map(items.map((i) => [i.url, i]));
    for (const name of FEEDS) {
      const entries = feeds.get(name)!.feed.entries!;
      const eligible = items.filter((i) => belongs(name, i));
      expect(entries.length, name).toBe(Math.min(50, eligible.length));
      for (const e of entries) {
        const item = byUrl.get(e.id!);
        expect(item, e.id).toBeDefined();
        expect(belongs(name, item!), `${name}: ${e.id}`).toBe(true);
        expect(e.xml?.lang, e.id).toBe(item!.lang);
      }
      // Nothing left out is newer than the oldest entry kept.
      const kept = new Set(entries.map((e) => e.id));
      const oldest = String(entries.at(-1)!.updated).slice(0, 10);
      expect(eligible.filter((i) => !kept.has(i.url) && i.date > oldest).map((i) => i.url), name).toEqual([]);
    }
    // The sample has more videos than a feed holds, and every digest and essay translation fits.
    expect(feeds.get('videos')!.feed.entries!.map((e) => e.id)).toEqual(snap.videos.slice(0, 50).map((v) => `${ORIGIN}/videos/${v.video_id}`));
    expect(feeds.get('digests')!.feed.entries!.map((e) => e.id)).toEqual(snap.digests.map((d) => `${ORIGIN}/digests/${d.date}`));
    expect(feeds.get('essays')!.feed.entries!.length).toBe(items.filter((i) => i.kind === 'essays').length);
    expect(new Set(feeds.get('sl')!.feed.entries!.map((e) => byUrl.get(e.id!)!.kind))).toEqual(new Set(['videos', 'essays']));
  });

  it('give a video its summary, channel, tags and the video itself, and an essay or digest its whole text with absolute links', async () => {
    const feeds = await loadFeeds();
    const v = snap.videos.find((x) => x.summary && x.tags.length)!;
    const ve = feeds.get('videos')!.feed.entries!.find((e) => e.id === `${ORIGIN}/videos/${v.video_id}`)!;
    expect(ve.summary?.value).toBe(v.summary);
    expect(ve.authors?.[0]?.name).toBe(snap.channelsById.get(v.channel)!.name);
    expect(ve.categories?.map((c) => c.term)).toEqual(v.tags);
    expect(ve.links?.find((l) => l.rel === 'related')?.href).toBe(v.url);

    const sl = snap.essays.find((e) => e.languages.includes('sl') && e.primary !== 'sl')!;
    const ee = feeds.get('essays')!.feed.entries!.find((e) => e.id === `${ORIGIN}/essays/${sl.slug}/sl`)!;
    expect(ee.title?.value).toBe(sl.translations.sl!.title);
    expect(ee.summary?.value).toBe(sl.translations.sl!.description);
    for (const e of [ee, feeds.get('digests')!.feed.entries![0]]) {
      expect(e.content?.type, e.id).toBe('html');
      const content = e.content!.value!;
      expect(content.length, e.id).toBeGreaterThan(500);
      expect(content, e.id).toMatch(/<p>/);
      expect(content, e.id).toMatch(/href="http:\/\/kb\.test\/(videos|knowledge|essays)\//);
      expect(content, e.id).not.toMatch(/(href|src)="\/(?!\/)/);
    }
    // A digest's entry is its items: the title is the entry's own, not repeated in the text.
    const d = snap.digests[0];
    const de = feeds.get('digests')!.feed.entries![0];
    expect(de.title?.value).toBe(d.title);
    expect(de.summary?.value).toBe(d.intro);
    expect(de.content?.value).toContain(d.items[0].headline);
    expect(de.content?.value).not.toContain('<h1>');
  });

  it('lead to pages that answer, and are answered with ETags, 304s and the same bytes with a query string', async () => {
    const feeds = await loadFeeds();
    const urls = new Set(FEEDS.flatMap((n) => feeds.get(n)!.feed.entries!.map((e) => e.id!)));
    for (const url of urls) {
      const res = await srv.get(local(url), { headers: { Accept: 'text/html' } });
      await res.arrayBuffer();
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type'), url).toMatch(/^text\/html/);
    }
    const first = await srv.get('/feeds/all.atom');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(await first.text()).toBe(feeds.get('all')!.xml);
    const again = await srv.get('/feeds/all.atom', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const tagged = await srv.get('/feeds/all.atom?utm_source=reader');
    expect(tagged.status).toBe(200);
    expect(tagged.headers.get('content-type')).toBe(ATOM);
    expect(await tagged.text()).toBe(feeds.get('all')!.xml);
    const br = await srv.get('/feeds/all.atom', { headers: { 'Accept-Encoding': 'br' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(await br.text()).toBe(feeds.get('all')!.xml);
  });

  it('keep their bytes from one build to the next when nothing they show changed, and escape what content holds', () => {
    const site = (generatedAt: string) => ({ baseUrl: ORIGIN, siteName: 'KB', description: 'd', generatedAt, devMode: true, keyPrefix: 'kb_', pipeline: { last_run_at: null, last_status: 'never' } });
    for (const name of FEEDS) expect(atomFeed(snap, site('2030-01-01T00:00:00Z'), name)).toBe(atomFeed(snap, site('2031-06-01T12:00:00Z'), name));
    const v = snap.videos[0];
    const odd = { ...v, title: 'A & B <c> "d"\u0001\uFFFE', summary: ']]> <script>x</script>', tags: ['x'] };
    const changed = { ...snap, videos: [odd, ...snap.videos.slice(1)] };
    const xml = atomFeed(changed, site('2030-01-01T00:00:00Z'), 'videos');
    expect(XMLValidator.validate(xml)).toBe(true);
    const entry = parseAtomFeed(xml).entries![0];
    expect(entry.title?.value).toBe('A & B <c> "d"');
    expect(entry.summary?.value).toBe(']]> <script>x</script>');
  });
});

describe('where the feeds are named', () => {
  it('every page names the feed of everything in its head; the home page all six; a kind or language page its own', async () => {
    const expectFeeds = async (path: string, names: Name[]) => {
      const links = await feedLinksOf(path);
      expect(links.map((l) => l.href), path).toEqual(names.map((n) => `${ORIGIN}/feeds/${n}.atom`));
      for (const l of links) expect(l.title, `${path} ${l.href}`).toBeTruthy();
    };
    await expectFeeds('/', [...FEEDS]);
    await expectFeeds('/videos', ['all', 'videos']);
    await expectFeeds('/essays', ['all', 'essays']);
    await expectFeeds('/digests', ['all', 'digests']);
    await expectFeeds(`/digests/${snap.digests[0].date}`, ['all', 'digests']);
    const slVideo = snap.videos.find((v) => v.language === 'sl')!;
    await expectFeeds(`/videos/${slVideo.video_id}`, ['all', 'videos', 'sl']);
    const slEssay = snap.essays.find((e) => e.languages.includes('sl') && e.primary !== 'sl')!;
    await expectFeeds(`/essays/${slEssay.slug}/sl`, ['all', 'essays', 'sl']);
    await expectFeeds(`/essays/${slEssay.slug}`, ['all', 'essays', 'en']);
    await expectFeeds('/knowledge', ['all']);
    await expectFeeds('/api/graph', ['all']);
    // Pages the server renders per request share the head.
    await expectFeeds('/search?q=agents', ['all']);
    await expectFeeds('/proposals', ['all']);
    // What the home page names is what the server serves.
    for (const l of await feedLinksOf('/')) {
      const res = await srv.get(local(l.href));
      await res.arrayBuffer();
      expect(res.status, l.href).toBe(200);
      expect(res.headers.get('content-type'), l.href).toBe(ATOM);
    }
  });

  it('/api/latest and /api list every feed, llms.txt and the prose reference name them', async () => {
    const expected = {
      all: `${ORIGIN}/feeds/all.atom`,
      videos: `${ORIGIN}/feeds/videos.atom`,
      essays: `${ORIGIN}/feeds/essays.atom`,
      digests: `${ORIGIN}/feeds/digests.atom`,
      by_language: { en: `${ORIGIN}/feeds/en.atom`, sl: `${ORIGIN}/feeds/sl.atom` },
    };
    const latest = await (await srv.get('/api/latest')).json();
    expect(latest.feeds).toEqual(expected);
    const summary = await (await srv.get('/api', { headers: { Accept: 'application/json' } })).json();
    expect(summary.feeds).toEqual(expected);
    const llms = await (await srv.get('/llms.txt')).text();
    const prose = await (await srv.get('/api', { headers: { Accept: 'text/markdown' } })).text();
    for (const name of FEEDS) {
      expect(llms, name).toContain(`${ORIGIN}/feeds/${name}.atom`);
      expect(prose, name).toContain(`/feeds/${name}.atom`);
    }
    const card = await (await srv.get('/.well-known/agent.json')).json();
    expect(card.endpoints.feed).toBe(`${ORIGIN}/feeds/all.atom`);
  });
});
