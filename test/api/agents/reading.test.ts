// Reading as an agent prefers (issue 16, item 10): every page has a Markdown twin at <page>.md, as llms.txt
// says; a page asked for with Accept: application/json or text/markdown answers its JSON or Markdown twin,
// and a Link header names both; /llms-full.txt holds the whole corpus in one fetch.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestServer, walk, type TestServer } from '../../helpers/server.ts';

let srv: TestServer;
const BASE = 'http://kb.test';
const clientDir = path.join(inject('sampleDist'), 'client');
/** Every prerendered page (an HTML file outside /api), as a URL path. */
const pages = walk(clientDir)
  .filter((f) => f.endsWith('index.html') && !f.startsWith('api/') && !f.startsWith('_astro/'))
  .map((f) => `/${f.replace(/(^|\/)index\.html$/, '')}`)
  .filter((p) => p !== '/search');

beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.stop());

const twinOf = (page: string) => (page === '/' ? '/index.html.md' : `${page}.md`);

describe('Markdown twins', () => {
  it('exist for every page, prerendered and answered dynamically alike, as llms.txt promises', async () => {
    expect(pages.length).toBeGreaterThan(100);
    const llms = await (await srv.get('/llms.txt')).text();
    expect(llms).toContain(`${BASE}/index.html.md`);
    expect(llms).toMatch(/plus `\.md`/);
    const missing: string[] = [];
    for (const page of pages) {
      const res = await srv.get(twinOf(page));
      const body = await res.text();
      if (res.status !== 200 || res.headers.get('content-type') !== 'text/markdown; charset=utf-8' || !body.startsWith('# ')) missing.push(`${page}: ${res.status}`);
      else if (!body.includes(`Page: ${BASE}${page}`)) missing.push(`${page}: no Page line`);
    }
    expect(missing).toEqual([]);
    // The same bytes from the read model when a query string sends the request past the prerendered file.
    const video = pages.find((p) => p.startsWith('/videos/'))!;
    const file = await srv.get(twinOf(video));
    const dynamic = await srv.get(`${twinOf(video)}?utm=1`);
    expect(await dynamic.text()).toBe(await file.text());
    expect(dynamic.headers.get('etag')).toBe(file.headers.get('etag'));
    expect((await srv.get('/videos/no-such-video.md')).status).toBe(404);
  });

  it('carry the content with absolute links to the pages to cite', async () => {
    const digest = await (await srv.get('/api/digests')).json();
    const md = await (await srv.get(`/digests/${digest.items[0].date}.md`)).text();
    expect(md).toMatch(new RegExp(`\\]\\(${BASE}/videos/`));
    expect(md).not.toMatch(/\]\(\/videos\//);
    const essay = (await (await srv.get('/api/essays')).json()).items[0];
    const text = await (await srv.get(`/essays/${essay.slug}.md`)).text();
    expect(text).toContain(`# ${essay.title}`);
    expect(text).toContain(`JSON: ${BASE}/api/essays/${essay.slug}`);
  });
});

describe('Accept on a page', () => {
  it('a browser gets HTML with a Link header naming both twins', async () => {
    const id = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    const res = await srv.get(`/videos/${id}`, { headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('link')).toBe(`</videos/${id}.md>; rel="alternate"; type="text/markdown", </api/videos/${id}>; rel="alternate"; type="application/json"`);
    expect(res.headers.get('vary')).toMatch(/\bAccept\b/);
    expect((await srv.get('/')).headers.get('link')).toContain('</index.html.md>');
  });

  it('application/json gets the JSON document, text/markdown the Markdown twin', async () => {
    const id = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    const json = await srv.get(`/videos/${id}`, { headers: { Accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json.headers.get('content-location')).toBe(`/api/videos/${id}`);
    expect(json.headers.get('vary')).toMatch(/\bAccept\b/);
    const doc = await json.json();
    expect(doc).toEqual(await (await srv.get(`/api/videos/${id}`)).json());
    expect(doc.page_url).toBe(`${BASE}/videos/${id}`);
    const md = await srv.get(`/videos/${id}`, { headers: { Accept: 'text/markdown, text/html;q=0.5' } });
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await md.text()).toBe(await (await srv.get(`/videos/${id}.md`)).text());
    // Revalidation works on the twin's own ETag.
    const again = await srv.get(`/videos/${id}`, { headers: { Accept: 'application/json', 'If-None-Match': json.headers.get('etag')! } });
    expect(again.status).toBe(304);
    // Lists too; a twin that needs a query string is a redirect to it.
    expect((await (await srv.get('/essays', { headers: { Accept: 'application/json' } })).json()).items.length).toBeGreaterThan(0);
    const bilingual = (await (await srv.get('/api/essays')).json()).items.find((e: { available_languages: string[] }) => e.available_languages.length > 1);
    const other = bilingual.available_languages.find((l: string) => l !== bilingual.lang);
    const moved = await srv.get(`/essays/${bilingual.slug}/${other}`, { headers: { Accept: 'application/json' }, redirect: 'manual' });
    expect(moved.status).toBe(303);
    expect(moved.headers.get('location')).toBe(`/api/essays/${bilingual.slug}?lang=${other}`);
  });
});

describe('/llms-full.txt', () => {
  it('holds every essay, digest, knowledge concept and persona, and every video, each with its page', async () => {
    const res = await srv.get('/llms-full.txt');
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const list of ['essays', 'digests', 'knowledge', 'personas', 'videos']) {
      const items = (await (await srv.get(`/api/${list}${list === 'videos' ? '?limit=200' : ''}`)).json()).items as { title?: string; name?: string; page_url: string }[];
      for (const item of items) {
        expect(text, item.page_url).toContain(`Page: ${item.page_url}`);
      }
    }
    expect((await srv.get('/llms-full.txt?x=1')).headers.get('etag')).toBe(res.headers.get('etag'));
  });
});
