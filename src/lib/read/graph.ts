// The knowledge graph: published concepts, the sources they cite and their tags, as nodes and edges with a
// ForceAtlas2 layout computed here, at build time (a pure function of the snapshot, so the prerendered file
// and its dynamic twin agree), and the page that draws it with sigma.js (WebGL) from /assets/graph.js.
import { createHash } from 'node:crypto';
import { UndirectedGraph } from 'graphology';
// A CommonJS package: Node's default import is module.exports, which its types call the default export.
import forceAtlas2Module from 'graphology-layout-forceatlas2';
import { essayIn, type Snapshot } from '../content/model.ts';
import type { SiteContext } from '../site.ts';
import { itemUrl } from './links.ts';
import { documentHtml, type PageMeta } from '../../web/layout.ts';
import { html } from '../../web/html.ts';

export const GRAPH_NODE_TYPES = ['knowledge', 'video', 'essay', 'digest', 'web_page', 'tag'] as const;
export type GraphNodeType = (typeof GRAPH_NODE_TYPES)[number];

export interface GraphNode {
  id: string;
  type: GraphNodeType;
  label: string;
  url: string;
  /** Position from the build-time layout (arbitrary units, centred on 0). */
  x: number;
  y: number;
  /** Drawing size, from the node's degree. */
  size: number;
}
export interface GraphEdge {
  source: string;
  target: string;
  kind: 'cites' | 'related' | 'tagged';
}

type UnplacedNode = Omit<GraphNode, 'x' | 'y' | 'size'>;

function graphStructure(snap: Snapshot): { nodes: UnplacedNode[]; edges: GraphEdge[] } {
  const nodes = new Map<string, UnplacedNode>();
  const edges: GraphEdge[] = [];
  const seenEdge = new Set<string>();
  const edge = (source: string, target: string, kind: GraphEdge['kind']) => {
    const key = kind === 'related' ? [source, target].sort().join('|') + kind : `${source}|${target}|${kind}`;
    if (seenEdge.has(key)) return;
    seenEdge.add(key);
    edges.push({ source, target, kind });
  };
  const published = snap.concepts.filter((c) => !c.draft);
  const publishedSlugs = new Set(published.map((c) => c.slug));
  for (const c of published) {
    const id = `knowledge:${c.slug}`;
    nodes.set(id, { id, type: 'knowledge', label: c.title, url: itemUrl('knowledge', c.slug, false) });
  }
  for (const c of published) {
    const from = `knowledge:${c.slug}`;
    for (const s of c.sources) {
      let node: UnplacedNode;
      if (s.type === 'video') {
        node = { id: `video:${s.id}`, type: 'video', label: snap.videosById.get(s.id)!.title, url: itemUrl('videos', s.id, false) };
      } else if (s.type === 'essay') {
        node = { id: `essay:${s.id}`, type: 'essay', label: essayIn(snap.essaysBySlug.get(s.id)!).title, url: itemUrl('essays', s.id, false) };
      } else if (s.type === 'digest') {
        node = { id: `digest:${s.id}`, type: 'digest', label: snap.digestsByDate.get(s.id)!.title, url: itemUrl('digests', s.id, false) };
      } else {
        node = { id: `web_page:${s.url}`, type: 'web_page', label: s.title, url: s.url };
      }
      nodes.set(node.id, node);
      edge(from, node.id, 'cites');
    }
    for (const r of c.related) if (publishedSlugs.has(r)) edge(from, `knowledge:${r}`, 'related');
    for (const t of c.tags) {
      const id = `tag:${t}`;
      nodes.set(id, { id, type: 'tag', label: t, url: `/tags/${encodeURIComponent(t)}` });
      edge(from, id, 'tagged');
    }
  }
  return { nodes: [...nodes.values()], edges };
}

const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));
const round1 = (v: number) => Math.round(v * 10) / 10 + 0; // + 0 turns -0 into 0

/**
 * ForceAtlas2 over the whole graph, from a deterministic start: concepts on a sunflower spiral, every other
 * node beside the first concept that links to it (so the forces only refine, instead of untangling a random
 * start). Barnes-Hut and fewer iterations as the graph grows: ~1.5 s for the 10k-video corpus's 16k nodes
 * and 52k edges on one core. Deterministic, so equal snapshots give equal bytes.
 */
function layout(nodes: UnplacedNode[], edges: GraphEdge[]): Map<string, { x: number; y: number; size: number }> {
  const forceAtlas2 = forceAtlas2Module as unknown as typeof forceAtlas2Module.default;
  const g = new UndirectedGraph<{ x: number; y: number }>();
  const neighbours = new Map<string, string[]>();
  for (const e of edges) {
    (neighbours.get(e.source) ?? neighbours.set(e.source, []).get(e.source)!).push(e.target);
    (neighbours.get(e.target) ?? neighbours.set(e.target, []).get(e.target)!).push(e.source);
  }
  const start = new Map<string, { x: number; y: number }>();
  let k = 0;
  for (const n of nodes) {
    if (n.type !== 'knowledge') continue;
    const r = 20 * Math.sqrt(k + 1);
    start.set(n.id, { x: r * Math.cos(k * GOLDEN_ANGLE), y: r * Math.sin(k * GOLDEN_ANGLE) });
    k++;
  }
  const placedBeside = new Map<string, number>();
  for (const n of nodes) {
    if (start.has(n.id)) continue;
    const anchor = (neighbours.get(n.id) ?? []).find((id) => start.has(id));
    const at = anchor ? start.get(anchor)! : { x: 0, y: 0 };
    const i = placedBeside.get(anchor ?? '') ?? 0;
    placedBeside.set(anchor ?? '', i + 1);
    start.set(n.id, { x: at.x + (6 + i) * Math.cos(i * GOLDEN_ANGLE), y: at.y + (6 + i) * Math.sin(i * GOLDEN_ANGLE) });
  }
  for (const n of nodes) g.addNode(n.id, { ...start.get(n.id)! });
  for (const e of edges) if (!g.hasEdge(e.source, e.target)) g.addEdge(e.source, e.target);
  const large = g.order > 2000;
  forceAtlas2.assign(g, {
    iterations: g.order <= 500 ? 400 : large ? 40 : 150,
    settings: { ...forceAtlas2.inferSettings(g), barnesHutOptimize: g.order > 500, barnesHutTheta: large ? 1.2 : 0.5 },
  });
  // Scale into a fixed box so the numbers stay short whatever the graph's spread.
  let max = 1;
  g.forEachNode((_, a) => {
    max = Math.max(max, Math.abs(a.x), Math.abs(a.y));
  });
  const scale = 1000 / max;
  const out = new Map<string, { x: number; y: number; size: number }>();
  g.forEachNode((id, a) => {
    const degree = g.degree(id);
    const base = id.startsWith('knowledge:') ? 3 : id.startsWith('tag:') ? 2.5 : 1.5;
    out.set(id, { x: round1(a.x * scale), y: round1(a.y * scale), size: round1(Math.min(18, base + Math.sqrt(degree))) });
  });
  return out;
}

export interface GraphData {
  node_count: number;
  edge_count: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

// The layout costs seconds at 10k videos; the build asks for it for two documents and the server again for
// each dynamic twin, so the last result is kept, keyed by the graph's structure and labels.
// The same snapshot object is asked twice in one build (the data and the page): answered without even
// rebuilding the structure to key it (2–4 s at 100k videos).
let memo: { key: string; data: GraphData } | null = null;
const bySnapshot = new WeakMap<Snapshot, GraphData>();

export function graphData(snap: Snapshot): GraphData {
  const known = bySnapshot.get(snap);
  if (known) return known;
  const data = graphDataOf(snap);
  bySnapshot.set(snap, data);
  return data;
}

function graphDataOf(snap: Snapshot): GraphData {
  const { nodes, edges } = graphStructure(snap);
  const key = createHash('sha256').update(JSON.stringify([nodes, edges])).digest('base64url');
  if (memo?.key === key) return memo.data;
  const at = layout(nodes, edges);
  const placed = nodes.map((n) => ({ ...n, ...at.get(n.id)! }));
  const data = { node_count: placed.length, edge_count: edges.length, nodes: placed, edges };
  memo = { key, data };
  return data;
}

const TYPE_LABEL: Record<GraphNodeType, string> = {
  knowledge: 'Knowledge',
  video: 'Videos',
  essay: 'Essays',
  digest: 'Digests',
  web_page: 'Web pages',
  tag: 'Tags',
};

/**
 * The graph page: the site's chrome, filters (type, tag), a find box that works without script (it falls
 * back to site search), and a fixed-size stage that /assets/graph.js fills from /api/graph/data.
 */
export function graphHtml(snap: Snapshot, site: Pick<SiteContext, 'siteName' | 'baseUrl'>): string {
  const data = graphData(snap);
  const counts = new Map<GraphNodeType, number>();
  for (const n of data.nodes) counts.set(n.type, (counts.get(n.type) ?? 0) + 1);
  const tagUse = new Map<string, number>();
  for (const e of data.edges) if (e.kind === 'tagged') tagUse.set(e.target, (tagUse.get(e.target) ?? 0) + 1);
  const tags = [...tagUse].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const concepts = counts.get('knowledge') ?? 0;
  const meta: PageMeta = {
    title: 'Knowledge graph',
    description: `A map of ${concepts} knowledge concepts and the videos, essays, digests and web pages they cite, with their tags: filter by type or tag, find a node and open its page.`,
    path: '/api/graph',
    jsonTwin: '/api/graph/data',
    scripts: ['/assets/graph.js'],
    styles: ['/assets/graph.css'],
  };
  const body = html`<h1>Knowledge graph</h1>
<p class="lede">${concepts} concepts with the ${data.node_count - concepts} sources and tags they link to. Drag to move, scroll or pinch to zoom, select a node to open its page.</p>
<div class="graph-tools">
<form id="graph-filters" class="graph-filters">
<fieldset><legend>Show</legend><div class="checks">
${GRAPH_NODE_TYPES.filter((t) => counts.has(t)).map((t) => html`<label><input type="checkbox" name="type" value="${t}" checked><span class="swatch t-${t}" aria-hidden="true"></span>${TYPE_LABEL[t]} (${counts.get(t)})</label>\n`)}</div></fieldset>
<label for="graph-tag">Tag</label>
<select id="graph-tag" name="tag"><option value="">All tags</option>
${tags.map(([id, n]) => html`<option value="${id}">${id.slice(4)} (${n})</option>\n`)}</select>
</form>
<form id="graph-find" class="graph-find" action="/search" method="get" role="search">
<label for="graph-q">Find a node</label>
<input id="graph-q" name="q" type="search" autocomplete="off" aria-describedby="graph-status">
<button type="submit">Find</button>
</form>
</div>
<ul id="graph-found" class="graph-found list" aria-label="Matching nodes"></ul>
<div id="graph" class="graph-stage" role="img" aria-label="Graph of ${concepts} knowledge concepts, their sources and tags. The find box above lists the nodes as links."></div>
<p id="graph-status" role="status"></p>
<noscript><p>Drawing the graph needs JavaScript. The find box searches the site instead, and the nodes and edges are at <a href="/api/graph/data">/api/graph/data</a>.</p></noscript>`;
  return documentHtml(meta, { siteName: site.siteName, baseUrl: site.baseUrl, section: 'knowledge', whoScript: true }, body);
}
