// The graph's build-time layout at a size past the skeleton threshold: ForceAtlas2 lays out the tags and the
// most connected concepts, every other node is placed beside a neighbour. Every node gets a position inside
// the box, nodes do not land on top of each other, a video sits near a concept that cites it, and the same
// content gives the same bytes in a fresh module (the incremental build's equivalence depends on it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { graphData, SKELETON_NODES, type GraphData } from '../../src/lib/read/graph.ts';

let dir: string;
let data: GraphData;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-graph-layout-'));
  generateCorpus({ dir, videos: 2000, seed: 11 });
  data = graphData(await loadSnapshot(dir));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('places every node of a graph bigger than the skeleton inside the box, apart from the others', () => {
  expect(data.node_count).toBeGreaterThan(SKELETON_NODES);
  for (const n of data.nodes) {
    expect(Number.isFinite(n.x) && Number.isFinite(n.y)).toBe(true);
    expect(Math.max(Math.abs(n.x), Math.abs(n.y))).toBeLessThanOrEqual(1000);
  }
  expect(Math.max(...data.nodes.map((n) => Math.max(Math.abs(n.x), Math.abs(n.y))))).toBe(1000);
  const spots = new Set(data.nodes.map((n) => `${n.x},${n.y}`));
  expect(spots.size).toBeGreaterThan(data.node_count * 0.99);
});

it('puts a video beside a concept that cites it', () => {
  const at = new Map(data.nodes.map((n) => [n.id, n]));
  const concepts = data.nodes.filter((n) => n.type === 'knowledge');
  const median = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const videos = data.nodes.filter((n) => n.type === 'video');
  const toCiting = videos.map((v) => {
    const citing = data.edges.filter((e) => e.kind === 'cites' && e.target === v.id).map((e) => at.get(e.source)!);
    return Math.min(...citing.map((c) => Math.hypot(c.x - v.x, c.y - v.y)));
  });
  // Against any concept picked without looking (the synthetic corpus cites at random, so there are no
  // clusters to find): the citing one is several times nearer.
  const toAny = videos.map((v, i) => {
    const c = concepts[(i * 7919) % concepts.length];
    return Math.hypot(c.x - v.x, c.y - v.y);
  });
  expect(median(toCiting)).toBeLessThan(median(toAny) * 0.3);
});

it('gives the same content the same layout in a fresh module', async () => {
  vi.resetModules();
  const fresh = (await import('../../src/lib/read/graph.ts')).graphData(await loadSnapshot(dir));
  expect(fresh).not.toBe(data);
  expect(JSON.stringify(fresh)).toBe(JSON.stringify(data));
});
