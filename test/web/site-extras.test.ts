// Issue 16's website items without a browser: robots.txt and sitemap.xml from BASE_URL, the meta of /device,
// /account and the graph, video thumbnails served by the site (title cards, or real images proxied and
// cached with VIDEO_THUMBNAILS=proxy), the graph data's build-time layout, and the server pages' controls
// (the essay vote, flagging a proposal) with the API's CSRF and permission rules.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestServer, walk, type TestServer } from '../helpers/server.ts';
import { sessionFor, bearerFor } from '../helpers/auth.ts';
import { urlPathForDistFile } from '../../src/lib/representation.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { graphData } from '../../src/lib/read/graph.ts';
import { sitemapDocuments, SITEMAP_MAX_URLS } from '../../src/web/crawl.ts';
import { fixtureContent } from '../helpers/content.ts';

let srv: TestServer;
const clientDir = path.join(inject('sampleDist'), 'client');
const read = (rel: string) => fs.readFileSync(path.join(clientDir, rel), 'utf8');
const form = (s: { headers: Record<string, string> }) => ({ ...s.headers, 'Content-Type': 'application/x-www-form-urlencoded' });
const json = (h: Record<string, string>) => ({ ...h, 'Content-Type': 'application/json' });

beforeAll(async () => {
  srv = await startTestServer({ env: { MODERATOR_EMAILS: 'mod@example.org' } });
});
afterAll(() => srv.stop());

describe('for crawlers (item 5)', () => {
  it('serves /robots.txt naming the sitemap at BASE_URL and keeping per-person pages out', async () => {
    const res = await srv.get('/robots.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await res.text();
    expect(text).toMatch(/^User-agent: \*$/m);
    for (const p of ['/account', '/notifications', '/posts/me', '/moderation', '/device']) expect(text).toContain(`Disallow: ${p}\n`);
    expect(text).toContain('Sitemap: http://kb.test/sitemap.xml');
  });

  it('serves /sitemap.xml listing exactly the prerendered pages (and the proposals page), each answering 200', async () => {
    const res = await srv.get('/sitemap.xml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const xml = await res.text();
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/);
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locs.every((l) => l.startsWith('http://kb.test/'))).toBe(true);
    const listed = new Set(locs.map((l) => l.slice('http://kb.test'.length)));
    expect(listed.size).toBe(locs.length);
    const pages = walk(clientDir)
      .filter((f) => f.endsWith('.html') && f !== '404.html')
      .map(urlPathForDistFile);
    expect([...listed].filter((p) => !pages.includes(p)).sort()).toEqual(['/proposals']);
    expect(pages.filter((p) => !listed.has(p))).toEqual([]);
    for (const p of listed) {
      const page = await srv.get(p, { headers: { Accept: 'text/html' } });
      await page.arrayBuffer();
      expect(page.status, p).toBe(200);
    }
    expect(xml).toMatch(/<url><loc>http:\/\/kb\.test\/digests\/\d{4}-\d{2}-\d{2}<\/loc><lastmod>\d{4}-\d{2}-\d{2}<\/lastmod><\/url>/);
  });

  it('splits a sitemap of more than 50,000 URLs into an index and parts', async () => {
    const snap = await loadSnapshot(fixtureContent());
    const many = { ...snap, videos: Array.from({ length: SITEMAP_MAX_URLS }, (_, i) => ({ ...snap.videos[0], video_id: `v${i}` })) };
    const docs = sitemapDocuments(many, 'https://kb.example');
    expect(docs.map((d) => d.path)).toEqual(['/sitemap.xml', '/sitemaps/1.xml', '/sitemaps/2.xml']);
    expect(docs[0].body).toContain('<sitemapindex');
    expect(docs[0].body).toContain('<loc>https://kb.example/sitemaps/2.xml</loc>');
    expect(docs[1].body.match(/<url>/g)).toHaveLength(SITEMAP_MAX_URLS);
  });

  it('gives /device and /account a meta description, and the graph page a favicon, description and canonical link', async () => {
    const device = await (await srv.get('/device')).text();
    expect(device).toMatch(/<meta name="description" content="[^"]{20,}">/);
    const s = await sessionFor(srv, 'meta@example.org');
    const account = await (await srv.get('/account', { headers: s.headers })).text();
    expect(account).toMatch(/<meta name="description" content="[^"]{20,}">/);
    const graph = read('api/graph/index.html');
    expect(graph).toContain('<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">');
    expect(graph).toMatch(/<meta name="description" content="A map of \d+ knowledge concepts[^"]+">/);
    expect(graph).toContain('<link rel="canonical" href="http://kb.test/api/graph">');
    expect(graph).toContain('<link rel="alternate" type="application/json" href="/api/graph/data">');
    // No inline script or style any more: the page runs under the plain page policy (the strings its
    // scripts show are a JSON data block, which is never run).
    expect(graph).not.toMatch(/<script(?![^>]*\b(?:src=|type="application\/json"))|<style|\sstyle=/);
    expect((await srv.get('/api/graph')).headers.get('content-security-policy')).toContain("script-src 'self';");
  });
});

describe('the graph data (item 1)', () => {
  it('carries a build-time layout: every node placed and sized, the same for the same content', async () => {
    const data = await (await srv.get('/api/graph/data')).json();
    expect(data.nodes.length).toBeGreaterThan(100);
    for (const n of data.nodes) {
      expect(Number.isFinite(n.x) && Number.isFinite(n.y) && n.size > 0, n.id).toBe(true);
      expect(Math.abs(n.x) <= 1000 && Math.abs(n.y) <= 1000, n.id).toBe(true);
    }
    expect(new Set(data.nodes.map((n: { x: number; y: number }) => `${n.x},${n.y}`)).size).toBeGreaterThan(data.nodes.length * 0.95);
    expect(data.nodes.find((n: { type: string }) => n.type === 'tag').url).toMatch(/^\/tags\/[a-z0-9-]+$/);
    // Every node on this site opens a page ("open its page").
    for (const n of data.nodes as { url: string }[]) {
      if (!n.url.startsWith('/')) continue;
      const res = await srv.get(n.url, { headers: { Accept: 'text/html' } });
      await res.arrayBuffer();
      expect(res.status, n.url).toBe(200);
    }
    // A fresh load (no memo) lays it out to the same bytes: the prerendered file and its twin agree.
    const again = graphData(await loadSnapshot(fixtureContent()));
    expect(JSON.stringify(again)).toBe(JSON.stringify(data));
  });
});

describe('video thumbnails served by the site (item 2)', () => {
  it('shows title cards on pages, never the video host', async () => {
    const id = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    for (const rel of ['index.html', 'videos/index.html', `videos/${id}/index.html`]) {
      const html = read(rel);
      expect(html, rel).not.toMatch(/<img[^>]+src="https?:/);
      expect(html, rel).toMatch(/<img[^>]+src="\/api\/videos\/[^/"]+\/thumbnail"/);
    }
    expect(read(`videos/${id}/index.html`)).toContain(`<meta property="og:image" content="http://kb.test/api/videos/${id}/thumbnail">`);
    const card = await srv.get(`/api/videos/${id}/thumbnail`);
    expect(card.status).toBe(200);
    expect(card.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await card.text()).toMatch(/^<svg [^>]*role="img" aria-label="[^"]+"/);
    expect((await srv.get('/api/videos/no-such-video/thumbnail')).status).toBe(404);
  });

  it('with VIDEO_THUMBNAILS=proxy fetches a real thumbnail once, caches it, and falls back to the title card', async () => {
    let hits = 0;
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 0xff, 0xd9]);
    const host = http.createServer((req, res) => {
      hits++;
      if (req.url === '/vi/real/hqdefault.jpg') res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(jpeg);
      else res.writeHead(404, { 'Content-Type': 'image/jpeg' }).end(jpeg);
    });
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    const hostName = `127.0.0.1:${(host.address() as AddressInfo).port}`;
    const content = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-thumb-content-'));
    fs.cpSync(fixtureContent(), content, { recursive: true });
    const [real, missing] = fs.readdirSync(path.join(content, 'videos')).slice(0, 2);
    const point = (file: string, url: string) => {
      const p = path.join(content, 'videos', file);
      fs.writeFileSync(p, fs.readFileSync(p, 'utf8').replace(/^thumbnail_url: .*$/m, `thumbnail_url: ${url}`));
    };
    point(real, `http://${hostName}/vi/real/hqdefault.jpg`);
    point(missing, `http://${hostName}/vi/made-up/hqdefault.jpg`);
    const proxied = await startTestServer({ ownOrigin: true, contentDir: content, env: { VIDEO_THUMBNAILS: 'proxy', THUMBNAIL_HOSTS: hostName } });
    try {
      const url = (file: string) => `/api/videos/${file.replace(/\.md$/, '')}/thumbnail`;
      const first = await proxied.get(url(real));
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toBe('image/jpeg');
      expect(Buffer.from(await first.arrayBuffer()).equals(jpeg)).toBe(true);
      const second = await proxied.get(url(real));
      expect(Buffer.from(await second.arrayBuffer()).equals(jpeg)).toBe(true);
      expect(hits).toBe(1); // the second came from DATA_DIR/cache/thumbnails
      const card = await proxied.get(url(missing));
      expect(card.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
      expect(await card.text()).toMatch(/^<svg /);
      await proxied.get(url(missing));
      expect(hits).toBe(2); // the miss is remembered too
      // A host not on THUMBNAIL_HOSTS is never fetched: the sample's i.ytimg.com ids get their card offline.
      const other = fs.readdirSync(path.join(content, 'videos'))[2];
      expect((await proxied.get(url(other))).headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
      expect(hits).toBe(2);
    } finally {
      await proxied.stop();
      host.close();
      fs.rmSync(content, { recursive: true, force: true });
    }
  });
});

describe("the server pages' controls (item 4)", () => {
  async function publishedPost(email: string) {
    const author = await sessionFor(srv, email, 'Author');
    const body = `${'A paragraph long enough to publish, about review queues. '.repeat(6)}`;
    const post = await (await srv.get('/api/posts', { method: 'POST', headers: json(author.headers), body: JSON.stringify({ title: `Votes ${email}`, summary: 'On votes.', body }) })).json();
    expect((await srv.get(`/api/posts/${post.post_id}/submit`, { method: 'POST', headers: author.headers })).status).toBe(202);
    return { author, post };
  }

  it('lets a reader vote for a post essay and take it back, through a form with the CSRF rule', async () => {
    const { author, post } = await publishedPost('voted-author@example.org');
    const reader = await sessionFor(srv, 'voter@example.org', 'Voter');
    const page = await (await srv.get(`/posts/${post.slug}`, { headers: reader.headers })).text();
    expect(page).toContain(`<form method="post" action="/posts/${post.slug}/vote">`);
    expect(page).toContain('0 votes for this essay');
    const crossSite = await srv.get(`/posts/${post.slug}/vote`, { method: 'POST', headers: { ...form(reader), Origin: 'https://evil.example' }, body: 'action=vote', redirect: 'manual' });
    expect(crossSite.status).toBe(403);
    const voted = await srv.get(`/posts/${post.slug}/vote`, { method: 'POST', headers: form(reader), body: 'action=vote', redirect: 'manual' });
    expect(voted.status).toBe(303);
    expect(voted.headers.get('location')).toBe(`/posts/${post.slug}?done=voted#vote`);
    expect(await (await srv.get(`/api/posts/${post.post_id}/essay/votes`, { headers: reader.headers })).json()).toMatchObject({ votes: 1, voted: true });
    const after = await (await srv.get(`/posts/${post.slug}?done=voted`, { headers: reader.headers })).text();
    expect(after).toContain('1 vote for this essay');
    expect(after).toContain('Take my vote back');
    await srv.get(`/posts/${post.slug}/vote`, { method: 'POST', headers: form(reader), body: 'action=unvote', redirect: 'manual' });
    expect((await (await srv.get(`/api/posts/${post.post_id}/essay/votes`)).json()).votes).toBe(0);

    // The author gets no button; a co-admin's vote is refused by the API, and the page says why.
    expect(await (await srv.get(`/posts/${post.slug}`, { headers: author.headers })).text()).not.toContain('Vote for this essay');
    const coAdmin = await sessionFor(srv, 'co-admin@example.org', 'Co');
    expect((await srv.get(`/api/posts/${post.post_id}/admins`, { method: 'POST', headers: json(author.headers), body: JSON.stringify({ user_id: coAdmin.userId }) })).status).toBe(201);
    const refused = await srv.get(`/posts/${post.slug}/vote`, { method: 'POST', headers: form(coAdmin), body: 'action=vote', redirect: 'manual' });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toMatch(/role="alert">You cannot vote for a post you write/);
    // Without a session the form sends people to sign in.
    expect((await srv.get(`/posts/${post.slug}/vote`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: srv.url }, body: 'action=vote', redirect: 'manual' })).status).toBe(302);
  });

  it('lists pending proposals at /proposals and lets a signed-in person flag one once', async () => {
    const proposer = await sessionFor(srv, 'proposer@example.org');
    const { headers } = await bearerFor(srv, proposer.userId);
    const id = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    const created = await srv.get('/api/proposals', { method: 'POST', headers: json(headers), body: JSON.stringify({ kind: 'tag_correction', title: 'Tag this video with pilots', payload: { target: { type: 'video', id }, add: ['pilots'] } }) });
    expect(created.status).toBe(201);
    const { proposal_id } = await created.json();
    const anonymous = await (await srv.get('/proposals')).text();
    expect(anonymous).toContain('Tag this video with pilots');
    expect(anonymous).not.toContain(`action="/proposals/${proposal_id}/flag"`);
    expect(anonymous).toMatch(/<meta name="description" content="[^"]+">/);

    const flagger = await sessionFor(srv, 'flagger@example.org');
    expect(await (await srv.get('/proposals', { headers: flagger.headers })).text()).toContain(`action="/proposals/${proposal_id}/flag"`);
    const crossSite = await srv.get(`/proposals/${proposal_id}/flag`, { method: 'POST', headers: { ...form(flagger), Origin: 'https://evil.example' }, body: 'reason=x' });
    expect(crossSite.status).toBe(403);
    const flagged = await srv.get(`/proposals/${proposal_id}/flag`, { method: 'POST', headers: form(flagger), body: 'reason=Not+about+pilots', redirect: 'manual' });
    expect(flagged.status).toBe(303);
    const proposal = await (await srv.get(`/api/proposals/${proposal_id}`)).json();
    expect(proposal.evidence.community_flags).toMatchObject({ count: 1, flags: [{ reason: 'Not about pilots' }] });
    // A refused reason is said by its field, kept, and its form left open.
    const other = await sessionFor(srv, 'second-flagger@example.org');
    const long = await srv.get(`/proposals/${proposal_id}/flag`, { method: 'POST', headers: form(other), body: `reason=${'x'.repeat(501)}` });
    expect(long.status).toBe(422);
    const longHtml = await long.text();
    expect(longHtml).toContain(`<p class="field-error" id="reason-${proposal_id}-error">The reason can have at most 500 characters; it has 501.</p>`);
    expect(longHtml).toContain(`>${'x'.repeat(501)}</textarea>`);
    expect(longHtml).toMatch(/<details open><summary>Flag this proposal/);
    const again = await srv.get(`/proposals/${proposal_id}/flag`, { method: 'POST', headers: form(flagger), body: '' });
    expect(again.status).toBe(409);
    expect(await again.text()).toMatch(/role="alert">[^<]*already/i);
  });
});
