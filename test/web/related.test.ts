// "Related" under an item adds what the page does not already list (issue 43, item 10): a concept's
// Sources, the digests and concepts citing a video are not repeated, and the list is still full.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { describeInBrowser, seriousViolations, type TestBrowser } from './browser.ts';
import { closeWebBrowser, openWebBrowser } from './server.ts';

let srv: TestServer;
let browser: TestBrowser;
let page: Page;

/** The related items' links and the item pages the article itself links to. */
async function relatedAndListed(url: string): Promise<{ related: string[]; listed: string[] }> {
  await page.goto(`${srv.url}${url}`);
  await page.locator('section.related ul.hits').waitFor();
  const related = await page.locator('section.related ul.hits a').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
  const listed = await page.locator('main article a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!).filter((h) => /^\/(videos|essays|digests|knowledge|personas)\//.test(h)));
  return { related, listed };
}

describeInBrowser('related items', () => {
  beforeAll(async () => ({ srv, browser, page } = await openWebBrowser()));
  afterAll(() => closeWebBrowser(srv, browser));

  it('a concept page does not repeat its Sources under Related, and still shows five items', async () => {
    const { related, listed } = await relatedAndListed('/knowledge/shadow-ai');
    expect(listed.filter((h) => h.startsWith('/videos/')).length).toBeGreaterThanOrEqual(2);
    expect(related.filter((h) => listed.includes(h))).toEqual([]);
    expect(related).toHaveLength(5);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a video page does not repeat the digests and concepts that cite it', async () => {
    const concept = await (await srv.get('/api/knowledge/shadow-ai')).json();
    const video = concept.sources.find((s: { type: string }) => s.type === 'video');
    const { related, listed } = await relatedAndListed(`/videos/${video.id}`);
    expect(listed).toContain('/knowledge/shadow-ai');
    expect(related.filter((h) => listed.includes(h))).toEqual([]);
    expect(related).toHaveLength(5);
  });
});
