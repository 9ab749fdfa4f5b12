// Video cards on a phone (issue 43, item 10): the card's image no longer repeats the title printed beside
// it, and the card is a compact row (thumbnail beside the title) instead of a full-width image.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { describeInBrowser, screenshot, seriousViolations, type TestBrowser } from './browser.ts';
import { closeWebBrowser, openWebBrowser } from './server.ts';

let srv: TestServer;
let browser: TestBrowser;
let page: Page;

describeInBrowser('video cards', () => {
  beforeAll(async () => ({ srv, browser, page } = await openWebBrowser()));
  afterAll(() => closeWebBrowser(srv, browser));

  it('a video card image shows the channel, not the title printed beside it', async () => {
    const videos = (await (await srv.get('/api/videos?limit=5')).json()).items as { video_id: string; title: string; channel: { name: string } }[];
    for (const v of videos) {
      const svg = await (await srv.get(`/api/videos/${v.video_id}/thumbnail`)).text();
      const shown = [...svg.matchAll(/<text[^>]*>(.*?)<\/text>/g)].map((m) => m[1].replace(/<[^>]+>/g, ' ')).join(' ');
      expect(shown, v.video_id).toContain(v.channel.name.replace(/&/g, '&amp;'));
      for (const word of v.title.split(/\s+/).filter((w) => w.length > 6)) expect(shown, `${v.video_id}: ${word}`).not.toContain(word);
    }
  });

  it('on a phone each card is a row of thumbnail and title, under half its former height', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${srv.url}/videos`);
    await screenshot(page, 'videos-phone');
    const cards = await page.locator('.cards .card').evaluateAll((lis) =>
      lis.map((li) => {
        const img = li.querySelector('img')!.getBoundingClientRect();
        const title = li.querySelector('h2, h3')!.getBoundingClientRect();
        return { height: li.getBoundingClientRect().height, imgWidth: img.width, titleBesideImage: title.left >= img.right };
      }),
    );
    expect(cards.length).toBeGreaterThan(5);
    for (const c of cards) {
      expect(c.height).toBeLessThanOrEqual(180); // ~370 px with the image above the title
      expect(c.imgWidth).toBeLessThanOrEqual(130);
      expect(c.titleBesideImage).toBe(true);
    }
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('on a desktop the cards keep their image above the title', async () => {
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.goto(`${srv.url}/videos`);
    const first = page.locator('.cards .card').first();
    const img = (await first.locator('img').boundingBox())!;
    const title = (await first.locator('h2').boundingBox())!;
    expect(title.y).toBeGreaterThanOrEqual(img.y + img.height);
  });
});
