// The controls issue 16 added to the pages, in a real browser: the signed-in person's name, notification
// count and sign-out in the header of a prerendered page; editing and deleting one's own comment; voting
// on a post's essay; flagging a proposal; and, as a moderator, hiding a comment and showing it again. The
// writes go through the API with the browser's session cookie and Origin, under the API's rules.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { bearerFor, sessionFor } from '../helpers/auth.ts';
import { describeInBrowser, launchBrowser, layoutShift, screenshot, seriousViolations, type TestBrowser } from './browser.ts';
import { startWebServer } from './server.ts';

const MODERATOR = 'mo@example.org';
let srv: TestServer;
let browser: TestBrowser;
let page: Page;
let videoId = '';
let bo: { userId: string; headers: Record<string, string> };

const json = (h: Record<string, string>) => ({ ...h, 'Content-Type': 'application/json' });
const who = () => page.locator('header.site .who');

describeInBrowser('controls on the pages', () => {
  beforeAll(async () => {
    srv = await startWebServer({ MODERATOR_EMAILS: MODERATOR });
    browser = await launchBrowser(srv.url);
    page = browser.page;
    videoId = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    const s = await sessionFor(srv, 'bo@example.org', 'Bo Kranjc');
    bo = { userId: s.userId, headers: (await bearerFor(srv, s.userId)).headers };
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  it('names the signed-in person with their unread count in the header of a prerendered page', async () => {
    await page.goto(`${srv.url}/videos/${videoId}`);
    await page.locator('#comments a', { hasText: 'Sign in' }).waitFor();
    expect(await who().textContent()).toBe('Account');

    await page.goto(`${srv.url}/account`);
    await page.waitForURL(/\/idp\//);
    await page.locator('#email').fill('ana@example.org');
    await page.locator('#name').fill('Ana Novak');
    await page.locator('button', { hasText: 'Sign in' }).click();
    await page.waitForURL(`${srv.url}/account`);

    // Ana comments; Bo replies through the API, which notifies her.
    await page.goto(`${srv.url}/videos/${videoId}`);
    await page.locator('#comment-text-new').fill('Our pilot saw the same drop in handling time.');
    await page.locator('#comments button', { hasText: 'Post comment' }).click();
    const mine = page.locator('#comments .comment', { hasText: 'same drop in handling time' });
    await mine.waitFor();
    const commentId = (await mine.getAttribute('id'))!.replace(/^comment-/, '');
    const reply = await srv.get('/api/comments', { method: 'POST', headers: json(bo.headers), body: JSON.stringify({ entity_type: 'video', entity_id: videoId, parent_id: commentId, body: 'Which team was that?' }) });
    expect(reply.status).toBe(201);

    await page.goto(`${srv.url}/videos/${videoId}`);
    await who().locator('a', { hasText: 'Ana Novak' }).waitFor();
    expect(await who().locator('a[href="/account"]').getAttribute('title')).toMatch(/^@/);
    expect(await who().locator('a[href="/notifications"]').textContent()).toBe('Notifications 1 unread');
    expect(await who().locator('form[action="/signout"] button').textContent()).toBe('Sign out');
    expect(await layoutShift(page)).toBeLessThan(0.1);
    await screenshot(page, 'header-signed-in');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('edits and deletes her own comment, and offers no such buttons on others\'', async () => {
    const mine = page.locator('#comments .comment', { hasText: 'same drop in handling time' });
    const theirs = page.locator('#comments .replies .comment', { hasText: 'Which team' });
    await theirs.waitFor();
    expect(await theirs.locator('.comment-tools').count()).toBe(0);

    await mine.locator(':scope > .comment-tools button', { hasText: 'Edit' }).click();
    await mine.locator('form.edit-form textarea').fill('Our pilot saw a smaller drop in handling time.');
    await mine.locator('form.edit-form button', { hasText: 'Save' }).click();
    const edited = page.locator('#comments .comment', { hasText: 'smaller drop in handling time' });
    await edited.waitFor();
    expect(await edited.locator(':scope > header').textContent()).toContain('edited');
    expect(await edited.locator('.replies .comment').count()).toBe(1); // the reply stays under it
    await screenshot(page, 'comment-edited');
    expect(await seriousViolations(page)).toEqual([]);
    const id = (await edited.getAttribute('id'))!.replace(/^comment-/, '');
    expect(await (await srv.get(`/api/comments/${id}`)).json()).toMatchObject({ body: 'Our pilot saw a smaller drop in handling time.', edited: true });

    page.once('dialog', (d) => void d.accept());
    await edited.locator(':scope > .comment-tools button', { hasText: 'Delete' }).click();
    await page.locator(`#comment-${id} > .body`, { hasText: 'This comment was deleted.' }).waitFor();
    expect(await (await srv.get(`/api/comments/${id}`)).json()).toMatchObject({ deleted: true });
  });

  it('votes for a post essay and takes the vote back', async () => {
    const body = `${'An essay long enough to be published, about review queues and agents. '.repeat(5)}`;
    const post = await (await srv.get('/api/posts', { method: 'POST', headers: json(bo.headers), body: JSON.stringify({ title: 'Queues before agents', summary: 'Why the queue comes first.', body }) })).json();
    expect((await srv.get(`/api/posts/${post.post_id}/submit`, { method: 'POST', headers: bo.headers })).status).toBe(202);
    await page.goto(`${srv.url}/posts/${post.slug}`);
    expect(await page.locator('#vote-count').textContent()).toBe('0 votes for this essay');
    await page.locator('#vote button', { hasText: 'Vote for this essay' }).click();
    await page.waitForURL(/done=voted/);
    expect(await page.locator('#vote-count').textContent()).toBe('1 vote for this essay');
    expect(await page.locator('#vote button').getAttribute('aria-pressed')).toBe('true');
    await screenshot(page, 'post-voted');
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('#vote button', { hasText: 'Take my vote back' }).click();
    await page.waitForURL(/done=unvoted/);
    expect(await page.locator('#vote-count').textContent()).toBe('0 votes for this essay');
  });

  it('flags a proposal on /proposals, once', async () => {
    const created = await srv.get('/api/proposals', {
      method: 'POST',
      headers: json(bo.headers),
      body: JSON.stringify({ kind: 'tag_correction', title: 'Tag this video with queues', payload: { target: { type: 'video', id: videoId }, add: ['queues'] } }),
    });
    expect(created.status).toBe(201);
    const { proposal_id } = await created.json();
    await page.goto(`${srv.url}/proposals`);
    const item = page.locator(`#proposal-${proposal_id}`);
    expect(await item.textContent()).toContain('0 of');
    await item.locator('summary').click();
    await item.locator('textarea').fill('The video does not discuss queues.');
    await item.locator('button', { hasText: 'Flag' }).click();
    await page.waitForURL(/done=flagged/);
    expect(await page.locator('[role=status]').first().textContent()).toContain('Your flag is recorded');
    expect(await page.locator(`#proposal-${proposal_id}`).textContent()).toContain('1 of');
    await screenshot(page, 'proposals');
    expect(await seriousViolations(page)).toEqual([]);
    // The API's one-flag rule, shown on the page.
    await page.locator(`#proposal-${proposal_id} summary`).click();
    await page.locator(`#proposal-${proposal_id} button`, { hasText: 'Flag' }).click();
    expect(await page.locator('[role=alert]').first().textContent()).toMatch(/already/i);
  });

  it('signs out from the header of a prerendered page', async () => {
    await page.goto(`${srv.url}/essays`);
    await who().locator('button', { hasText: 'Sign out' }).click();
    await page.waitForURL(`${srv.url}/`);
    await expect.poll(() => page.evaluate(async () => (await (await fetch('/api/auth/me')).json()).authenticated)).toBe(false);
    expect(await who().textContent()).toBe('Account');
  });

  it('lets a moderator hide a comment and show it again', async () => {
    const c = await (await srv.get('/api/comments', { method: 'POST', headers: json(bo.headers), body: JSON.stringify({ entity_type: 'video', entity_id: videoId, body: 'Cheap watches at example.com' }) })).json();
    const mod = await sessionFor(srv, MODERATOR, 'Mo Derator');
    await browser.context.addCookies([{ name: 'kb_session', value: mod.cookie.replace(/^kb_session=/, ''), url: srv.url }]);
    await page.goto(`${srv.url}/videos/${videoId}`);
    await who().locator('a[href="/moderation"]').waitFor();
    const node = page.locator(`#comment-${c.comment_id}`);
    await node.locator('button', { hasText: 'Hide' }).click();
    await page.locator(`#comment-${c.comment_id}.is-hidden`).waitFor();
    expect(await page.locator(`#comment-${c.comment_id} > header`).textContent()).toContain('hidden from readers');
    expect(await (await srv.get(`/api/comments/${c.comment_id}`, { headers: mod.headers })).json()).toMatchObject({ hidden: true });
    // Readers no longer see it; the moderator still does, marked.
    expect((await (await srv.get(`/api/comments?entity_type=video&entity_id=${videoId}`)).json()).items.map((x: { comment_id: string }) => x.comment_id)).not.toContain(c.comment_id);
    await page.reload();
    await page.locator(`#comment-${c.comment_id}.is-hidden`).waitFor();
    await screenshot(page, 'comment-hidden');
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator(`#comment-${c.comment_id} button`, { hasText: 'Show again' }).click();
    await page.locator(`#comment-${c.comment_id}:not(.is-hidden)`).waitFor();
    expect(await (await srv.get(`/api/comments/${c.comment_id}`)).json()).toMatchObject({ hidden: false });
  });
});
