// Issue 39, item 5, in a real browser: a page on another site makes the person's browser try unknown codes
// at /device (images, without the session; a script's navigations, which carry the SameSite=Lax session),
// and the person can still open the device's link and approve, typed in or followed from another site.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sessionFor } from '../helpers/auth.ts';
import { GUESS_LIMIT } from '../../api/device/index.ts';
import { describeInBrowser, launchBrowser, type TestBrowser } from './browser.ts';

const unknownCode = (i: number) => `BBBB-BBB${'BCDFGHJKMNPQRSTVWXZ'[i]}`;

let browser: TestBrowser;
let page: Page;
/** Another site: http://localhost:<port>, while the servers are http://127.0.0.1:<port>. */
let elsewhere: http.Server;
let other: string;
/** Each test's own server, so that each starts with every budget unspent. */
let srv: TestServer;

describeInBrowser('a page on another site and the device approval page', () => {
  beforeAll(async () => {
    // The other site's pages: images with unknown codes, a script that navigates to a URL, and a chat
    // message with the device's link. On loopback like the server (a page from a public address could
    // not reach a loopback server at all), and another site by its host name.
    elsewhere = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://localhost');
      const to = url.searchParams.get('to');
      const link = url.searchParams.get('link');
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      if (to) res.end(`<!doctype html><script>location.href = ${JSON.stringify(to)};</script>`);
      else if (link) res.end(`<!doctype html><p>Your agent says: <a id="link" href="${link.replace(/"/g, '&quot;')}">approve me</a></p>`);
      else res.end(`<!doctype html>${Array.from({ length: GUESS_LIMIT.limit }, (_, i) => `<img src="${srv.url}/device?user_code=${unknownCode(i)}" alt="">`).join('')}`);
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    other = `http://localhost:${(elsewhere.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => (elsewhere ? elsewhere.close(resolve) : resolve(undefined)));
  });
  beforeEach(async () => {
    srv = await startTestServer();
    browser = await launchBrowser(srv.url);
    page = browser.page;
    // Registered after launchBrowser's "nothing but the test server", so it goes first.
    await browser.context.route(`${other}/**`, (route) => route.continue());
    const { cookie } = await sessionFor(srv, 'eva@example.org', 'Eva');
    await browser.context.addCookies([{ name: 'kb_session', value: cookie.slice('kb_session='.length), url: srv.url, httpOnly: true, sameSite: 'Lax' }]);
  });
  afterEach(async () => {
    await browser?.close();
    await srv?.stop();
  });

  const start = async (host: string) => {
    const res = await srv.get('/api/oauth/device', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ client_name: 'agent-login.sh', client_host: host }) });
    const started = (await res.json()) as { user_code: string; device_code: string; verification_uri_complete: string };
    const link = new URL(started.verification_uri_complete);
    return { ...started, link: `${srv.url}${link.pathname}${link.search}` };
  };
  const poll = (deviceCode: string) =>
    srv.get('/api/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'device_code', device_code: deviceCode }) });
  const anonymousLookup = (userCode: string) => srv.get(`/api/device/lookup?user_code=${userCode}`);
  /** The person approves on the page they are on. */
  const approveHere = async (host: string) => {
    expect(await page.locator('dl.facts').textContent()).toContain(host);
    await page.getByRole('button', { name: 'Approve' }).click();
    expect(await page.getByRole('status').textContent()).toContain('You approved');
  };

  it('after ten images with unknown codes on another site, the person opens the device\'s link and approves', async () => {
    const device = await start('eva-laptop');
    // The browser fetches the images without the session (and refuses the HTML that comes back).
    await page.goto(`${other}/`);
    await page.waitForFunction(() => [...document.images].every((img) => img.complete));
    // They reached the server and counted: anonymous lookups from this address are refused now.
    expect((await anonymousLookup(device.user_code)).status).toBe(429);

    // Eva pastes the link the device printed into the address bar.
    const res = await page.goto(device.link);
    expect(res!.status()).toBe(200);
    await approveHere('eva-laptop');
    expect((await poll(device.device_code)).status).toBe(200);
  });

  it('ten navigations by another site\'s script, session and all, spend nothing of the person\'s; its links take one click more', async () => {
    for (let i = 0; i < GUESS_LIMIT.limit; i++) {
      await page.goto(`${other}/?to=${encodeURIComponent(`${srv.url}/device?user_code=${unknownCode(i)}`)}`);
      await page.waitForURL(`${srv.url}/device?**`);
    }
    // They counted against the address, as another site's reads.
    const first = await start('eva-laptop');
    expect((await anonymousLookup(first.user_code)).status).toBe(429);
    // Eva's own budget is whole: the link pasted into the address bar shows the request.
    expect((await page.goto(first.link))!.status()).toBe(200);
    await approveHere('eva-laptop');
    expect((await poll(first.device_code)).status).toBe(200);

    // A link followed from another site (a chat) is such a read too: the code is not looked up, and one
    // button goes on from this site, where Eva's own budget counts.
    const second = await start('eva-desktop');
    await page.goto(`${other}/?link=${encodeURIComponent(second.link)}`);
    await page.click('#link');
    await page.waitForURL(`${srv.url}/device?**`);
    expect(await page.locator('main').textContent()).not.toContain('eva-desktop');
    await page.getByRole('button', { name: 'Continue' }).click();
    await approveHere('eva-desktop');
    expect((await poll(second.device_code)).status).toBe(200);
  });
});
