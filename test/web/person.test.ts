// A person in a real browser: signs in through the embedded identity provider, creates an API key and
// sees it once, approves a device on /device, allows an OAuth app on the consent page, comments and
// reacts, edits a post essay and meets a 412 from a second tab, and (as a moderator) works the queue.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { authorizeUrl, pkce, register, REDIRECT_URI } from '../api/oauth/helpers.ts';
import { bearerFor, sessionFor } from '../helpers/auth.ts';
import { describeInBrowser, launchBrowser, screenshot, seriousViolations, type TestBrowser } from './browser.ts';
import { startWebServer } from './server.ts';

const EMAIL = 'ana@example.org';
let srv: TestServer;
let browser: TestBrowser;
let page: Page;
let apiKey = '';

const bearer = () => ({ Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' });

/** Signing in, and what the account page does: API keys, personal knowledge. */
function accountTests(): void {
  it('signs in through the embedded identity provider and lands on the account page', async () => {
    await page.goto(`${srv.url}/account`);
    await page.waitForURL(/\/idp\//);
    await screenshot(page, 'sign-in');
    await page.locator('#email').fill(EMAIL);
    await page.locator('#name').fill('Ana Novak');
    await page.locator('button', { hasText: 'Sign in' }).click();
    await page.waitForURL(`${srv.url}/account`);
    expect(await page.locator('h1').textContent()).toBe('Your account');
    expect(await page.locator('main').textContent()).toContain(EMAIL);
    expect(await page.locator('header.site').textContent()).toContain('Sign out');
  });

  it('creates an API key, sees the secret once, and the key works', async () => {
    await page.locator('#key-name').fill('laptop agent');
    await page.locator('button', { hasText: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    apiKey = await page.locator('#new-key').inputValue();
    expect(apiKey).toMatch(/^kb_/);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
    await page.locator('button[data-copy=new-key]').click();
    await expect.poll(() => page.locator('.copy-status').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);
    await screenshot(page, 'account-new-key');
    expect(await seriousViolations(page)).toEqual([]);
    const me = await (await srv.get('/api/auth/me', { headers: bearer() })).json();
    expect(me).toMatchObject({ authenticated: true, via: 'api_key', user: { handle: expect.any(String) } });

    // Shown once: the account page lists the key by name and hint only.
    await page.goto(`${srv.url}/account`);
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(apiKey);
    expect(await page.locator('#keys table').textContent()).toContain('laptop agent');
    await screenshot(page, 'account');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('connects and disconnects personal knowledge, and the account page says how it went (?pk=)', async () => {
    await page.goto(`${srv.url}/account`);
    await page.locator('#personal-knowledge button', { hasText: 'Connect a note store' }).click();
    await page.waitForURL(`${srv.url}/account?pk=connected`);
    expect(await page.locator('[role=status]').first().textContent()).toContain('personal knowledge store is connected');
    expect(await page.locator('#personal-knowledge').textContent()).toContain('Connected.');
    await screenshot(page, 'account-personal-knowledge');
    await page.locator('#personal-knowledge button', { hasText: 'Disconnect' }).click();
    await page.waitForURL(/done=pk-disconnected/);
    expect(await page.locator('#personal-knowledge').textContent()).toContain('Not connected.');
    await page.goto(`${srv.url}/account?pk=error`);
    expect(await page.locator('[role=alert]').first().textContent()).toContain('failed');
  });
}

/** Granting access to other clients: a device code on /device, an OAuth app on the consent page. */
function grantTests(): void {
  it('approves a device code on the device page', async () => {
    const started = await (await srv.get('/api/oauth/device', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ client_name: 'agent-login.sh', client_host: 'ana-laptop' }) })).json();
    await page.goto(started.verification_uri_complete);
    expect(await page.locator('h1').textContent()).toBe('Approve this device?');
    expect(await page.locator('main').textContent()).toContain('ana-laptop');
    await screenshot(page, 'device');
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('button[value=approve]').click();
    await page.locator('h1', { hasText: 'Device approved' }).waitFor();
    const token = await (await srv.get('/api/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'device_code', device_code: started.device_code }) })).json();
    expect(token.access_token).toMatch(/^kb_/);
  });

  it('allows an OAuth app on the consent page and sees it under connected apps', async () => {
    // The sample build's discovery documents name http://kb.test; this server has its own origin.
    const as = { issuer: srv.url, authorization_endpoint: `${srv.url}/api/oauth/v2/authorize`, registration_endpoint: `${srv.url}/api/oauth/v2/register` };
    const { client } = await register(as, { client_name: 'Notes Agent' });
    const p = await pkce();
    let callback: URL | undefined;
    await page.route(`${new URL(REDIRECT_URI).origin}/**`, (route) => {
      callback = new URL(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the app' });
    });
    await page.goto(authorizeUrl(as, client, p, { scope: 'read write' }));
    expect(await page.locator('h1').textContent()).toContain('Notes Agent');
    await screenshot(page, 'consent');
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('button[value=approve]').click();
    await page.waitForURL((u) => u.href.startsWith(REDIRECT_URI), { timeout: 15_000 });
    expect(callback?.searchParams.get('code')).toBeTruthy();
    expect(callback!.searchParams.get('state')).toBe(p.state);
    const token = await srv.get('/api/oauth/v2/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: callback!.searchParams.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: p.verifier, client_id: client.client_id }),
    });
    expect((await token.json()).access_token).toMatch(/^oat_/);

    await page.goto(`${srv.url}/account`);
    const app = page.locator('#apps li', { hasText: 'Notes Agent' });
    expect(await app.textContent()).toContain('read, write');
    await app.locator('button', { hasText: 'Revoke' }).click();
    await page.waitForURL(/done=app-revoked/);
    expect(await page.locator('#apps').textContent()).not.toContain('Notes Agent');
  });
}

/** Writing: comments, replies and reactions on a video, and a post essay edited from two tabs. */
function writingTests(): void {
  it('comments on a video, replies and reacts', async () => {
    const videoId = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    await page.goto(`${srv.url}/videos/${videoId}`);
    const text = page.locator('#comment-text-new');
    await text.waitFor();
    await text.fill('The review queue numbers match what we saw in our own pilot.');
    await page.locator('#comments button', { hasText: 'Post comment' }).click();
    const comment = page.locator('#comments .comment', { hasText: 'review queue numbers' });
    await comment.waitFor();
    await comment.locator('button', { hasText: 'Reply' }).click();
    await comment.locator('textarea').fill('Which pilot was that?');
    await comment.locator('button', { hasText: 'Post reply' }).click();
    await comment.locator('.replies .comment', { hasText: 'Which pilot' }).waitFor();

    const like = comment.locator(':scope > .reactions button[data-kind=like]');
    await like.click();
    await expect.poll(() => like.getAttribute('aria-pressed')).toBe('true');
    expect(await like.locator('.count').textContent()).toBe('1');
    await screenshot(page, 'comments');
    expect(await seriousViolations(page)).toEqual([]);

    // After a reload the thread comes from the API.
    await page.reload();
    await page.locator('#comments .comment', { hasText: 'review queue numbers' }).waitFor();
    expect(await page.locator('#comments .replies .comment').count()).toBe(1);
    expect(await page.locator('#comments .comment').first().locator(':scope > .reactions button[data-kind=like] .count').textContent()).toBe('1');
  });

  it('edits a post essay, and a save from a stale second tab meets the 412 with both versions shown', async () => {
    await page.goto(`${srv.url}/posts/me`);
    await page.locator('#post-title').fill('Working alongside agents');
    await page.locator('#post-summary').fill('What changes for a team when agents take the routine work.');
    await page.locator('button', { hasText: 'Create the draft' }).click();
    await page.waitForURL(/\/posts\/me\/[^/?]+$/);
    const editorUrl = page.url();
    await page.locator('#essay').fill('The first version of the essay.');
    await page.locator('button', { hasText: 'Save essay' }).click();
    await page.waitForURL(/done=saved/);

    const second = await browser.context.newPage();
    await second.goto(editorUrl);
    // Both tabs now hold revision 1. The second saves first…
    await second.locator('#essay').fill('The second tab rewrote the essay.');
    await second.locator('button', { hasText: 'Save essay' }).click();
    await second.waitForURL(/done=saved/);
    // …so the first tab's save is refused and shown side by side with the current version.
    await page.locator('#essay').fill('The first tab added a paragraph.');
    await page.locator('button', { hasText: 'Save essay' }).click();
    await page.locator('#conflict').waitFor();
    expect(await page.locator('#conflict').textContent()).toContain('Someone saved a newer version');
    expect(await page.locator('.current-version').textContent()).toBe('The second tab rewrote the essay.');
    expect(await page.locator('#essay').inputValue()).toBe('The first tab added a paragraph.');
    await screenshot(page, 'essay-conflict');
    expect(await seriousViolations(page)).toEqual([]);

    // Saving the merged text now succeeds (it carries the newer ETag).
    await page.locator('#essay').fill('The second tab rewrote the essay.\n\nThe first tab added a paragraph.');
    await page.locator('button', { hasText: 'Save my merged version' }).click();
    await page.waitForURL(/done=saved/);
    const postId = new URL(editorUrl).pathname.split('/').pop()!;
    const essay = await (await srv.get(`/api/posts/${postId}/essay`, { headers: bearer() })).json();
    expect(essay).toMatchObject({ revision: 3, body: 'The second tab rewrote the essay.\n\nThe first tab added a paragraph.' });
    await second.close();
  });
}

/** Notifications, and the moderation queue as a moderator. */
function moderationTests(): void {
  it('reads notifications and, as a moderator, works the queue: a hidden comment and a flagged proposal', async () => {
    const videoId = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    const c = await (await srv.get('/api/comments', { method: 'POST', headers: bearer(), body: JSON.stringify({ entity_type: 'video', entity_id: videoId, body: 'Buy cheap watches at example.com' }) })).json();
    expect((await srv.get(`/api/comments/${c.comment_id}/hide`, { method: 'POST', headers: bearer() })).status).toBe(200);
    const proposal = await srv.get('/api/proposals', {
      method: 'POST',
      headers: bearer(),
      body: JSON.stringify({ kind: 'tag_correction', title: 'Tag this video with review', payload: { target: { type: 'video', id: videoId }, add: ['review'] } }),
    });
    expect(proposal.status, await proposal.clone().text()).toBe(201);
    const { proposal_id } = await proposal.json();
    // Someone else flags it: a proposer cannot flag their own proposal.
    const flagger = (await bearerFor(srv, (await sessionFor(srv, 'flagger@example.org')).userId)).headers;
    const flagged = await srv.get(`/api/proposals/${proposal_id}/flag`, { method: 'POST', headers: { ...flagger, 'Content-Type': 'application/json' }, body: JSON.stringify({ reason: 'The video barely mentions review' }) });
    expect(flagged.status).toBe(200);

    await page.goto(`${srv.url}/notifications`);
    expect(await page.locator('h1').textContent()).toBe('Notifications');
    await screenshot(page, 'notifications');

    await page.goto(`${srv.url}/moderation`);
    const hidden = page.locator('section[aria-labelledby=hidden-title] li', { hasText: 'cheap watches' });
    await hidden.waitFor();
    const queued = page.locator('section[aria-labelledby=proposals-title] > ul > li', { hasText: 'Tag this video with review' });
    expect(await queued.textContent()).toContain('barely mentions review');
    expect(await queued.textContent()).toMatch(/1 of \d+ flags/);
    await screenshot(page, 'moderation');
    expect(await seriousViolations(page)).toEqual([]);
    await queued.locator('textarea').fill('Review is not the topic of the video.');
    await queued.locator('button[value=reject]').click();
    await page.waitForURL(/done=decided/);
    expect(await (await srv.get(`/api/proposals/${proposal_id}`)).json()).toMatchObject({ status: 'rejected', decision_note: 'Review is not the topic of the video.' });
    await page.locator('section[aria-labelledby=hidden-title] li', { hasText: 'cheap watches' }).locator('button', { hasText: 'Show again' }).click();
    await page.waitForURL(/done=unhidden/);
    expect(await (await srv.get(`/api/comments/${c.comment_id}`)).json()).toMatchObject({ hidden: false });
  });
}

describeInBrowser('a signed-in person', () => {
  beforeAll(async () => {
    srv = await startWebServer({ MODERATOR_EMAILS: EMAIL });
    browser = await launchBrowser(srv.url);
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  // In this order: each group goes on from the state (the session, the key, the page) the one before left.
  accountTests();
  grantTests();
  writingTests();
  moderationTests();
});
