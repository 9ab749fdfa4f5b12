// A moderator's day in a real browser (issue 43, journeys 6-8), at phone (390×844) and desktop (1366×768)
// sizes: with POSTS_AUTO_PUBLISH=false, /moderation lists the submitted posts, the moderator publishes one
// and sends another back with a reason (the author is notified of each); reads a proposal's target by title
// and its change without JSON, supersedes one by choosing another by title, accepts a tag_correction and
// applies it, and sees the video's tags changed in the content file and the proposal shown as applied with
// that file; and the author of a comment the moderator hides is told, on the page and in notifications.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import type { TestServer } from '../helpers/server.ts';
import { bearerFor, sessionFor, type TestSession } from '../helpers/auth.ts';
import { fixtureContent } from '../helpers/content.ts';
import { describeInBrowser, launchBrowser, screenshot, seriousViolations, type TestBrowser } from './browser.ts';
import { startWebServer } from './server.ts';

const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1366, height: 768 },
] as const;
const ESSAY = 'An essay long enough to be submitted, about review queues and the people who keep them moving. '.repeat(3);
let contentDir: string;
let srv: TestServer;
let browser: TestBrowser;
let page: Page;
let mod: TestSession, author: TestSession;
let authorApi: Record<string, string>;

const api = async (p: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) => {
  const res = await srv.get(p, { method: init.method, headers: { 'Content-Type': 'application/json', ...(init.headers ?? authorApi) }, body: init.json !== undefined ? JSON.stringify(init.json) : undefined });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
};
/** The browser acts as this person from now on (their session cookie). */
const actAs = (s: TestSession) => browser.context.addCookies([{ name: 'kb_session', value: s.cookie.replace(/^kb_session=/, ''), url: srv.url }]);
const notificationsOf = async (s: TestSession) => (await api('/api/notifications?limit=200', { headers: s.headers })).body.items as { title: string; body: string; link: string | null }[];
/** The page fits the viewport's width: nothing scrolls sideways. */
const fitsWidth = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describeInBrowser('a moderator on /moderation', () => {
  beforeAll(async () => {
    // Applying a proposal writes into the content folder: a copy keeps the sample content untouched.
    contentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-moderation-content-'));
    fs.cpSync(fixtureContent(), contentDir, { recursive: true });
    srv = await startWebServer({ CONTENT_DIR: contentDir, MODERATOR_EMAILS: 'mia@example.org', POSTS_AUTO_PUBLISH: 'false', WRITE_RATE_LIMIT_PER_MINUTE: '1000' });
    browser = await launchBrowser(srv.url);
    page = browser.page;
    mod = await sessionFor(srv, 'mia@example.org', 'Mia Moderator');
    author = await sessionFor(srv, 'ana@example.org', 'Ana Novak');
    authorApi = (await bearerFor(srv, author.userId)).headers;
    await actAs(mod);
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    if (contentDir) fs.rmSync(contentDir, { recursive: true, force: true });
  });

  for (const size of SIZES) {
    it(`publishes one submitted post and sends another back with a reason, the author told of each (${size.name})`, async () => {
      await page.setViewportSize({ width: size.width, height: size.height });
      const ids: string[] = [];
      for (const title of [`Queues before agents (${size.name})`, `Rotations that last (${size.name})`]) {
        const post = (await api('/api/posts', { method: 'POST', json: { title, summary: `${title}, in one line.`, body: ESSAY } })).body;
        expect((await api(`/api/posts/${post.post_id}/submit`, { method: 'POST' })).body.status).toBe('submitted');
        ids.push(post.post_id);
      }
      expect((await notificationsOf(mod)).map((n) => n.title)).toContain(`“Queues before agents (${size.name})” waits for review`);

      await page.goto(`${srv.url}/moderation`);
      const queue = page.locator('section[aria-labelledby=posts-title]');
      expect(await queue.locator('h2').textContent()).toMatch(/^Submitted posts \(\d+\)$/);
      await screenshot(page, `moderation-posts-${size.name}`);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await fitsWidth()).toBe(true);

      await page.locator(`#post-${ids[0]} button`, { hasText: 'Publish' }).click();
      await page.waitForURL(/done=published/);
      expect(await page.locator('[role=status]').first().textContent()).toBe('The post is published; its author is told.');
      await page.locator(`#post-${ids[1]} textarea`).fill('Please cite the study you mention.');
      await page.locator(`#post-${ids[1]} button`, { hasText: 'Send back' }).click();
      await page.waitForURL(/done=sent_back/);
      expect(await page.locator(`#post-${ids[0]}, #post-${ids[1]}`).count()).toBe(0);

      expect((await api(`/api/posts/${ids[0]}`)).body.status).toBe('published');
      expect((await api(`/api/posts/${ids[1]}`)).body.status).toBe('rejected');
      const told = await notificationsOf(author);
      expect(told.map((n) => n.title)).toContain(`Your post “Queues before agents (${size.name})” is published`);
      expect(told.find((n) => n.title === `Your post “Rotations that last (${size.name})” was not published`)?.body).toBe('Please cite the study you mention.');
    });
  }

  it('reads a proposal by its target\'s title with the change as a diff, never JSON, and supersedes one by title (phone)', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const video = loadSnapshot(contentDir).videos[0];
    const retag = (await api('/api/proposals', { method: 'POST', json: { kind: 'tag_correction', title: 'Tag it as a case study', payload: { target: { type: 'video', id: video.video_id }, add: ['case-study'], remove: [video.tags[0]] } } })).body;
    const again = (await api('/api/proposals', { method: 'POST', json: { kind: 'tag_correction', title: 'Case study tag (duplicate)', payload: { target: { type: 'video', id: video.video_id }, add: ['case-study'] } } })).body;
    await page.goto(`${srv.url}/moderation`);
    const item = page.locator(`#proposal-${retag.proposal_id}`);
    const text = (await item.textContent())!;
    expect(await item.locator(`a[href="/videos/${video.video_id}"]`).first().textContent()).toBe(video.title);
    const after = [...video.tags.slice(1), 'case-study'];
    expect(text.replace(/\s+/g, ' ')).toContain(`Before ${video.tags.join(', ')} → after ${after.join(', ')}`);
    expect(await item.locator('ins').allTextContents()).toEqual(['case-study']);
    expect(await item.locator('del').allTextContents()).toEqual([video.tags[0]]);
    expect(text).not.toMatch(/[{}]|"add"|payload/i);
    expect(text).not.toContain(video.video_id);
    await screenshot(page, 'moderation-proposals-phone');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth()).toBe(true);

    const dup = page.locator(`#proposal-${again.proposal_id}`);
    await dup.locator('select').selectOption({ label: 'Tag it as a case study (tag correction, pending)' });
    await dup.locator('button', { hasText: 'Supersede' }).click();
    await page.waitForURL(/done=decided/);
    expect((await api(`/api/proposals/${again.proposal_id}`)).body).toMatchObject({ status: 'superseded', superseded_by: retag.proposal_id });
  });

  it('accepts a tag_correction, applies it, and sees the tags changed in the content file and the proposal applied with it (desktop)', async () => {
    await page.setViewportSize({ width: 1366, height: 768 });
    const video = loadSnapshot(contentDir).videos[2];
    const rel = `videos/${video.video_id}.md`;
    const retag = { target: { type: 'video', id: video.video_id }, add: ['case-study'], remove: [video.tags[0]] };
    const id = (await api('/api/proposals', { method: 'POST', json: { kind: 'tag_correction', title: 'Retag the third video', payload: retag } })).body.proposal_id as string;
    await page.goto(`${srv.url}/moderation`);
    await page.locator(`#proposal-${id} button[value=accept]`).click();
    await page.waitForURL(/done=accepted/);
    const accepted = page.locator('section[aria-labelledby=accepted-title]');
    expect(await accepted.locator('h2').textContent()).toMatch(/^Accepted, to apply \(\d+\)$/);
    expect(fs.readFileSync(path.join(contentDir, rel), 'utf8')).toContain(`tags: [${video.tags.join(', ')}]`);

    await accepted.locator(`#proposal-${id} button`, { hasText: 'Apply to the content folder' }).click();
    await page.waitForURL(/done=applied/);
    const after = [...video.tags.slice(1), 'case-study'];
    expect(loadSnapshot(contentDir).videosById.get(video.video_id)!.tags).toEqual(after);
    const applied = page.locator(`section[aria-labelledby=applied-title] #proposal-${id}`);
    expect(await applied.locator('code').allTextContents()).toEqual([rel]);
    expect(await applied.textContent()).toContain(`Changed the tags of ${rel}: [${video.tags.join(', ')}] → [${after.join(', ')}]`);
    expect((await api(`/api/proposals/${id}`)).body).toMatchObject({ status: 'applied', applied: { content_changed: true, files: [rel] } });
    await screenshot(page, 'moderation-applied-desktop');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth()).toBe(true);
  });

  it('tells the author of a comment the moderator hides, on the page and in notifications', async () => {
    const videoId = loadSnapshot(contentDir).videos[1].video_id;
    const c = (await api('/api/comments', { method: 'POST', json: { entity_type: 'video', entity_id: videoId, body: 'Cheap watches at example.com' } })).body;
    await page.goto(`${srv.url}/videos/${videoId}`);
    await page.locator(`#comment-${c.comment_id} button`, { hasText: 'Hide' }).click();
    await page.locator(`#comment-${c.comment_id}.is-hidden`).waitFor();

    await actAs(author);
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`${srv.url}/videos/${videoId}`);
      const mine = page.locator(`#comment-${c.comment_id}`);
      await mine.locator('[role=note]').waitFor();
      expect(await mine.locator('[role=note]').textContent()).toBe('A moderator hid this comment. Only you can see it here; other readers do not.');
      expect(await mine.locator('button').count()).toBe(0);
      expect(await page.locator('#comments').textContent()).not.toContain('No comments yet.');
      await screenshot(page, `comment-hidden-author-${size.name}`);
      expect(await seriousViolations(page)).toEqual([]);
    }
    await page.goto(`${srv.url}/notifications`);
    const note = page.locator('main li', { hasText: 'A moderator hid your comment' });
    expect(await note.textContent()).toContain('Cheap watches');
    expect(await note.locator('a').getAttribute('href')).toBe(`/videos/${videoId}#comment-${c.comment_id}`);
    // Any other reader's page leaves it out.
    await browser.context.clearCookies();
    await page.goto(`${srv.url}/videos/${videoId}`);
    await page.locator('#comments a', { hasText: 'Sign in' }).waitFor();
    expect(await page.locator(`#comment-${c.comment_id}`).count()).toBe(0);
    await actAs(mod);
  });
});
