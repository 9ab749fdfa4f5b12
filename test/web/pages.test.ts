// The website without a browser (always runs): every prerendered page's essentials (lang, one h1, JSON
// twin, Open Graph, sized images, links that lead somewhere), the home page's weight, pages asked for
// with a query string, the 404 page, the no-JavaScript search, and the server's own pages: sign-in
// redirects, headers, the API key shown once, the moderation queue's guard, sanitised post essays.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestServer, walk, type TestServer } from '../helpers/server.ts';
import { sessionFor, bearerFor } from '../helpers/auth.ts';
import { urlPathForDistFile } from '../../src/lib/representation.ts';
import { pageLink, proposalPage } from '../../api/web/notifications.ts';
import { typesFrom } from '../../api/web/search.ts';

let srv: TestServer;
const clientDir = path.join(inject('sampleDist'), 'client');
const pages = walk(clientDir).filter((f) => f.endsWith('.html') && !f.startsWith('api/'));
const read = (rel: string) => fs.readFileSync(path.join(clientDir, rel), 'utf8');
const HTML = { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const form = (s: { headers: Record<string, string> }) => ({ ...s.headers, 'Content-Type': 'application/x-www-form-urlencoded' });

beforeAll(async () => {
  srv = await startTestServer({ env: { MODERATOR_EMAILS: 'mod@example.org' } });
});
afterAll(() => srv.stop());

describe('prerendered pages', () => {
  it('exist for every kind of item', () => {
    const urls = new Set(pages.map(urlPathForDistFile));
    for (const p of ['/', '/videos', '/channels', '/essays', '/digests', '/knowledge', '/personas', '/tags', '/search', '/404.html']) expect(urls.has(p), p).toBe(true);
    for (const prefix of ['/videos/', '/channels/', '/essays/', '/digests/', '/knowledge/', '/personas/', '/tags/']) {
      expect([...urls].some((u) => u.startsWith(prefix)), prefix).toBe(true);
    }
    expect(pages.filter((p) => /^videos\/[^/]+\/index\.html$/.test(p)).length).toBeGreaterThanOrEqual(60);
  });

  it('each has its language, one h1, a description, Open Graph tags, sized images and (items) a JSON twin', async () => {
    const problems: string[] = [];
    for (const rel of pages) {
      const html = read(rel);
      const url = urlPathForDistFile(rel);
      const check = (ok: boolean, what: string) => ok || problems.push(`${url}: ${what}`);
      check(/^<!DOCTYPE html><html lang="(en|sl)">/i.test(html), 'html lang');
      check((html.match(/<h1[\s>]/g) ?? []).length === 1, 'exactly one h1');
      check(/<meta name="description" content="[^"]+">/.test(html), 'description');
      check(/<meta property="og:title" content="[^"]+">/.test(html) && /<meta property="og:url" content="http:\/\/kb\.test\//.test(html), 'Open Graph');
      check(/<link rel="stylesheet" href="\/assets\/site\.css">/.test(html), 'stylesheet');
      for (const img of html.match(/<img [^>]*>/g) ?? []) check(/ width="\d+"/.test(img) && / height="\d+"/.test(img) && / alt="/.test(img), `image without size or alt: ${img}`);
      const twin = /<link rel="alternate" type="application\/json" href="([^"]+)">/.exec(html)?.[1];
      if (url === '/search' || url === '/404.html') continue;
      if (!twin) {
        problems.push(`${url}: no JSON twin`);
        continue;
      }
      const res = await srv.get(twin.replace(/&amp;/g, '&'));
      check(res.status === 200 && /^application\/json/.test(res.headers.get('content-type') ?? ''), `twin ${twin} answers ${res.status}`);
      await res.arrayBuffer();
    }
    expect(problems).toEqual([]);
  });

  it('link only to pages and documents that exist', async () => {
    const hrefs = new Set<string>();
    for (const rel of pages) for (const m of read(rel).matchAll(/ href="(\/[^"#]*)/g)) hrefs.add(m[1].replace(/&amp;/g, '&'));
    const broken: string[] = [];
    for (const href of hrefs) {
      const res = await srv.get(href, { headers: HTML, redirect: 'manual' });
      await res.arrayBuffer();
      if (res.status >= 400) broken.push(`${href}: ${res.status}`);
    }
    expect(hrefs.size).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });

  it('the home page stays under 100 KB before images (HTML, stylesheet and scripts)', async () => {
    const html = read('index.html');
    const assets = [...html.matchAll(/<(?:link rel="stylesheet"|script type="module") (?:href|src)="([^"]+)"/g)].map((m) => m[1]);
    const bytes = Buffer.byteLength(html) + assets.reduce((n, a) => n + fs.statSync(path.join(clientDir, a)).size, 0);
    expect(bytes).toBeLessThan(100 * 1024);
    // The home page's one script is the small one that names a signed-in reader in the header (with the
    // few strings it shows, as data).
    expect([...html.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual(['<script type="module" src="/assets/who.js">', '<script type="application/json" id="ui-messages">']);
    expect(html).toMatch(/<a href="\/videos\/[^"]+">/); // the digest's Sources links
  });

  it('puts Slovenian essays at /essays/<slug>/sl with lang="sl", hreflang alternates and the ?lang=sl twin', async () => {
    const essays = (await (await srv.get('/api/essays')).json()).items.filter((e: { available_languages: string[] }) => e.available_languages.includes('sl') && e.available_languages.includes('en'));
    expect(essays.length).toBeGreaterThan(0);
    for (const e of essays) {
      const html = read(`essays/${e.slug}/sl/index.html`);
      expect(html).toMatch(/^<!DOCTYPE html><html lang="sl">/i);
      expect(html).toContain(`<link rel="alternate" type="application/json" href="/api/essays/${e.slug}?lang=sl">`);
      expect(html).toContain(`<link rel="alternate" hreflang="en" href="http://kb.test/essays/${e.slug}">`);
      expect(html).toContain('<header class="site">'); // in the page's language, as the rest of the chrome
      expect(read(`essays/${e.slug}/index.html`)).toMatch(/<a href="\/essays\/[^"]+\/sl" lang="sl" hreflang="sl">Slovenščina<\/a>/);
    }
  });
});

describe('serving pages', () => {
  it('answers a page asked for with a query string with its prerendered bytes, and redirects a trailing slash', async () => {
    const id = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    const plain = await srv.get(`/videos/${id}`);
    const tracked = await srv.get(`/videos/${id}?utm_source=newsletter`);
    expect(tracked.status).toBe(200);
    expect(tracked.headers.get('etag')).toBe(plain.headers.get('etag'));
    expect(await tracked.text()).toBe(await plain.text());
    const slash = await srv.get(`/videos/${id}/`, { redirect: 'manual' });
    expect(slash.status).toBe(301);
    expect(slash.headers.get('location')).toBe(`/videos/${id}`);
  });

  it('gives browsers the 404 page and API clients JSON', async () => {
    const page = await srv.get('/videos/no-such-video', { headers: HTML });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<h1>Page not found</h1>');
    const json = await srv.get('/videos/no-such-video', { headers: { Accept: 'application/json' } });
    expect(json.status).toBe(404);
    expect(await json.json()).toMatchObject({ detail: 'Not found' });
    const api = await srv.get('/api/nothing-here', { headers: HTML });
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('searches without JavaScript: GET /search?q= renders the results, escaped, with type filters', async () => {
    const res = await srv.get('/search?q=human+review');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('value="human review"');
    expect(html).toMatch(/<p id="search-status" role="status">\d+ results? for “human review”/);
    expect(html).toMatch(/<ol class="hits" id="results">\n<li><span class="kind">/);
    expect(html).toContain('<mark>');
    const filtered = await (await srv.get('/search?q=review&types=knowledge&types=essay')).text();
    const kinds = new Set([...filtered.matchAll(/<span class="kind">(\w+)<\/span>/g)].map((m) => m[1]));
    expect([...kinds].every((k) => k === 'Knowledge' || k === 'Essay')).toBe(true);
    expect(filtered).toMatch(/value="knowledge" checked/);
    const hostile = await (await srv.get(`/search?q=${encodeURIComponent('<script>alert(1)</script>')}`)).text();
    expect(hostile).not.toContain('<script>alert(1)</script>');
    expect(hostile).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // Without a query it is the prerendered page itself.
    expect(await (await srv.get('/search?')).text()).toBe(read('search/index.html'));
    expect(typesFrom(['video,essay', 'knowledge', 'nonsense'])).toEqual(['video', 'essay', 'knowledge']);
  });
});

describe("the server's pages", () => {
  it('send people without a session to the sign-in and back', async () => {
    for (const p of ['/account', '/notifications', '/posts/me', '/moderation', '/account?pk=connected']) {
      const res = await srv.get(p, { redirect: 'manual' });
      expect(res.status, p).toBe(302);
      expect(new URL(res.headers.get('location')!, srv.url).searchParams.get('next'), p).toBe(p);
    }
  });

  it('show the account with strict headers, and a new API key once', async () => {
    const s = await sessionFor(srv, 'eva@example.org', 'Eva Horvat');
    const page = await srv.get('/account', { headers: s.headers });
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'.*frame-ancestors 'none'/);
    const html = await page.text();
    expect(html).toContain('eva@example.org');
    expect(html).toContain('<form method="post" action="/account/api-keys">');

    const created = await srv.get('/account/api-keys', { method: 'POST', headers: form(s), body: 'name=ci+script&expires_in_days=30' });
    expect(created.status).toBe(200);
    const key = /id="new-key" readonly value="(kb_[^"]+)"/.exec(await created.text())?.[1];
    expect(key).toBeTruthy();
    expect((await (await srv.get('/api/auth/me', { headers: { Authorization: `Bearer ${key}` } })).json()).authenticated).toBe(true);
    expect(await (await srv.get('/account', { headers: s.headers })).text()).not.toContain(key!);

    const crossSite = await srv.get('/account/api-keys', { method: 'POST', headers: { ...form(s), Origin: 'https://evil.example' }, body: 'name=stolen' });
    expect(crossSite.status).toBe(403);
  });

  it('updates the profile through a form, with the API\'s validation shown on the page', async () => {
    const s = await sessionFor(srv, 'luka@example.org', 'Luka');
    const ok = await srv.get('/account/profile', { method: 'POST', headers: form(s), body: 'display_name=Luka+Kralj&handle=luka_k&bio=Line+one%0D%0ALine+two', redirect: 'manual' });
    expect(ok.status).toBe(303);
    const me = await (await srv.get('/api/account/me', { headers: s.headers })).json();
    expect(me).toMatchObject({ display_name: 'Luka Kralj', handle: 'luka_k', bio: 'Line one\nLine two' });
    const bad = await srv.get('/account/profile', { method: 'POST', headers: form(s), body: 'display_name=Luka+Typed&handle=NO&bio=Typed+bio' });
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain('<p class="field-error" id="handle-error">The handle is not in the right form: use lower-case letters, digits and _, 3 to 30 characters.</p>');
    expect(html).toContain('value="NO" required pattern="[a-z0-9_]{3,30}" aria-invalid="true" aria-describedby="handle-error handle-help"');
    expect(html).toContain('value="Luka Typed"');
    expect(html).toContain('>Typed bio</textarea>');
    expect(html).not.toMatch(/String should|pattern '|\^\[/);
    // A handle someone else has: the API's 409, said by the handle field.
    const other = await sessionFor(srv, 'taken@example.org', 'Taken');
    await srv.get('/account/profile', { method: 'POST', headers: form(other), body: 'display_name=Taken&handle=taken_one&bio=', redirect: 'manual' });
    const taken = await srv.get('/account/profile', { method: 'POST', headers: form(s), body: 'display_name=Luka&handle=taken_one&bio=' });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain('<p class="field-error" id="handle-error">The handle @taken_one is taken.</p>');
  });

  it('keep what was typed in a refused API key, post, essay and flag form, with a sentence by the field', async () => {
    const s = await sessionFor(srv, 'typist@example.org', 'Typist');
    const key = await srv.get('/account/api-keys', { method: 'POST', headers: form(s), body: 'name=+++&expires_in_days=30' });
    expect(key.status).toBe(422);
    const keyHtml = await key.text();
    expect(keyHtml).toContain('<p class="field-error" id="key-name-error">The name of the key is required.</p>');
    expect(keyHtml).toContain('<option value="30" selected>');

    const created = await srv.get('/posts/me', { method: 'POST', headers: form(s), body: 'title=Typed+title&summary=Typed+summary&tags=ok%2C+c%2B%2B&lang=sl' });
    expect(created.status).toBe(422);
    const createdHtml = await created.text();
    expect(createdHtml).toContain('<p class="field-error" id="post-tags-error">“c++” is not a valid tag: use lower-case letters, digits and single hyphens, e.g. “ai-governance”.</p>');
    expect(createdHtml).toContain('value="Typed title"');
    expect(createdHtml).toContain('value="ok, c++"');
    expect(createdHtml).toContain('<option value="sl" selected>');
    expect(createdHtml).toContain('data-guard="unsaved"');

    const post = await (await srv.get('/api/posts', { method: 'POST', headers: { ...s.headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'A post', summary: 'S' }) })).json();
    const details = await srv.get(`/posts/me/${post.post_id}/details`, { method: 'POST', headers: form(s), body: 'title=No&summary=Kept&tags=&lang=en' });
    expect(details.status).toBe(422);
    const detailsHtml = await details.text();
    expect(detailsHtml).toContain('<p class="field-error" id="post-title-error">The title needs at least 3 characters; it has 2.</p>');
    expect(detailsHtml).toContain('>Kept</textarea>');

    const long = 'x'.repeat(100_001);
    const essay = await srv.get(`/posts/me/${post.post_id}/essay`, { method: 'POST', headers: form(s), body: new URLSearchParams({ body: long, etag: '' }).toString() });
    expect(essay.status).toBe(422);
    const essayHtml = await essay.text();
    expect(essayHtml).toContain('<p class="field-error" id="essay-error">The essay can have at most 100000 characters; it has 100001.</p>');
    expect(essayHtml).toContain(`>${long}</textarea>`);
  });

  it('submit the text in the editor: saved with its ETag first, and a stale one is a conflict that submits nothing', async () => {
    const s = await sessionFor(srv, 'submitter@example.org', 'Submitter');
    const post = await (await srv.get('/api/posts', { method: 'POST', headers: { ...s.headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'Submitted unsaved', summary: 'S' }) })).json();
    const first = await (await srv.get(`/api/posts/${post.post_id}/essay`, { headers: s.headers })).json();
    const text = 'Typed and never saved. '.repeat(10);
    const submitted = await srv.get(`/posts/me/${post.post_id}/submit`, { method: 'POST', headers: form(s), body: new URLSearchParams({ body: text, etag: first.etag }).toString(), redirect: 'manual' });
    expect(submitted.status).toBe(303);
    expect(submitted.headers.get('location')).toBe(`/posts/me/${post.post_id}?done=submitted`);
    expect(await (await srv.get(`/api/posts/${post.post_id}/essay`, { headers: s.headers })).json()).toMatchObject({ body: text, revision: 1 });

    const other = await (await srv.get('/api/posts', { method: 'POST', headers: { ...s.headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'Edited elsewhere', summary: 'S', body: 'The first version.' }) })).json();
    const stale = (await (await srv.get(`/api/posts/${other.post_id}/essay`, { headers: s.headers })).json()).etag;
    await srv.get(`/api/posts/${other.post_id}/essay`, { method: 'PUT', headers: { ...s.headers, 'Content-Type': 'application/json', 'If-Match': stale }, body: JSON.stringify({ body: 'Saved in another tab.' }) });
    const conflict = await srv.get(`/posts/me/${other.post_id}/submit`, { method: 'POST', headers: form(s), body: new URLSearchParams({ body: text, etag: stale }).toString() });
    expect(conflict.status).toBe(409);
    const html = await conflict.text();
    expect(html).toContain('Someone saved a newer version while you were editing');
    expect(html).toContain(`>${text}</textarea>`);
    expect((await (await srv.get(`/api/posts/${other.post_id}`, { headers: s.headers })).json()).status).toBe('draft');

    // Sent after the session ended: the text comes back in the same form, not lost in a sign-in redirect.
    const ended = { Cookie: 'kb_session=ended', Origin: srv.url, 'Content-Type': 'application/x-www-form-urlencoded' };
    for (const action of ['essay', 'submit']) {
      const signedOut = await srv.get(`/posts/me/${other.post_id}/${action}`, { method: 'POST', headers: ended, body: new URLSearchParams({ body: text, etag: stale }).toString(), redirect: 'manual' });
      expect(signedOut.status, action).toBe(401);
      const page = await signedOut.text();
      expect(page).toContain(`<form method="post" action="/posts/me/${other.post_id}/${action}" data-guard="unsaved">`);
      expect(page).toContain(`>${text}</textarea>`);
      expect(page).toContain(`<input type="hidden" name="etag" value="${stale.replaceAll('"', '&quot;')}">`);
      expect(page).toContain('target="_blank" rel="noopener">sign in in a new tab</a>');
    }
  });

  it('answer a failed sign-in with a page for browsers and the documented JSON for API clients', async () => {
    const page = await srv.get('/api/auth/idp/callback?state=unknown&code=x', { headers: HTML });
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<h1>Sign-in did not complete</h1>');
    expect(html).toContain('<p role="alert">This sign-in has expired or was already used; start again.</p>');
    expect(html).toContain('href="/api/auth/idp/login?next=%2F"');
    expect(html).not.toContain('"detail"');
    const api = await srv.get('/api/auth/idp/callback?state=unknown&code=x', { headers: { Accept: 'application/json' } });
    expect(api.status).toBe(400);
    expect((await api.json()).detail).toBe('Sign-in failed: this sign-in has expired or was already used; start again');
  });

  it('keep the moderation queue for moderators', async () => {
    const user = await sessionFor(srv, 'someone@example.org');
    const refused = await srv.get('/moderation', { headers: user.headers });
    expect(refused.status).toBe(403);
    expect((await srv.get('/api/moderation/comments', { headers: user.headers })).status).toBe(403);

    const mod = await sessionFor(srv, 'mod@example.org');
    const id = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    const { headers } = await bearerFor(srv, user.userId);
    const c = await (await srv.get('/api/comments', { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ entity_type: 'video', entity_id: id, body: 'spam <b>here</b>' }) })).json();
    await srv.get(`/api/comments/${c.comment_id}/hide`, { method: 'POST', headers: mod.headers });
    const list = await (await srv.get('/api/moderation/comments', { headers: mod.headers })).json();
    expect(list.items[0]).toMatchObject({ comment_id: c.comment_id, entity_url: `/videos/${id}`, body: 'spam <b>here</b>', hidden_by: { handle: expect.any(String) } });
    const html = await (await srv.get('/moderation', { headers: mod.headers })).text();
    expect(html).toContain('spam &lt;b&gt;here&lt;/b&gt;');
    expect(html).toContain(`action="/moderation/comments/${c.comment_id}/unhide"`);
  });

  it('render a published post with sanitised Markdown and keep drafts to their authors', async () => {
    const s = await sessionFor(srv, 'writer@example.org', 'Writer');
    const json = { ...s.headers, 'Content-Type': 'application/json' };
    const body = `${'A paragraph long enough to publish. '.repeat(8)}\n\n<script>alert(1)</script>\n\n[click](javascript:alert(1)) and **bold**`;
    const post = await (await srv.get('/api/posts', { method: 'POST', headers: json, body: JSON.stringify({ title: 'Sanitised essays', summary: 'A test.', body }) })).json();
    expect((await srv.get(`/posts/${post.slug}`, { headers: HTML })).status).toBe(404);
    expect((await srv.get(`/api/posts/${post.post_id}/submit`, { method: 'POST', headers: s.headers })).status).toBe(202);
    const page = await srv.get(`/posts/${post.slug}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('<strong>bold</strong>');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).not.toMatch(/href="javascript:/);
    expect(html).toContain(`data-entity-type="post" data-entity-id="${post.post_id}"`);
  });

  it('sign out through the header button', async () => {
    const s = await sessionFor(srv, 'leaving@example.org');
    const res = await srv.get('/signout', { method: 'POST', headers: s.headers, redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.getSetCookie().join()).toMatch(/kb_session=;/);
    expect((await (await srv.get('/api/auth/me', { headers: s.headers })).json()).authenticated).toBe(false);
  });
});

describe('a Slovenian post', () => {
  it('has its Related and Comments sections in Slovenian, as the rest of its chrome', async () => {
    const s = await sessionFor(srv, 'pisec@example.org', 'Pisec');
    const json = { ...s.headers, 'Content-Type': 'application/json' };
    const body = 'Odstavek, ki je dovolj dolg za objavo prispevka. '.repeat(8);
    const post = await (await srv.get('/api/posts', { method: 'POST', headers: json, body: JSON.stringify({ title: 'Slovenski prispevek', summary: 'Preskus.', lang: 'sl', body }) })).json();
    expect((await srv.get(`/api/posts/${post.post_id}/submit`, { method: 'POST', headers: s.headers })).status).toBe(202);
    const html = await (await srv.get(`/posts/${post.slug}`)).text();
    expect(html).toMatch(/<html lang="sl">/);
    expect(html).toContain('<h2 id="related-title">Sorodno</h2>');
    expect(html).toMatch(/related\?k=5&(amp;)?lang=sl"/); // related items by their Slovenian titles
    expect(html).toContain('<h2 id="comments-title">Komentarji</h2>');
    expect(html).toContain('Komentarji potrebujejo JavaScript.');
  });

  it('has its meta line, tags and vote control in Slovenian, with no English left', async () => {
    const s = await sessionFor(srv, 'glasovi@example.org', 'Avtorica');
    const json = { ...s.headers, 'Content-Type': 'application/json' };
    const body = 'Odstavek o glasovanju, dovolj dolg za objavo prispevka. '.repeat(8);
    const post = await (await srv.get('/api/posts', { method: 'POST', headers: json, body: JSON.stringify({ title: 'Prispevek z glasovi', summary: 'Preskus.', lang: 'sl', tags: ['agenti'], body }) })).json();
    expect((await srv.get(`/api/posts/${post.post_id}/submit`, { method: 'POST', headers: s.headers })).status).toBe(202);
    const english = /\bby Avtorica|published \d|\d votes?\b|aria-label="Tags"|for this essay|Sign in|lang="en"/;

    const anonymous = await (await srv.get(`/posts/${post.slug}`)).text();
    expect(anonymous).toMatch(/<p class="meta"><span>avtor Avtorica \(@[^)]+\)<\/span><span>objavljeno \d{4}-\d\d-\d\d \d\d:\d\d UTC<\/span><span>0 glasov<\/span><\/p>/);
    expect(anonymous).toContain('<ul class="tags" aria-label="Oznake"><li>agenti</li></ul>');
    expect(anonymous).toContain('<h2 id="vote-title">Glasovi</h2>');
    expect(anonymous).toContain('<strong id="vote-count">0 glasov za ta esej</strong>');
    expect(anonymous).toMatch(/>Prijavite se<\/a> in glasujte za ta esej\./);
    expect(anonymous).not.toMatch(english);

    expect(await (await srv.get(`/posts/${post.slug}`, { headers: s.headers })).text()).toContain('Ta prispevek ste napisali vi; glasujete lahko za prispevke drugih.');
    const reader = await sessionFor(srv, 'bralka@example.org', 'Bralka');
    expect(await (await srv.get(`/posts/${post.slug}`, { headers: reader.headers })).text()).toContain('>Glasuj za ta esej</button>');
    expect((await srv.get(`/posts/${post.slug}/vote`, { method: 'POST', headers: form(reader), body: 'action=vote', redirect: 'manual' })).status).toBe(303);
    const voted = await (await srv.get(`/posts/${post.slug}?done=voted`, { headers: reader.headers })).text();
    expect(voted).toContain('<strong id="vote-count">1 glas za ta esej</strong> (vključno z vašim)');
    expect(voted).toContain('Vaš glas je upoštevan.');
    expect(voted).toContain('>Umakni moj glas</button>');
    expect(voted).toContain('<span>1 glas</span>');
    expect(voted).not.toMatch(english);
  });
});

describe('notification links', () => {
  it('point notifications at pages on this site only', () => {
    expect(pageLink('/api/posts/my-post')).toBe('/posts/my-post');
    expect(pageLink('/videos/abc#comment-1')).toBe('/videos/abc#comment-1');
    expect(pageLink('https://evil.example/')).toBeNull();
    expect(pageLink('//evil.example/')).toBeNull();
    expect(pageLink('/api/proposals/prp_1')).toBeNull(); // never raw JSON
  });

  it('open a proposal\'s notification on a page: pending on /proposals, decided on its target\'s page', () => {
    const p = { proposal_id: 'prp_1', kind: 'tag_correction', target: { type: 'video', id: 'v1' } };
    expect(proposalPage({ ...p, status: 'pending' })).toBe('/proposals#proposal-prp_1');
    expect(proposalPage({ ...p, status: 'accepted' })).toBe('/videos/v1');
    expect(proposalPage({ ...p, kind: 'essay_promotion', status: 'applied', target: { type: 'post', id: 'pst_1' } })).toBe('/posts/pst_1');
    const promoted = { ...p, kind: 'essay_promotion', status: 'applied', target: { type: 'post', id: 'pst_1' } };
    expect(proposalPage({ ...promoted, applied: { files: ['essays/my-post/sl.md'] } })).toBe('/essays/my-post'); // the essay it wrote
    expect(proposalPage({ ...p, kind: 'concept_stub', status: 'rejected', target: { type: 'knowledge', id: 'draft' } })).toBe('/proposals');
    expect(proposalPage({ ...p, kind: 'concept_stub', status: 'applied', target: { type: 'knowledge', id: 'draft' } })).toBe('/knowledge/draft');
  });
});
