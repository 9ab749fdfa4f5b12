// Slovenian pages in a real browser show no English user-interface string (issue 43, item 9): every page
// kind that can be Slovenian (the routes under src/pages are listed and each is classed below), read by a
// visitor and by a signed-in member with a comment on the page, so the header, footer, related items and
// comments the scripts draw are checked too. What counts as English: every string of the English
// catalogue (src/web/i18n/en.ts) that Slovenian says differently, and a list of English chrome words.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { fixtureContent } from '../helpers/content.ts';
import { en } from '../../src/web/i18n/en.ts';
import { sl } from '../../src/web/i18n/sl.ts';
import { CHANNEL_PAGE_SIZE } from '../../src/web/paging.ts';
import { describeInBrowser, launchBrowser, screenshot, seriousViolations, type TestBrowser } from './browser.ts';
import { startWebServer } from './server.ts';

const SL_CHANNEL = 'ui-v-praksi';
const SL_ONLY_ESSAY = 'samo-v-slovenscini';

/** Every page route, as a Slovenian page to read or the reason it has none. */
const ROUTES: Record<string, string | { english: string }> = {
  'videos/[id].astro': '/videos/1dHxMwar5rP',
  'channels/[id].astro': `/channels/${SL_CHANNEL}`,
  'channels/[id]/page/[n].astro': `/channels/${SL_CHANNEL}/page/2`,
  'essays/[slug]/[lang].astro': '/essays/eu-ai-act-for-deployers/sl',
  'essays/[slug].astro': `/essays/${SL_ONLY_ESSAY}`,
  '404.astro': { english: 'one page for every unknown address' },
  'index.astro': { english: 'the site’s lists and indexes are English' },
  'search.astro': { english: 'one search page' },
  'videos/index.astro': { english: 'a list' },
  'channels/index.astro': { english: 'a list' },
  'essays/index.astro': { english: 'a list' },
  'digests/index.astro': { english: 'a list' },
  'digests/[date].astro': { english: 'digests are written in English' },
  'knowledge/index.astro': { english: 'a list' },
  'knowledge/[slug].astro': { english: 'knowledge concepts are written in English' },
  'personas/index.astro': { english: 'a list' },
  'personas/[id].astro': { english: 'personas are described in English' },
  'tags/index.astro': { english: 'a list' },
  'tags/[tag].astro': { english: 'a list' },
};

/** English chrome words that must not show on a Slovenian page, whether or not the catalogue has them. */
const ENGLISH_CHROME = ['Skip to content', 'Sign in', 'Sign out', 'Account', 'Notifications', 'Moderation', 'Related', 'Comments', 'Reply', 'Edit', 'Delete',
  'Like', 'Newest', 'Page', 'Videos', 'Essays', 'Digests', 'Channels', 'Tags', 'Search', 'Summary', 'Published', 'Watch', 'video', 'videos', 'comment'];

/**
 * The English strings to look for: each catalogue string Slovenian says differently, cut at its
 * placeholders. Phrases are looked for anywhere; single words only as a whole text, label or title (a
 * Slovenian title may quote an English word).
 */
function englishStrings(): { phrases: string[]; words: string[] } {
  const texts = (m: string | object) => (typeof m === 'string' ? [m] : Object.values(m).filter((v): v is string => typeof v === 'string'));
  const found = new Set<string>(ENGLISH_CHROME);
  for (const [key, message] of Object.entries(en)) {
    const slovenian = new Set(texts(sl[key as keyof typeof sl]));
    for (const text of texts(message)) {
      if (slovenian.has(text)) continue;
      for (const piece of text.split(/\{\w+\}/)) {
        const bare = piece.replace(/^[\s(“,.;:]+|[\s)”,.;:]+$/g, '');
        if (bare.length >= 3) found.add(bare);
      }
    }
  }
  return { phrases: [...found].filter((s) => s.includes(' ')), words: [...found].filter((s) => !s.includes(' ')) };
}

/** What the page shows: its title, visible text, and the labels and titles assistive technology reads. */
async function shownText(page: Page): Promise<{ all: string; units: string[] }> {
  return page.evaluate(() => {
    const units: string[] = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const parent = n.parentElement;
      if (parent && parent.closest('script, style, noscript, [hidden]') === null) units.push((n.textContent ?? '').trim());
    }
    for (const e of document.body.querySelectorAll('[aria-label], [title], [alt], [placeholder]')) {
      for (const a of ['aria-label', 'title', 'alt', 'placeholder']) if (e.hasAttribute(a)) units.push(e.getAttribute(a)!.trim());
    }
    for (const e of document.body.querySelectorAll('a, button, h1, h2, h3, label, legend, p, li, span')) units.push((e as HTMLElement).innerText.trim());
    return { all: `${document.title}\n${document.body.innerText}\n${units.join('\n')}`, units: units.filter(Boolean) };
  });
}

async function expectNoEnglish(page: Page, what: string): Promise<void> {
  const { phrases, words } = englishStrings();
  const { all, units } = await shownText(page);
  const unitSet = new Set(units);
  const english = [...phrases.filter((p) => all.includes(p)), ...words.filter((w) => unitSet.has(w))];
  expect(english, `English on ${what}`).toEqual([]);
}

/** The sample content with a Slovenian channel long enough for a second page and an essay only in Slovenian. */
function slovenianContent(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-sl-content-'));
  fs.cpSync(fixtureContent(), dir, { recursive: true });
  for (let i = 0; i < CHANNEL_PAGE_SIZE; i++) {
    const id = `slposnetek${String(i).padStart(2, '0')}`;
    fs.writeFileSync(
      path.join(dir, 'videos', `${id}.md`),
      `---\nvideo_id: ${id}\ntitle: "Pogovor o uvajanju umetne inteligence, del ${i + 1}"\ndate: 2026-09-${String((i % 28) + 1).padStart(2, '0')}\nchannel: ${SL_CHANNEL}\nlanguage: sl\ntags: [public-sector]\nsummary: "Kratek pogovor o uvajanju v občini."\nthumbnail_url: https://i.ytimg.com/vi/${id}/hqdefault.jpg\nurl: https://www.youtube.com/watch?v=${id}\n---\n`,
    );
  }
  fs.mkdirSync(path.join(dir, 'essays', SL_ONLY_ESSAY));
  fs.writeFileSync(
    path.join(dir, 'essays', SL_ONLY_ESSAY, 'sl.md'),
    `---\ntitle: Esej samo v slovenščini\ndate: 2026-10-20\ndescription: "Esej, ki ima samo slovensko različico."\ntags: [public-sector]\nvideo: 1dHxMwar5rP\n---\nObčine umetno inteligenco uvajajo postopoma, s pilotnimi projekti in jasnimi pravili.\n`,
  );
  return dir;
}

let srv: TestServer;
let browser: TestBrowser;
let page: Page;
let content: string;

describeInBrowser('Slovenian pages', () => {
  beforeAll(async () => {
    content = slovenianContent();
    srv = await startWebServer({ CONTENT_DIR: content });
    browser = await launchBrowser(srv.url);
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    if (content) fs.rmSync(content, { recursive: true, force: true });
  });

  it('classes every page route: Slovenian pages to read, or why it has none', () => {
    const routes = (fs.readdirSync('src/pages', { recursive: true }) as string[]).filter((f) => f.endsWith('.astro')).map((f) => f.split(path.sep).join('/'));
    expect(routes.sort()).toEqual(Object.keys(ROUTES).sort());
  });

  const slovenian = Object.entries(ROUTES).flatMap(([route, url]) => (typeof url === 'string' ? [{ route, url }] : []));

  it.each(slovenian)('$route ($url) shows a visitor Slovenian chrome only', async ({ url }) => {
    await page.goto(`${srv.url}${url}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('sl');
    if (await page.locator('#comments').count()) await page.locator('#comments .comment-list p').first().waitFor();
    if (await page.locator('section.related').count()) await page.locator('section.related ul.hits').waitFor();
    await expectNoEnglish(page, url);
    await screenshot(page, `sl-${url.replace(/\W+/g, '-')}`);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('lists related essays by their Slovenian titles, linking the Slovenian pages', async () => {
    await page.goto(`${srv.url}/essays/eu-ai-act-for-deployers/sl`);
    await page.locator('section.related ul.hits').waitFor();
    const links = await page.locator('section.related ul.hits a[href^="/essays/"]').evaluateAll((as) => as.map((a) => ({ href: a.getAttribute('href')!, text: a.textContent })));
    let translated = 0;
    for (const { href, text } of links) {
      const slug = href.split('/')[2];
      const essay = await (await srv.get(`/api/essays/${slug}`)).json();
      if (!essay.available_languages.includes('sl')) continue;
      translated++;
      expect(text).toBe((await (await srv.get(`/api/essays/${slug}?lang=sl`)).json()).title);
      expect(href).toBe(slug === SL_ONLY_ESSAY ? `/essays/${slug}` : `/essays/${slug}/sl`);
    }
    expect(translated).toBeGreaterThan(0);
  });

  it('marks the English titles on a Slovenian page as English (the digests and concepts citing a video)', async () => {
    await page.goto(`${srv.url}/videos/1dHxMwar5rP`);
    const langs = await page
      .locator('main article a[href^="/digests/"], main article a[href^="/knowledge/"]')
      .evaluateAll((as) => as.map((a) => a.closest('[lang]')?.getAttribute('lang')));
    expect(langs.length).toBeGreaterThan(0);
    expect(new Set(langs)).toEqual(new Set(['en']));
  });

  it('shows a signed-in member, with a comment on the page, Slovenian chrome only', async () => {
    const url = '/videos/1dHxMwar5rP';
    await page.goto(`${srv.url}/api/auth/idp/login?next=${encodeURIComponent(url)}`);
    await page.locator('#email').fill('maja@example.org');
    await page.locator('#name').fill('Maja Novak');
    await page.locator('button', { hasText: 'Sign in' }).click(); // the development identity provider's own page
    await page.waitForURL(`${srv.url}${url}`);
    await page.locator('#comment-text-new').fill('Zelo uporaben posnetek.');
    await page.locator('#comments form button[type=submit]').click();
    await page.locator('#comments .comment .reactions').waitFor();
    await page.locator('header.site .who[data-signed-in]').waitFor();
    await page.locator('#comments .comment button', { hasText: sl['comments.reply'] }).click();
    await page.locator('section.related ul.hits').waitFor();
    await expectNoEnglish(page, `${url}, signed in`);
    await screenshot(page, 'sl-video-signed-in');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
