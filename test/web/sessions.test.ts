// Where a person is signed in, in a real browser (issue 39, item 15): the account page lists each browser
// session with its device and last use, signs one out or all of them, and signing out ends the development
// identity provider's session too, so the next sign-in asks for the e-mail again instead of passing silently.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { describeInBrowser, screenshot, seriousViolations, type TestBrowser } from './browser.ts';
import { closeWebBrowser, openWebBrowser } from './server.ts';

const EMAIL = 'sam@example.org';
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

let srv: TestServer;
let browser: TestBrowser;
let page: Page;
let phone: Record<string, string>;
let laptop: Record<string, string>;

/** Another browser of the same person: a session opened for the account the real browser signed in to. */
async function elsewhere(userAgent: string): Promise<Record<string, string>> {
  const u = (await srv.db.prepare<[string], { idp_issuer: string; idp_subject: string }>('SELECT idp_issuer, idp_subject FROM users WHERE email = ?').get(EMAIL))!;
  const { sessionSecret } = await srv.identity.signIn({ issuer: u.idp_issuer, subject: u.idp_subject, email: EMAIL, emailVerified: true }, { userAgent });
  return { Cookie: `kb_session=${sessionSecret}` };
}
const signedIn = async (headers: Record<string, string>) => (await (await srv.get('/api/auth/me', { headers })).json()).authenticated as boolean;

/** From a page that needs a session: the provider's e-mail form must come (no silent sign-in), then /account. */
async function signInAtForm(): Promise<void> {
  await page.waitForURL(/\/idp\/interaction\//);
  await page.locator('#email').fill(EMAIL);
  await page.locator('button', { hasText: 'Sign in' }).click();
  await page.waitForURL(`${srv.url}/account`);
}

describeInBrowser('where a person is signed in', () => {
  beforeAll(async () => ({ srv, browser, page } = await openWebBrowser()));
  afterAll(() => closeWebBrowser(srv, browser));

  it('lists each session with its device and last use on the account page, this browser marked', async () => {
    await page.goto(`${srv.url}/account`);
    await signInAtForm();
    phone = await elsewhere(SAFARI_IPHONE);
    laptop = await elsewhere(FIREFOX_WINDOWS);
    await page.goto(`${srv.url}/account`);
    const rows = page.locator('#sessions tbody tr');
    expect(await rows.count()).toBe(3);
    // Headless Chromium on Linux, as its User-Agent says.
    expect(await page.locator('#sessions tr[aria-current="true"]').textContent()).toMatch(/^Chrome on Linux \(this browser\)/);
    const devices = await rows.locator('td:first-child').allTextContents();
    expect(devices.sort()).toEqual(['Chrome on Linux (this browser)', 'Firefox on Windows', 'Safari on iPhone']);
    expect(await rows.first().locator('td').nth(2).textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    await screenshot(page, 'account-sessions');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('signs one other session out', async () => {
    await page.locator('#sessions tr', { hasText: 'Safari on iPhone' }).locator('button', { hasText: 'Sign out' }).click();
    await page.waitForURL(`${srv.url}/account?done=session-ended#sessions`);
    expect(await page.locator('[role=status]').first().textContent()).toContain('signed out');
    expect(await page.locator('#sessions tbody tr td:first-child').allTextContents()).not.toContain('Safari on iPhone');
    expect(await page.locator('#sessions tbody tr').count()).toBe(2);
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(true);
    expect(await page.locator('#sessions tr[aria-current="true"]').count()).toBe(1);
  });

  it('signs out everywhere, and the next sign-in asks for the e-mail again', async () => {
    await page.goto(`${srv.url}/account`);
    await page.locator('#sessions button', { hasText: 'Sign out everywhere' }).click();
    await page.waitForURL(`${srv.url}/`);
    expect(await signedIn(laptop)).toBe(false);
    expect(await srv.db.prepare("SELECT COUNT(*) FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = ? AND s.revoked_at IS NULL").pluck().get(EMAIL)).toBe(0);
    // The provider's session ended too: /account sends the browser to the e-mail form, not straight back.
    await page.goto(`${srv.url}/account`);
    await signInAtForm();
    expect(await page.locator('#sessions tbody tr').count()).toBe(1);
  });

  it('signs out with the header button, and the next sign-in asks again', async () => {
    await page.goto(`${srv.url}/account`);
    await page.locator('header.site form[action="/signout"] button').click();
    await page.waitForURL(`${srv.url}/`);
    await page.goto(`${srv.url}/account`);
    await signInAtForm();
    expect(await page.locator('h1').textContent()).toBe('Your account');
  });
});
