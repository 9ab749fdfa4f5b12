// A member's writing day in a real browser, at phone and desktop sizes (issue 43, items 1 to 3): a
// sign-in cancelled at the identity provider ends on a page in words, not JSON; "Your posts" is in the
// header, on the account page and in the footer; a bad tag is a sentence under the tags field with every
// input kept; an essay typed and submitted without "Save essay" is stored, not thrown away; leaving
// the editor with unsaved text asks first; and a refused comment edit is a sentence under its text box.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { describeInBrowser, launchBrowser, screenshot, seriousViolations, type TestBrowser } from './browser.ts';
import { startWebServer } from './server.ts';

const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1366, height: 768 },
] as const;
const ESSAY = `${'Agents take the routine work off a team, and the team has to decide what it does with the time. '.repeat(3)}\n\nThis paragraph was never saved with the Save button.`;
const SHORT = 'Too short.';

let srv: TestServer;

/** The text a person reads on the page: no JSON, no schema pattern, no field path. */
async function expectWords(page: Page): Promise<void> {
  const text = (await page.locator('main').textContent()) ?? '';
  expect(text).not.toMatch(/[{}]|"detail"|String should|pattern|\^\[|tags\.\d/);
}

function journey(size: (typeof SIZES)[number]): void {
  let browser: TestBrowser;
  let page: Page;
  const email = `writer-${size.name}@example.org`;
  let editorUrl = '';

  beforeAll(async () => {
    browser = await launchBrowser(srv.url);
    page = browser.page;
    await page.setViewportSize({ width: size.width, height: size.height });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows a page in words when the sign-in is cancelled at the identity provider, and signs in from there', async () => {
    await page.goto(`${srv.url}/account`);
    await page.waitForURL(/\/idp\/interaction\//);
    const answer = page.waitForResponse((r) => r.url().includes('/api/auth/idp/callback'));
    await page.locator('button', { hasText: 'Cancel' }).click();
    const callback = await answer;
    expect(callback.status()).toBe(400);
    expect(callback.headers()['content-type']).toMatch(/^text\/html/);
    expect(await page.locator('h1').textContent()).toBe('Sign-in cancelled');
    expect(await page.locator('main [role=alert]').textContent()).toBe('You cancelled the sign-in at the identity provider, so you are not signed in. Nothing was changed.');
    await expectWords(page);
    await screenshot(page, `member-${size.name}-signin-cancelled`);
    expect(await seriousViolations(page)).toEqual([]);

    await page.locator('main a', { hasText: 'Sign in again' }).click();
    await page.waitForURL(/\/idp\/interaction\//);
    await page.locator('#email').fill(email);
    await page.locator('#name').fill(`Writer ${size.name}`);
    await page.locator('button', { hasText: 'Sign in' }).click();
    await page.waitForURL(`${srv.url}/account`);
  });

  it('leads to /posts/me from the header, the account page and the footer', async () => {
    const accountLink = page.locator('#posts a[href="/posts/me"]');
    expect(await accountLink.textContent()).toBe('Your posts');
    expect(await accountLink.isVisible()).toBe(true);
    expect(await page.locator('footer.site a[href="/posts/me"]').textContent()).toBe('Write a post');
    await screenshot(page, `member-${size.name}-account`);
    expect(await seriousViolations(page)).toEqual([]);

    // A prerendered page learns its reader from who.js, which puts the link in the header too.
    await page.goto(`${srv.url}/`);
    const header = page.locator('header.site .who a[href="/posts/me"]');
    await header.waitFor();
    expect(await header.isVisible()).toBe(true);
    await header.click();
    await page.waitForURL(`${srv.url}/posts/me`);
    expect(await page.locator('h1').textContent()).toBe('Your posts');
    expect(await page.locator('header.site .who a[href="/posts/me"]').getAttribute('aria-current')).toBe('page');
  });

  it('shows a bad tag as a sentence under the tags field and keeps every input', async () => {
    await page.locator('#post-title').fill('Working alongside agents');
    await page.locator('#post-summary').fill('What changes for a team when agents take the routine work.');
    await page.locator('#post-tags').fill('governance, AI_ethics, agents');
    await page.locator('#post-lang').selectOption('sl');
    await page.locator('button', { hasText: 'Create the draft' }).click();
    const note = page.locator('#post-tags-error');
    await note.waitFor();
    expect(await note.textContent()).toBe('“ai_ethics” is not a valid tag: use lower-case letters, digits and single hyphens, e.g. “ai-governance”.');
    expect(await page.locator('#post-tags').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#post-tags').getAttribute('aria-describedby')).toBe('post-tags-error post-tags-help');
    expect(await page.locator('[role=alert]').first().textContent()).toContain('The draft was not created.');
    expect(await page.locator('#post-title').inputValue()).toBe('Working alongside agents');
    expect(await page.locator('#post-summary').inputValue()).toBe('What changes for a team when agents take the routine work.');
    expect(await page.locator('#post-tags').inputValue()).toBe('governance, AI_ethics, agents');
    expect(await page.locator('#post-lang').inputValue()).toBe('sl');
    await expectWords(page);
    await screenshot(page, `member-${size.name}-bad-tag`);
    expect(await seriousViolations(page)).toEqual([]);

    await page.locator('#post-tags').fill('governance, ai-ethics, agents');
    await page.locator('#post-lang').selectOption('en');
    await page.locator('button', { hasText: 'Create the draft' }).click();
    await page.waitForURL(/\/posts\/me\/[^/?]+$/);
    editorUrl = page.url();
    expect(await page.locator('#post-tags').inputValue()).toBe('governance, ai-ethics, agents');
  });

  it('asks before leaving the editor with unsaved text, and stays when the person says so', async () => {
    await page.locator('#essay').click();
    await page.keyboard.type('Unsaved words.');
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.type();
      void d.dismiss();
    });
    await page.locator('main a', { hasText: 'All your posts' }).click();
    await expect.poll(() => asked).toBe('beforeunload');
    expect(page.url()).toBe(editorUrl);
    expect(await page.locator('#essay').inputValue()).toBe('Unsaved words.');
  });

  it('saves the essay typed before "Submit for publication" and says why a short one cannot be submitted yet', async () => {
    const postId = new URL(editorUrl).pathname.split('/').pop()!;
    await page.locator('#essay').fill(SHORT);
    await page.locator('button', { hasText: 'Submit for publication' }).click();
    const refused = page.locator('#submit-problem');
    await refused.waitFor();
    expect(await refused.textContent()).toBe('The post cannot be submitted yet: the essay is shorter than 200 characters (it has 10).');
    expect(await page.locator('#essay').inputValue()).toBe(SHORT);
    await screenshot(page, `member-${size.name}-submit-refused`);
    expect(await seriousViolations(page)).toEqual([]);

    await page.locator('#essay').fill(ESSAY);
    await page.locator('button', { hasText: 'Submit for publication' }).click();
    await page.waitForURL(/done=submitted/);
    expect(await page.locator('[role=status]').first().textContent()).toBe('The post is submitted.');
    const stored = await (await srv.get(`/api/posts/${postId}/essay`, { headers: { Cookie: await cookie(page) } })).json();
    expect(stored).toMatchObject({ body: ESSAY, revision: 2 });
    await page.reload();
    expect(await page.locator('#essay').inputValue()).toBe(ESSAY);
  });

  it('shows a refused comment edit as a sentence under its text box, the text kept', async () => {
    const videoId = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    await page.goto(`${srv.url}/videos/${videoId}`);
    await page.locator('#comment-text-new').fill(`A comment from the ${size.name}.`);
    await page.locator('#comments button', { hasText: 'Post comment' }).click();
    const mine = page.locator('#comments .comment', { hasText: `A comment from the ${size.name}.` });
    await mine.waitFor();
    const commentId = (await mine.getAttribute('id'))!.replace(/^comment-/, '');
    // Deleted from another tab: this page does not know yet.
    expect((await srv.get(`/api/comments/${commentId}`, { method: 'DELETE', headers: { Cookie: await cookie(page), Origin: srv.url } })).status).toBe(204);
    await mine.locator(':scope > .comment-tools button', { hasText: 'Edit' }).click();
    const box = page.locator(`#comment-edit-${commentId}`);
    await box.fill('An edit that cannot be saved.');
    await mine.locator('form.edit-form button', { hasText: 'Save' }).click();
    const note = page.locator(`#comment-edit-${commentId}-error`);
    await note.waitFor();
    expect(await note.textContent()).toBe('Comment not found.');
    expect(await box.getAttribute('aria-describedby')).toBe(`comment-edit-${commentId}-error`);
    expect(await box.inputValue()).toBe('An edit that cannot be saved.');
    await screenshot(page, `member-${size.name}-comment-refused`);
    expect(await seriousViolations(page)).toEqual([]);
  });
}

async function cookie(page: Page): Promise<string> {
  const c = (await page.context().cookies()).find((k) => k.name === 'kb_session')!;
  return `${c.name}=${c.value}`;
}

describeInBrowser("a member's writing day", () => {
  beforeAll(async () => {
    srv = await startWebServer();
  });
  afterAll(async () => {
    await srv?.stop();
  });

  for (const size of SIZES) describe(`at ${size.width}×${size.height}`, () => journey(size));
});
