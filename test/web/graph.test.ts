// The knowledge graph page in a real browser: sigma.js draws the build-time layout, nothing is drawn again
// while nothing moves, labels at rest never overlap, the type and tag filters narrow what is shown, the
// find box lists nodes as links and centres one, and clicking a node opens its page. axe-core finds no
// serious or critical violation. The vendored bundle names the versions installed.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { describeInBrowser, launchBrowser, layoutShift, screenshot, seriousViolations, type TestBrowser } from './browser.ts';
import { startWebServer } from './server.ts';

let srv: TestServer;
let browser: TestBrowser;
let page: Page;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
const probe = () => page.evaluate(() => {
  const g = (window as unknown as { kbGraph: { renders: number; labels: Box[]; firstRenderMs: number } }).kbGraph;
  return { renders: g.renders, labels: g.labels.map((b) => ({ ...b })), firstRenderMs: g.firstRenderMs };
});
const status = () => page.locator('#graph-status').textContent();

it('bundles the sigma and graphology versions that are installed', () => {
  const banner = fs.readFileSync(path.resolve('public/assets/vendor/graph-libs.js'), 'utf8').split('\n')[0];
  const version = (name: string) => (JSON.parse(fs.readFileSync(path.resolve('node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  expect(banner).toContain(`sigma ${version('sigma')}, graphology ${version('graphology')}`);
});

describeInBrowser('the knowledge graph', () => {
  beforeAll(async () => {
    srv = await startWebServer();
    browser = await launchBrowser(srv.url);
    page = browser.page;
    // Count animation frames the page asks for: a page at rest asks for none.
    await browser.context.addInitScript(() => {
      const w = window as unknown as { __raf: number };
      w.__raf = 0;
      const raf = window.requestAnimationFrame.bind(window);
      window.requestAnimationFrame = (cb) => {
        w.__raf++;
        return raf(cb);
      };
    });
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  it('draws once, then stays idle, with labels that do not overlap', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${srv.url}/api/graph`);
    await page.waitForFunction(() => (window as unknown as { kbGraph?: { firstRenderMs: number } }).kbGraph?.firstRenderMs, undefined, { timeout: 15_000 });
    await expect.poll(status).toMatch(/^\d+ nodes\.$/);
    expect(await page.locator('#graph canvas').count()).toBeGreaterThan(0);
    await page.waitForTimeout(300);
    const settled = await probe();
    const rafBefore = await page.evaluate(() => (window as unknown as { __raf: number }).__raf);
    await page.waitForTimeout(1000);
    expect((await probe()).renders).toBe(settled.renders);
    expect(await page.evaluate(() => (window as unknown as { __raf: number }).__raf)).toBe(rafBefore);

    expect(settled.labels.length).toBeGreaterThan(3);
    const overlaps: string[] = [];
    settled.labels.forEach((a, i) =>
      settled.labels.slice(i + 1).forEach((b) => {
        if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) overlaps.push(`${JSON.stringify(a)} × ${JSON.stringify(b)}`);
      }),
    );
    expect(overlaps).toEqual([]);
    expect(await layoutShift(page)).toBe(0);
    expect(errors).toEqual([]);
    await screenshot(page, 'graph');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('filters by type and by tag, drawing once per change', async () => {
    const all = Number(/^(\d+) nodes/.exec((await status())!)![1]);
    const before = (await probe()).renders;
    await page.locator('input[name=type][value=video]').uncheck();
    await expect.poll(status).toMatch(/^Showing \d+ of \d+ nodes\.$/);
    const withoutVideos = Number(/^Showing (\d+)/.exec((await status())!)![1]);
    const videos = (await (await srv.get('/api/graph/data')).json()).nodes.filter((n: { type: string }) => n.type === 'video').length;
    expect(withoutVideos).toBe(all - videos);
    await page.locator('input[name=type][value=video]').check();
    await expect.poll(status).toBe(`${all} nodes.`);

    const tag = await page.locator('#graph-tag option').nth(1).getAttribute('value');
    await page.locator('#graph-tag').selectOption(tag!);
    await expect.poll(status).toMatch(/^Showing \d+ of \d+ nodes\.$/);
    const data = await (await srv.get('/api/graph/data')).json();
    const concepts = data.edges.filter((e: { target: string; kind: string }) => e.kind === 'tagged' && e.target === tag).map((e: { source: string }) => e.source);
    const shown = Number(/^Showing (\d+)/.exec((await status())!)![1]);
    expect(shown).toBeGreaterThan(concepts.length);
    expect(shown).toBeLessThan(all);
    await page.locator('#graph-tag').selectOption('');
    await expect.poll(status).toBe(`${all} nodes.`);
    await page.waitForTimeout(200);
    // Four changes, each one frame (sigma may merge two into one).
    const drawn = (await probe()).renders - before;
    expect(drawn).toBeGreaterThanOrEqual(1);
    expect(drawn).toBeLessThanOrEqual(4);
  });

  it('finds a node by its label, centres it, and its link opens the page', async () => {
    const data = await (await srv.get('/api/graph/data')).json();
    const concept = data.nodes.find((n: { type: string }) => n.type === 'knowledge');
    await page.locator('#graph-q').fill(concept.label);
    const hit = page.locator('#graph-found li', { hasText: concept.label }).first();
    await hit.waitFor();
    expect(await hit.locator('a').getAttribute('href')).toBe(concept.url);
    await hit.locator('button', { hasText: 'Show in graph' }).click();
    await page.waitForTimeout(600); // the camera's animation
    await screenshot(page, 'graph-focus');
    expect(await seriousViolations(page)).toEqual([]);
    await hit.locator('a').click();
    await page.waitForURL(`${srv.url}${concept.url}`);
    expect(await page.locator('h1').textContent()).toBe(concept.label);
  });

  it('opens the page of a node clicked in the graph', async () => {
    await page.goto(`${srv.url}/api/graph`);
    await page.waitForFunction(() => (window as unknown as { kbGraph?: { firstRenderMs: number } }).kbGraph?.firstRenderMs);
    await page.locator('#graph').scrollIntoViewIfNeeded();
    const target = await page.evaluate(() => {
      const s = (window as unknown as { kbGraph: { sigma: any } }).kbGraph.sigma;
      const g = s.getGraph();
      const id = g.nodes().find((n: string) => n.startsWith('knowledge:'));
      const at = s.framedGraphToViewport(s.getNodeDisplayData(id));
      return { url: g.getNodeAttribute(id, 'url') as string, x: at.x as number, y: at.y as number };
    });
    const box = (await page.locator('#graph').boundingBox())!;
    await page.mouse.click(box.x + target.x, box.y + target.y);
    await page.waitForURL(`${srv.url}${target.url}`);
  });

  it('draws a big graph as points and lines, and its nodes still open their pages', async () => {
    // The sample's graph is small; this one gets 2,500 more video nodes on a ring around it, each linked to a
    // concept, so the page takes its big-graph path (sigma's point and line programs, cheap in software WebGL).
    const data = await (await srv.get('/api/graph/data')).json();
    const concepts = data.nodes.filter((n: { type: string }) => n.type === 'knowledge');
    for (let i = 0; i < 2500; i++) {
      const a = (2 * Math.PI * i) / 2500;
      data.nodes.push({ id: `video:filler-${i}`, type: 'video', label: `Filler ${i}`, url: `/videos/filler-${i}`, x: 3000 * Math.cos(a), y: 3000 * Math.sin(a), size: 1.5 });
      data.edges.push({ source: concepts[i % concepts.length].id, target: `video:filler-${i}`, kind: 'cites' });
    }
    await page.route('**/api/graph/data', (route) => route.fulfill({ json: data }));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${srv.url}/api/graph`);
    await page.waitForFunction(() => (window as unknown as { kbGraph?: { firstRenderMs: number } }).kbGraph?.firstRenderMs, undefined, { timeout: 15_000 });
    // The status is set in the same task as the first frame, but reading it waits for the page's main thread,
    // which software WebGL keeps busy drawing 2,500 more nodes: on a loaded machine past the poll's default 1 s.
    await expect.poll(status, { timeout: 10_000 }).toBe(`${data.nodes.length} nodes.`);
    const drawn = await page.evaluate(() => {
      const s = (window as unknown as { kbGraph: { sigma: any } }).kbGraph.sigma;
      return { nodes: s.nodePrograms.circle.METHOD, edges: s.edgePrograms.line.METHOD };
    });
    expect(drawn).toEqual({ nodes: 0 /* gl.POINTS */, edges: 1 /* gl.LINES */ });
    const settled = await probe();
    expect(settled.labels.length).toBeGreaterThan(0);
    await page.waitForTimeout(1000);
    expect((await probe()).renders).toBe(settled.renders);

    await page.locator('#graph').scrollIntoViewIfNeeded();
    const target = await page.evaluate((id) => {
      const s = (window as unknown as { kbGraph: { sigma: any } }).kbGraph.sigma;
      const at = s.framedGraphToViewport(s.getNodeDisplayData(id));
      return { x: at.x as number, y: at.y as number };
    }, concepts[0].id);
    const box = (await page.locator('#graph').boundingBox())!;
    await page.mouse.click(box.x + target.x, box.y + target.y);
    await page.waitForURL(`${srv.url}${concepts[0].url}`);
    await page.unroute('**/api/graph/data');
    expect(errors).toEqual([]);
  });
});
