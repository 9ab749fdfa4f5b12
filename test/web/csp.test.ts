// The prerendered pages under their content security policy, in a real browser: every page works with
// scripts and styles from this origin only (the graph's inline script allowed by its hash), nothing is
// refused, and no page can be framed by another site.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { describeInBrowser, launchBrowser, type TestBrowser } from './browser.ts';
import { startWebServer } from './server.ts';

let srv: TestServer;
let browser: TestBrowser;
let page: Page;
const violations: string[] = [];

describeInBrowser('the content security policy', () => {
  beforeAll(async () => {
    srv = await startWebServer();
    browser = await launchBrowser(srv.url);
    page = browser.page;
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(`${page.url()}: ${m.text()}`);
    });
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  it('lets every kind of page run, refusing nothing', async () => {
    const video = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    for (const path of ['/', `/videos/${video}`, '/search', '/knowledge', '/api/graph', '/device']) {
      violations.length = 0;
      const res = await page.goto(`${srv.url}${path}`);
      expect(res!.status(), path).toBeLessThan(400);
      expect(res!.headers()['content-security-policy'], path).toContain("frame-ancestors 'none'");
      await page.waitForLoadState('networkidle');
      expect(violations, path).toEqual([]);
    }
    // The graph's script ran under the policy: it drew its nodes.
    await page.goto(`${srv.url}/api/graph`);
    await page.waitForFunction(() => document.querySelectorAll('canvas, svg circle, .node').length > 0, undefined, { timeout: 10_000 });
    // Search as you type (a module script from this origin) still answers.
    await page.goto(`${srv.url}/search`);
    await page.locator('input[type=search]').fill('governance');
    await page.locator('#results li').first().waitFor({ timeout: 10_000 });
    expect(violations).toEqual([]);
  });

  it('is not framed by another site', async () => {
    const res = await srv.get('/');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
  });
});
