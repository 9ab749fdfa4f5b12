// The knowledge graph: published concepts, the sources they cite and their tags, as nodes and edges with a
// ForceAtlas2 layout computed here, at build time (a pure function of the snapshot, so the prerendered file
// and its dynamic twin agree), and the page that draws it with WebGL from /assets/graph.js.
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

/** Past this many nodes, ForceAtlas2 lays out a skeleton of this size and the rest is placed beside it. */
export const SKELETON_NODES = 2500;

type Point = { x: number; y: number };

/**
 * The layout: ForceAtlas2 (graphology-layout-forceatlas2) from a deterministic start, concepts on a
 * sunflower spiral and every other node beside the first concept that links to it, so the forces only
 * refine instead of untangling a random start. A graph of up to SKELETON_NODES nodes is laid out whole. A
 * bigger one lays out its skeleton only (the tags and the most connected concepts, SKELETON_NODES in all),
 * then places every other node on a small sunflower around its anchor: a remaining concept beside the first
 * skeleton concept it relates to (else its first tag), a source beside the first concept that cites it. The
 * cost then stays ~0.5 s whatever the corpus (whole, it grew with every video: 2 s at 10k videos, 31 s at
 * 100k), and the picture is the same at the scale a person can see: clusters of concepts with their sources.
 * Deterministic, so equal snapshots give equal bytes.
 */
function layout(nodes: UnplacedNode[], edges: GraphEdge[]): Map<string, { x: number; y: number; size: number }> {
  const neighbours = new Map<string, string[]>();
  for (const e of edges) {
    (neighbours.get(e.source) ?? neighbours.set(e.source, []).get(e.source)!).push(e.target);
    (neighbours.get(e.target) ?? neighbours.set(e.target, []).get(e.target)!).push(e.source);
  }
  const degree = (id: string) => neighbours.get(id)?.length ?? 0;
  let skeleton: Set<string> | null = null;
  if (nodes.length > SKELETON_NODES) {
    const tags = nodes.filter((n) => n.type === 'tag').map((n) => n.id);
    const concepts = nodes
      .filter((n) => n.type === 'knowledge')
      .map((n) => n.id)
      .sort((a, b) => degree(b) - degree(a) || (a < b ? -1 : 1));
    skeleton = new Set([...tags, ...concepts.slice(0, Math.max(0, SKELETON_NODES - tags.length))]);
  }
  const inLayout = skeleton ? nodes.filter((n) => skeleton.has(n.id)) : nodes;
  const placed = forceLayout(inLayout, skeleton ? edges.filter((e) => skeleton.has(e.source) && skeleton.has(e.target)) : edges, neighbours);
  if (skeleton) placeBeside(nodes, neighbours, placed);

  // Scale into a fixed box so the numbers stay short whatever the graph's spread.
  let max = 1;
  for (const p of placed.values()) max = Math.max(max, Math.abs(p.x), Math.abs(p.y));
  const scale = 1000 / max;
  const out = new Map<string, { x: number; y: number; size: number }>();
  for (const n of nodes) {
    const p = placed.get(n.id)!;
    const base = n.type === 'knowledge' ? 3 : n.type === 'tag' ? 2.5 : 1.5;
    out.set(n.id, { x: round1(p.x * scale), y: round1(p.y * scale), size: round1(Math.min(18, base + Math.sqrt(degree(n.id)))) });
  }
  return out;
}

/** ForceAtlas2 over these nodes and edges (Barnes-Hut and fewer iterations as the graph grows). */
function forceLayout(nodes: UnplacedNode[], edges: GraphEdge[], neighbours: Map<string, string[]>): Map<string, Point> {
  const forceAtlas2 = forceAtlas2Module as unknown as typeof forceAtlas2Module.default;
  const g = new UndirectedGraph<Point>();
  const start = new Map<string, Point>();
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
    iterations: g.order <= 500 ? 400 : large ? 60 : 150,
    settings: { ...forceAtlas2.inferSettings(g), barnesHutOptimize: g.order > 500, barnesHutTheta: large ? 1.2 : 0.5 },
  });
  const out = new Map<string, Point>();
  g.forEachNode((id, a) => out.set(id, { x: a.x, y: a.y }));
  return out;
}

/**
 * Places the nodes the skeleton left out: remaining concepts first (beside a related concept already placed,
 * else their first tag), then the sources (beside the first concept citing them), each on a
 * sunflower around its anchor whose spacing is a fraction of the skeleton's median edge length.
 */
function placeBeside(nodes: UnplacedNode[], neighbours: Map<string, string[]>, placed: Map<string, Point>): void {
  const lengths: number[] = [];
  for (const [id, p] of placed) {
    for (const other of neighbours.get(id) ?? []) {
      const q = placed.get(other);
      if (q && id < other) lengths.push(Math.hypot(p.x - q.x, p.y - q.y));
    }
  }
  lengths.sort((a, b) => a - b);
  const step = Math.max(0.5, (lengths[Math.floor(lengths.length / 2)] ?? 10) / 8);
  const around = new Map<string, number>();
  const put = (id: string, anchor: string | undefined) => {
    const at = anchor ? placed.get(anchor)! : { x: 0, y: 0 };
    const i = around.get(anchor ?? '') ?? 0;
    around.set(anchor ?? '', i + 1);
    const r = step * Math.sqrt(i + 1) * 1.5;
    placed.set(id, { x: at.x + r * Math.cos((i + 1) * GOLDEN_ANGLE), y: at.y + r * Math.sin((i + 1) * GOLDEN_ANGLE) });
  };
  const isConcept = (id: string) => id.startsWith('knowledge:');
  // Concepts breadth first over "related" from the skeleton's, each beside the one that reached it; a concept
  // no chain of related concepts reaches goes beside its first tag.
  const queue = nodes.filter((n) => n.type === 'knowledge' && placed.has(n.id)).map((n) => n.id);
  for (let q = 0; q < queue.length; q++) {
    for (const other of neighbours.get(queue[q]) ?? []) {
      if (!isConcept(other) || placed.has(other)) continue;
      put(other, queue[q]);
      queue.push(other);
    }
  }
  for (const n of nodes) {
    if (placed.has(n.id)) continue;
    put(n.id, (neighbours.get(n.id) ?? []).find((o) => isConcept(o) && placed.has(o)) ?? (neighbours.get(n.id) ?? []).find((o) => placed.has(o)));
  }
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
 * back to site search) with its list of matches laid over the stage (so it never moves the stage), and a
 * fixed-size stage that /assets/graph.js fills from /api/graph/data.
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
<div class="graph-find-wrap">
<form id="graph-find" class="graph-find" action="/search" method="get" role="search">
<label for="graph-q">Find a node</label>
<input id="graph-q" name="q" type="search" autocomplete="off" aria-describedby="graph-status">
<button type="submit">Find</button>
</form>
<ul id="graph-found" class="graph-found list" aria-label="Matching nodes"></ul>
</div>
</div>
<div id="graph" class="graph-stage" tabindex="-1" role="img" aria-label="Graph of ${concepts} knowledge concepts, their sources and tags. The find box above lists the nodes as links."></div>
<p id="graph-status" role="status"></p>
<noscript><p>Drawing the graph needs JavaScript. The find box searches the site instead, and the nodes and edges are at <a href="/api/graph/data">/api/graph/data</a>.</p></noscript>`;
  return documentHtml(meta, { siteName: site.siteName, baseUrl: site.baseUrl, section: 'knowledge', whoScript: true }, body);
}
