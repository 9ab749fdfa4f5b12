// The knowledge graph page in a real browser: a worker parses the data and draws the build-time layout
// (WebGL in an OffscreenCanvas), nothing is drawn again while nothing moves, labels at rest never overlap,
// the type and tag filters narrow what is shown, the find box lists nodes as links and centres one, and
// clicking a node opens its page. At phone (390×844) and desktop (1366×768) sizes: labels lie whole inside
// the stage, the list of matches does not move the stage, "Show in graph" centres the node in view, and a
// row reads "Knowledge: <title>". axe-core finds no serious or critical violation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  text: string;
}
const probe = () => page.evaluate(() => {
  const g = (window as unknown as { kbGraph: { renders: number; labels: Box[]; firstRenderMs: number } }).kbGraph;
  return { renders: g.renders, labels: g.labels.map((b) => ({ ...b })), firstRenderMs: g.firstRenderMs };
});
const status = () => page.locator('#graph-status').textContent();
const drawn = () => page.waitForFunction(() => (window as unknown as { kbGraph?: { firstRenderMs: number } }).kbGraph?.firstRenderMs, undefined, { timeout: 15_000 });
/**
 * How many pixels of the stage are in a node's colour (hue, not the grey of edges, labels and dimmed nodes),
 * read from a screenshot: the page cannot read back a canvas its worker draws into.
 */
const colouredPixels = async () => {
  const png = await page.locator('#graph').screenshot();
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 60) n++;
    return n;
  }, png.toString('base64'));
};
/** Where node `id` is drawn, in the page's viewport (CSS pixels), or null when it is not in the graph. */
const nodeOnScreen = async (id: string) => {
  const at = await page.evaluate((id) => {
    const v = (window as unknown as { kbGraph: { view: { g: { ids: string[] }; viewportOf(i: number): { x: number; y: number } } } }).kbGraph.view;
    const i = v.g.ids.indexOf(id);
    return i < 0 ? null : v.viewportOf(i);
  }, id);
  const box = (await page.locator('#graph').boundingBox())!;
  return at && { x: box.x + at.x, y: box.y + at.y, stage: box };
};

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
    await drawn();
    await expect.poll(status).toMatch(/^\d+ nodes\.$/);
    // Two canvases: the worker draws the nodes and edges into the first (handed over, so the page can no
    // longer draw into it itself), the page draws the labels into the second.
    expect(await page.locator('#graph canvas').count()).toBe(2);
    expect(await page.evaluate(() => {
      try {
        (document.querySelector('#graph canvas') as HTMLCanvasElement).getContext('2d');
        return 'drawn by the page';
      } catch {
        return 'drawn by the worker';
      }
    })).toBe('drawn by the worker');
    // And the frame is on the screen, in the nodes' colours.
    expect(await colouredPixels()).toBeGreaterThan(500);
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
    // Four changes, each one frame (two may share one).
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
    await page.locator('#graph-q').focus(); // the list closed when the node was shown; it opens again
    await hit.locator('a').click();
    await page.waitForURL(`${srv.url}${concept.url}`);
    expect(await page.locator('h1').textContent()).toBe(concept.label);
  });

  it('opens the page of a node clicked in the graph', async () => {
    await page.goto(`${srv.url}/api/graph`);
    await page.locator('#graph').scrollIntoViewIfNeeded();
    await drawn();
    const data = await (await srv.get('/api/graph/data')).json();
    const concept = data.nodes.find((n: { type: string }) => n.type === 'knowledge');
    const at = (await nodeOnScreen(concept.id))!;
    await page.mouse.click(at.x, at.y);
    await page.waitForURL(`${srv.url}${concept.url}`);
  });

  it('pans with a drag and zooms with the wheel about the pointer', async () => {
    await page.goto(`${srv.url}/api/graph`);
    await page.locator('#graph').scrollIntoViewIfNeeded();
    await drawn();
    const data = await (await srv.get('/api/graph/data')).json();
    const concept = data.nodes.find((n: { type: string }) => n.type === 'knowledge');
    const before = (await nodeOnScreen(concept.id))!;
    const stage = before.stage;
    const from = { x: stage.x + stage.width / 2, y: stage.y + stage.height / 2 };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(from.x + i * 8, from.y + i * 5);
    await page.mouse.up();
    const dragged = (await nodeOnScreen(concept.id))!;
    expect(dragged.x - before.x).toBeCloseTo(80, 0);
    expect(dragged.y - before.y).toBeCloseTo(50, 0);
    // A drag is not a click: the page stays.
    expect(page.url()).toBe(`${srv.url}/api/graph`);
    // Zooming in about the node leaves it where it is and spreads the others out.
    const other = data.nodes.find((n: { type: string; id: string }) => n.type === 'knowledge' && n.id !== concept.id);
    const otherBefore = (await nodeOnScreen(other.id))!;
    await page.mouse.move(dragged.x, dragged.y);
    await page.mouse.wheel(0, -200);
    await expect.poll(async () => (await nodeOnScreen(other.id))!.x).not.toBe(otherBefore.x);
    const zoomed = (await nodeOnScreen(concept.id))!;
    expect(Math.abs(zoomed.x - dragged.x)).toBeLessThan(1);
    expect(Math.abs(zoomed.y - dragged.y)).toBeLessThan(1);
    const otherAfter = (await nodeOnScreen(other.id))!;
    expect(Math.hypot(otherAfter.x - zoomed.x, otherAfter.y - zoomed.y)).toBeGreaterThan(Math.hypot(otherBefore.x - dragged.x, otherBefore.y - dragged.y) * 1.2);
  });

  it('draws a big graph, stays idle, and its nodes still open their pages', async () => {
    // The sample's graph is small; this one gets 2,500 more video nodes on a ring around it, each linked to a
    // concept, so the page takes its big-graph path (links to tags only for a chosen tag).
    const data = await (await srv.get('/api/graph/data')).json();
    const concepts = data.nodes.filter((n: { type: string }) => n.type === 'knowledge');
    for (let i = 0; i < 2500; i++) {
      const a = (2 * Math.PI * i) / 2500;
      data.nodes.push({ id: `video:filler-${i}`, type: 'video', label: `Filler ${i}`, url: `/videos/filler-${i}`, x: 3000 * Math.cos(a), y: 3000 * Math.sin(a), size: 1.5 });
      for (let k = 0; k < 2; k++) data.edges.push({ source: concepts[(i + k) % concepts.length].id, target: `video:filler-${i}`, kind: 'cites' });
    }
    // The worker fetches the data: the context's route sees its requests.
    await browser.context.route('**/api/graph/data', (route) => route.fulfill({ json: data }));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${srv.url}/api/graph`);
    await drawn();
    await expect.poll(status, { timeout: 10_000 }).toBe(`${data.nodes.length} nodes. Links to tags show when you choose a tag.`);
    const settled = await probe();
    expect(settled.labels.length).toBeGreaterThan(0);
    await page.waitForTimeout(1000);
    expect((await probe()).renders).toBe(settled.renders);

    await page.locator('#graph').scrollIntoViewIfNeeded();
    const at = (await nodeOnScreen(concepts[0].id))!;
    await page.mouse.click(at.x, at.y);
    await page.waitForURL(`${srv.url}${concepts[0].url}`);
    await browser.context.unroute('**/api/graph/data');
    expect(errors).toEqual([]);
  });

  for (const size of [
    { name: 'a phone', width: 390, height: 844 },
    { name: 'a desktop', width: 1366, height: 768 },
  ]) sizedSuite(size);
});

/** The phone and desktop checks of issue 43: labels inside the stage, the list over the stage, the node shown in view, the row's text. */
function sizedSuite(size: { name: string; width: number; height: number }): void {
  describe(`on ${size.name} (${size.width}×${size.height})`, () => {
    beforeAll(async () => {
      await page.setViewportSize({ width: size.width, height: size.height });
    });

    /** Each label of the last frame lies whole inside the stage, and says the node's title (clipped past 42 characters with "…"). */
    const labelsInside = async () => {
      const stage = (await page.locator('#graph').boundingBox())!;
      const { labels } = await probe();
      expect(labels.length).toBeGreaterThan(0);
      const titles = new Set((await (await srv.get('/api/graph/data')).json()).nodes.map((n: { label: string }) => (n.label.length > 42 ? `${n.label.slice(0, 41)}…` : n.label)));
      const outside = labels.filter((b) => b.x < 0 || b.y < 0 || b.x + b.w > stage.width || b.y + b.h > stage.height).map((b) => `${b.text} at ${Math.round(b.x)}+${Math.round(b.w)} of ${stage.width}`);
      expect(outside).toEqual([]);
      expect(labels.filter((b) => !titles.has(b.text))).toEqual([]);
    };

    it('draws labels whole inside the stage, at rest and around a node it shows', async () => {
      await page.goto(`${srv.url}/api/graph`);
      await page.locator('#graph').scrollIntoViewIfNeeded();
      await drawn();
      await labelsInside();
      // Zoomed in, around nodes near the edges of the picture, where a label to the right would be cut.
      const data = await (await srv.get('/api/graph/data')).json();
      const concepts = data.nodes.filter((n: { type: string }) => n.type === 'knowledge');
      const east = concepts.reduce((a: { x: number }, b: { x: number }) => (b.x > a.x ? b : a));
      await page.evaluate((id) => {
        const v = (window as unknown as { kbGraph: { view: { g: { ids: string[] }; centreOn(i: number, ratio: number, ms: number): void; camera: { x: number } } } }).kbGraph.view;
        v.centreOn(v.g.ids.indexOf(id), 0.6, 1);
      }, east.id);
      await page.waitForTimeout(100);
      await labelsInside();
    });

    it('lists matches without moving the stage, as "Kind: title", and shows one in the middle of the screen', async () => {
      await page.goto(`${srv.url}/api/graph`);
      const before = (await page.locator('#graph').boundingBox())!;
      const data = await (await srv.get('/api/graph/data')).json();
      const concept = data.nodes.find((n: { type: string }) => n.type === 'knowledge');
      await page.locator('#graph-q').fill(concept.label);
      const hit = page.locator('#graph-found li', { hasText: concept.label }).first();
      await hit.waitFor();
      expect(await page.locator('#graph').boundingBox()).toEqual(before);
      // The type is a badge of its own beside the title, and the row reads "Knowledge: <title>".
      const text = (await hit.evaluate((li) => li.textContent))!.replace(/\s+/g, ' ').trim();
      expect(text.startsWith(`Knowledge: ${concept.label} Show in graph`)).toBe(true);
      const badge = (await hit.locator('.kind').boundingBox())!;
      const link = (await hit.locator('a').boundingBox())!;
      expect(badge.x + badge.width).toBeLessThan(link.x);
      expect(await seriousViolations(page)).toEqual([]);

      await hit.locator('button', { hasText: 'Show in graph' }).click();
      await page.waitForTimeout(700); // the camera's animation
      const at = (await nodeOnScreen(concept.id))!;
      // In the middle of the stage, and the stage in the window.
      expect(Math.abs(at.x - (at.stage.x + at.stage.width / 2))).toBeLessThan(2);
      expect(Math.abs(at.y - (at.stage.y + at.stage.height / 2))).toBeLessThan(2);
      expect(at.y).toBeGreaterThan(0);
      expect(at.y).toBeLessThan(size.height);
      expect(at.x).toBeGreaterThan(0);
      expect(at.x).toBeLessThan(size.width);
      expect(await page.locator('#graph-found').isVisible()).toBe(false);
      await labelsInside();
      expect((await probe()).labels[0].text).toBe(concept.label.length > 42 ? `${concept.label.slice(0, 41)}…` : concept.label);
      await screenshot(page, `graph-show-${size.width}`);
    });
  });
}
