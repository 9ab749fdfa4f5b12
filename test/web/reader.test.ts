// A reader in a real browser: home, a digest's source link to the video page, an essay in Slovenian, a
// digest, and search as you type with the keyboard. Every page is screenshotted and checked by axe-core.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { describeInBrowser, layoutShift, screenshot, seriousViolations, type TestBrowser } from './browser.ts';
import { closeWebBrowser, openWebBrowser } from './server.ts';

let srv: TestServer;
let browser: TestBrowser;
let page: Page;

describeInBrowser('a reader', () => {
  beforeAll(async () => ({ srv, browser, page } = await openWebBrowser()));
  afterAll(() => closeWebBrowser(srv, browser));

  it('opens home and follows a digest source link to its video page', async () => {
    await page.goto(`${srv.url}/`);
    expect(await page.locator('h1').count()).toBe(1);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.locator('link[rel=alternate][type="application/json"]').getAttribute('href')).toBe('/api/latest');
    expect(await page.locator('meta[property="og:title"]').count()).toBe(1);
    expect(await layoutShift(page)).toBe(0);
    await screenshot(page, 'home');
    expect(await seriousViolations(page)).toEqual([]);

    const source = page.locator('section[aria-labelledby=digest-title] a[href^="/videos/"]').first();
    const href = (await source.getAttribute('href'))!;
    await source.click();
    await page.waitForURL(`${srv.url}${href}`);
    const videoId = href.split('/').pop()!;
    expect(await page.locator('link[rel=alternate][type="application/json"]').getAttribute('href')).toBe(`/api/videos/${videoId}`);
    expect(await page.locator('h1').count()).toBe(1);
    expect(await page.locator('a.player').getAttribute('href')).toMatch(/^https:\/\//);
    // Comments load in the browser; a reader who is not signed in is offered the sign-in.
    await page.locator('#comments a', { hasText: 'Sign in' }).waitFor();
    expect(await layoutShift(page)).toBeLessThan(0.1); // Core Web Vitals' "good"
    await screenshot(page, 'video');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('reads an essay in Slovenian, with the switch to English', async () => {
    await page.goto(`${srv.url}/essays`);
    const slLink = page.locator('a[hreflang=sl]').first();
    const href = (await slLink.getAttribute('href'))!;
    await slLink.click();
    await page.waitForURL(`${srv.url}${href}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('sl');
    expect(await page.locator('header.site').getAttribute('lang')).toBeNull(); // the chrome is in the page's language
    expect(await page.locator('link[rel=alternate][type="application/json"]').getAttribute('href')).toMatch(/^\/api\/essays\/[a-z0-9-]+\?lang=sl$/);
    await page.locator('nav.switch a[hreflang=en]').click();
    await page.waitForURL(`${srv.url}${href.replace(/\/sl$/, '')}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    await screenshot(page, 'essay');
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${srv.url}${href}`);
    await screenshot(page, 'essay-sl');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('reads a digest whose Sources links lead to video pages', async () => {
    await page.goto(`${srv.url}/digests`);
    await page.locator('main .list a').first().click();
    await page.waitForURL(/\/digests\/\d{4}-\d{2}-\d{2}$/);
    const sources = await page.locator('article a[href^="/videos/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(sources.length).toBeGreaterThanOrEqual(5);
    for (const s of sources) expect((await srv.get(s!)).status, s!).toBe(200);
    await screenshot(page, 'digest');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('searches as it types, moves through the hits with the arrow keys and opens one with Enter', async () => {
    await page.goto(`${srv.url}/search`);
    await page.locator('#q').click();
    await page.keyboard.type('human review', { delay: 20 });
    await expect.poll(() => page.locator('#results li').count(), { timeout: 10_000 }).toBeGreaterThan(1);
    await expect.poll(() => page.locator('#search-status').textContent()).toMatch(/results? for “human review”/);
    expect(page.url()).toBe(`${srv.url}/search?q=human+review`);
    await screenshot(page, 'search');
    expect(await seriousViolations(page)).toEqual([]);

    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const second = page.locator('#results li > a').nth(1);
    expect(await second.evaluate((a) => a === document.activeElement)).toBe(true);
    const target = (await second.getAttribute('href'))!;
    await page.keyboard.press('Enter');
    await page.waitForURL(`${srv.url}${target}`);
    expect(await page.locator('h1').count()).toBe(1);

    // The type filter narrows the results to one kind.
    await page.goto(`${srv.url}/search`);
    await page.locator('input[name=types][value=knowledge]').check();
    await page.locator('#q').fill('review');
    await expect.poll(() => page.locator('#results li').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(new Set(await page.locator('#results .kind').allTextContents())).toEqual(new Set(['Knowledge']));
  });
});
