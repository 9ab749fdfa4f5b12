// A member's notifications and comments in a real browser, at phone (390×844) and desktop (1366×768)
// sizes (issue 43, items 4 and 5): a reply that names @majanovak is listed under Mentions, the filter shown
// is marked, the notification's link lands on the comment, a proposal decision opens a page (not JSON),
// reactions keep their pressed state over a reload and toggle (a double click ends where it began),
// posting by keyboard puts focus on the new comment, and on a phone the comment buttons are 44 px targets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { bearerFor, sessionFor, type TestSession } from '../helpers/auth.ts';
import { describeInBrowser, launchBrowser, screenshot, seriousViolations, type TestBrowser } from './browser.ts';
import { startWebServer } from './server.ts';

const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1366, height: 768 },
] as const;
const MODERATOR = 'mo@example.org';
let srv: TestServer;
let browser: TestBrowser;
let page: Page;
let videoId = '';
let maja: TestSession;
let bo: Record<string, string>;
let mod: Record<string, string>;

const json = (h: Record<string, string>) => ({ ...h, 'Content-Type': 'application/json' });
const post = async (path: string, headers: Record<string, string>, body: unknown) => {
  const res = await srv.get(path, { method: 'POST', headers: json(headers), body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res.json();
};
const comment = (headers: Record<string, string>, body: string, parentId?: string) =>
  post('/api/comments', headers, { entity_type: 'video', entity_id: videoId, body, ...(parentId ? { parent_id: parentId } : {}) });

/** Whether the element's box is inside the window (to the pixel: scrolling leaves fractions). */
const inView = (l: Locator) => l.evaluate((e) => {
  const r = e.getBoundingClientRect();
  return r.top > -1 && r.bottom < window.innerHeight + 1 && r.height > 0;
});

/** The /react requests the page has finished, to wait for a toggle to settle. */
let reactCalls = 0;

describeInBrowser('notifications, reactions and comment focus', () => {
  beforeAll(async () => {
    srv = await startWebServer({ MODERATOR_EMAILS: MODERATOR, WRITE_RATE_LIMIT_PER_MINUTE: '1000' });
    browser = await launchBrowser(srv.url);
    page = browser.page;
    page.on('requestfinished', (r) => {
      if (/\/api\/comments\/[^/]+\/react/.test(r.url())) reactCalls++;
    });
    videoId = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    // Maja signs in as "Maja Novák": her handle is majanovak.
    maja = await sessionFor(srv, 'maja@example.org', 'Maja Novák');
    bo = (await bearerFor(srv, (await sessionFor(srv, 'bo@example.org', 'Bo Kranjc')).userId)).headers;
    mod = (await bearerFor(srv, (await sessionFor(srv, MODERATOR, 'Mo Derator')).userId)).headers;
    expect((await (await srv.get('/api/auth/me', { headers: maja.headers })).json()).user.handle).toBe('majanovak');
    await browser.context.addCookies([{ name: 'kb_session', value: maja.cookie.replace(/^kb_session=/, ''), url: srv.url }]);
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  for (const size of SIZES) describe(`at ${size.width}×${size.height}`, () => sizeTests(size));
});

function sizeTests(size: (typeof SIZES)[number]): void {
  let majaComment = '';
  beforeAll(async () => {
    await page.setViewportSize({ width: size.width, height: size.height });
  });

  it('lists a reply naming @majanovak under Mentions, marks the filter, and its link lands on the comment', async () => {
    majaComment = (await comment(maja.headers, `Our pilot halved the review queue (${size.name}).`)).comment_id;
    const reply = await comment(bo, `@majanovak which team ran the pilot (${size.name})?`, majaComment);
    // More of the thread after it, so the page is long and the comment is not where it opens.
    for (let i = 0; i < 4; i++) await comment(bo, `Another thought on review queues, number ${i + 1} (${size.name}).\n\nWith a second paragraph.`);

    await page.goto(`${srv.url}/notifications?filter=mentions`);
    const filters = page.locator('nav[aria-label=Show] a');
    expect(await page.locator('nav[aria-label=Show] a[aria-current]').allTextContents()).toEqual(['Mentions']);
    const look = (l: Locator) => l.evaluate((e) => `${getComputedStyle(e).backgroundColor} ${getComputedStyle(e).color}`);
    expect(await look(filters.filter({ hasText: 'Mentions' }))).not.toBe(await look(filters.filter({ hasText: 'All' })));
    const item = page.locator('main li', { hasText: `which team ran the pilot (${size.name})` });
    expect(await item.locator('h2').textContent()).toContain('Bo Kranjc mentioned you');
    await screenshot(page, `notifications-mentions-${size.name}`);
    expect(await seriousViolations(page)).toEqual([]);

    await item.locator('h2 a').click();
    await page.waitForURL(`${srv.url}/videos/${videoId}#comment-${reply.comment_id}`);
    const target = page.locator(`#comment-${reply.comment_id}`);
    await page.locator(`#comment-${reply.comment_id}:target`).waitFor();
    await expect.poll(() => inView(target)).toBe(true);
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    await screenshot(page, `notification-landed-${size.name}`);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('opens a page, not JSON, from a proposal decision', async () => {
    const proposal = await post('/api/proposals', maja.headers, { kind: 'tag_correction', title: `Tag this video with queues (${size.name})`, payload: { target: { type: 'video', id: videoId }, add: ['queues'] } });
    await post(`/api/proposals/${proposal.proposal_id}/decision`, mod, { action: 'accept' });
    await page.goto(`${srv.url}/notifications?filter=system`);
    const link = page.locator('main li h2 a', { hasText: `Tag this video with queues (${size.name})` });
    expect(await link.getAttribute('href')).not.toMatch(/^\/api\//);
    const [response] = await Promise.all([page.waitForEvent('response', (r) => r.request().isNavigationRequest()), link.click()]);
    await page.waitForLoadState('domcontentloaded');
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toMatch(/^text\/html/);
    expect(new URL(page.url()).pathname).toBe(`/videos/${videoId}`);
    expect(await page.locator('h1').count()).toBe(1);
  });

  it('keeps a reaction pressed over a reload; a second click takes it back, a double click ends where it began', async () => {
    await page.goto(`${srv.url}/videos/${videoId}`);
    const reactionsOf = (id: string) => page.locator(`#comment-${id} > .reactions`);
    const like = reactionsOf(majaComment).locator('button[data-kind=like]');
    await like.waitFor();
    expect(await like.getAttribute('aria-pressed')).toBe('false');
    const settled = async (calls: number) => expect.poll(() => reactCalls, { timeout: 10_000 }).toBe(calls);
    const mine = async () => (await (await srv.get(`/api/comments/${majaComment}`, { headers: maja.headers })).json()).mine;

    let calls = reactCalls;
    await like.click();
    await settled(++calls);
    expect(await mine()).toEqual(['like']);
    await page.reload();
    await like.waitFor();
    expect(await like.getAttribute('aria-pressed')).toBe('true');
    expect(await like.locator('.count').textContent()).toBe('1');
    await screenshot(page, `reaction-after-reload-${size.name}`);

    // A double click on a pressed reaction: taken back and given again.
    await like.dblclick();
    await settled((calls += 2));
    expect(await like.getAttribute('aria-pressed')).toBe('true');
    expect(await like.locator('.count').textContent()).toBe('1');
    expect(await mine()).toEqual(['like']);
    // A double click on one not given: given and taken back.
    const insightful = reactionsOf(majaComment).locator('button[data-kind=insightful]');
    await insightful.dblclick();
    await settled((calls += 2));
    expect(await insightful.getAttribute('aria-pressed')).toBe('false');
    expect(await insightful.locator('.count').textContent()).toBe('0');
    expect(await mine()).toEqual(['like']);
    // A second click takes it back.
    await like.click();
    await settled(++calls);
    expect(await like.getAttribute('aria-pressed')).toBe('false');
    expect(await like.locator('.count').textContent()).toBe('0');
    expect(await mine()).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('moves focus to the new comment and says so after posting by keyboard', async () => {
    await page.goto(`${srv.url}/videos/${videoId}`);
    const text = page.locator('#comment-text-new');
    await text.focus();
    await page.keyboard.type(`Posted from the keyboard (${size.name}).`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Post comment');
    await page.keyboard.press('Enter');
    const posted = page.locator('#comments .comment', { hasText: `Posted from the keyboard (${size.name}).` });
    await posted.waitFor();
    const id = await posted.getAttribute('id');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(id);
    expect(await inView(posted)).toBe(true);
    expect(await page.locator('#comments [role=status]').textContent()).toBe('Your comment is posted.');

    // A reply by keyboard: focus goes to the reply.
    await posted.locator(':scope > button', { hasText: 'Reply' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.type('And a reply, by keyboard too.');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const reply = posted.locator('.replies .comment', { hasText: 'And a reply, by keyboard too.' });
    await reply.waitFor();
    const replyId = await reply.getAttribute('id');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(replyId);
    expect(await page.locator('#comments [role=status]').textContent()).toBe('Your reply is posted.');
    await screenshot(page, `comment-posted-by-keyboard-${size.name}`);
    expect(await seriousViolations(page)).toEqual([]);
  });

  if (size.name === 'phone') {
    it('gives Edit, Delete, Reply and the reactions touch targets of at least 44 × 44 px on a phone', async () => {
      await page.goto(`${srv.url}/videos/${videoId}`);
      const mineNode = page.locator(`#comment-${majaComment}`);
      const buttons = [
        mineNode.locator(':scope > .comment-tools button', { hasText: 'Edit' }),
        mineNode.locator(':scope > .comment-tools button', { hasText: 'Delete' }),
        mineNode.locator(':scope > button', { hasText: 'Reply' }),
        ...['like', 'insightful', 'agree', 'disagree', 'question'].map((k) => mineNode.locator(`:scope > .reactions button[data-kind=${k}]`)),
      ];
      await buttons[0].waitFor();
      const small: string[] = [];
      for (const b of buttons) {
        const box = (await b.boundingBox())!;
        if (box.width < 44 || box.height < 44) small.push(`${(await b.textContent())?.trim()}: ${box.width}×${box.height}`);
      }
      expect(small).toEqual([]);
    });
  }
}
