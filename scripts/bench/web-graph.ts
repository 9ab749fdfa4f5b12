// Part of `npm run bench -- web`: the knowledge graph at real size. A seeded synthetic corpus (10k videos by
// default; kept under bench/corpus/graph-<n>), its graph and ForceAtlas2 layout computed as the build does
// (timed), the page and its data written into a dist/ of their own and served by the real server, then
// Debian's Chromium opens /api/graph: time from navigation to the first drawn frame, the time between frames
// while a mouse drags and wheels, and whether it goes idle (no frame drawn in the second after it settles).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { graphData, graphHtml } from '../../src/lib/read/graph.ts';
import { toJson } from '../../src/lib/representation.ts';
import { generateCorpus } from '../gen-corpus.ts';
import { benchDir, startChild } from './util.ts';

export const CHROMIUM = '/usr/bin/chromium';

export interface GraphFigure {
  videos: number;
  nodes: number;
  edges: number;
  data_bytes: number;
  layout_ms: number;
  first_render_ms: number;
  frame_p50_ms: number;
  frame_p95_ms: number;
  idle_frames_after_settle: number;
}

/** The graph page and its data for a synthetic corpus of `videos` videos, served by the real server from a dist/ of their own. */
export interface GraphSite {
  url: string;
  data: ReturnType<typeof graphData>;
  /** The bytes of /api/graph/data, uncompressed. */
  dataBytes: number;
  layoutMs: number;
  stop(): Promise<void>;
}

/**
 * Generates (once; kept under bench/corpus/graph-<n>) a seeded corpus of `videos` videos, computes its graph
 * and layout as the build does (timed), writes the page, its data and the site's assets into a dist/ of their
 * own and serves it with the real server.
 */
export async function startGraphSite(videos: number): Promise<GraphSite> {
  const corpus = benchDir('corpus', `graph-${videos}`);
  if (!fs.existsSync(path.join(corpus, 'videos'))) {
    console.log(`bench web: generating a ${videos}-video corpus in ${path.relative(process.cwd(), corpus)} …`);
    generateCorpus({ dir: corpus, videos, seed: 42 });
  }
  const snap = await loadSnapshot(corpus);
  const site = { siteName: 'Bench', baseUrl: 'http://bench.local' };
  const started = performance.now();
  const data = graphData(snap);
  const layoutMs = performance.now() - started;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-graph-'));
  const client = path.join(dir, 'dist', 'client');
  const dataJson = toJson(data);
  fs.mkdirSync(path.join(client, 'api/graph/data'), { recursive: true });
  fs.writeFileSync(path.join(client, 'api/graph/index.html'), graphHtml(snap, site));
  fs.writeFileSync(path.join(client, 'api/graph/data/index.json'), dataJson);
  fs.cpSync(path.resolve('public/assets'), path.join(client, 'assets'), { recursive: true });
  const server = await startChild('api/server.ts', [], {
    CONTENT_DIR: path.resolve('content'),
    DIST_DIR: path.join(dir, 'dist'),
    DATA_DIR: path.join(dir, 'var'),
    BASE_URL: 'http://bench.local',
    ALLOW_DEV_IDP: 'true',
    PIPELINE: 'off',
    PORT: '0',
    HOST: '127.0.0.1',
  });
  return {
    url: server.url,
    data,
    dataBytes: Buffer.byteLength(dataJson),
    layoutMs,
    stop: async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function graphFigure(videos: number): Promise<GraphFigure | null> {
  if (!fs.existsSync(CHROMIUM)) {
    console.log(`bench web: ${CHROMIUM} is missing, no graph figure (apt-get install chromium)`);
    return null;
  }
  const server = await startGraphSite(videos);
  const { data } = server;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/api/graph`);
    await page.waitForFunction(() => (window as unknown as { kbGraph?: { firstRenderMs: number } }).kbGraph?.firstRenderMs, undefined, { timeout: 60_000 });
    const firstRender = await page.evaluate(() => (window as unknown as { kbGraph: { firstRenderMs: number } }).kbGraph.firstRenderMs);
    // Pan (drag) and zoom (wheel) with the mouse, as a person does, while the page records the time
    // between frames it gets to draw (the page's own thread: the nodes and edges are drawn by its worker).
    await page.evaluate(() => {
      const w = window as unknown as { kbFrames: number[]; kbFramesOn: boolean };
      w.kbFrames = [];
      w.kbFramesOn = true;
      let last = performance.now();
      const tick = () => {
        const now = performance.now();
        w.kbFrames.push(now - last);
        last = now;
        if (w.kbFramesOn) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const box = (await page.locator('#graph').boundingBox())!;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let i = 1; i <= 20; i++) await page.mouse.move(cx + i * 8, cy + i * 4);
    await page.mouse.up();
    for (let i = 0; i < 10; i++) {
      await page.mouse.wheel(0, i < 5 ? -120 : 120);
      await page.waitForTimeout(60);
    }
    const frames = await page.evaluate(() => {
      const w = window as unknown as { kbFrames: number[]; kbFramesOn: boolean };
      w.kbFramesOn = false;
      return w.kbFrames.slice(1);
    });
    await page.waitForTimeout(500);
    const before = await page.evaluate(() => (window as unknown as { kbGraph: { renders: number } }).kbGraph.renders);
    await page.waitForTimeout(1000);
    const after = await page.evaluate(() => (window as unknown as { kbGraph: { renders: number } }).kbGraph.renders);
    frames.sort((a, b) => a - b);
    const q = (p: number) => Math.round(frames[Math.min(frames.length - 1, Math.floor(p * frames.length))] * 10) / 10;
    return {
      videos,
      nodes: data.node_count,
      edges: data.edge_count,
      data_bytes: server.dataBytes,
      layout_ms: Math.round(server.layoutMs),
      first_render_ms: Math.round(firstRender),
      frame_p50_ms: q(0.5),
      frame_p95_ms: q(0.95),
      idle_frames_after_settle: after - before,
    };
  } finally {
    await browser.close();
    await server.stop();
  }
}
