// @ts-check
// The knowledge graph page's worker (a module worker started by /assets/graph.js). It fetches
// /api/graph/data, parses it and turns it into columns the page uses without further work: positions, sizes
// and type codes as typed arrays (transferred, not copied), the edges as pairs of node numbers without
// duplicates (grouped: links between concepts, then citations, then tags), each node's neighbours, and the
// nodes in drawing order (smallest first, so the biggest end on top). Then, given the page's canvas as an
// OffscreenCanvas, it draws the graph there (graph-gl.js) each time the page sends a style or a camera. At
// 10k videos the data is 7 MB of JSON: parsing it, indexing it and drawing it on the page's own thread
// blocked the page for over a second before the first frame (and WebGL in software blocks it more).

import { GlDrawing } from './graph-gl.js';

/** The node types in the order of their codes (graph.js has the same list). */
const TYPES = ['knowledge', 'video', 'essay', 'digest', 'web_page', 'tag'];

/**
 * @typedef {{ id: string, type: string, label: string, url: string, x: number, y: number, size: number }} DataNode
 * @typedef {{ source: string, target: string, kind: string }} DataEdge
 */

/** @param {{ nodes: DataNode[], edges: DataEdge[] }} data */
function columns(data) {
  const n = data.nodes.length;
  const ids = new Array(n);
  const labels = new Array(n);
  const urls = new Array(n);
  const xy = new Float32Array(2 * n);
  const size = new Float32Array(n);
  const type = new Uint8Array(n);
  /** @type {Map<string, number>} */
  const index = new Map();
  data.nodes.forEach((node, i) => {
    ids[i] = node.id;
    labels[i] = node.label;
    urls[i] = node.url;
    xy[2 * i] = node.x;
    xy[2 * i + 1] = node.y;
    size[i] = node.size;
    type[i] = Math.max(0, TYPES.indexOf(node.type));
    index.set(node.id, i);
  });
  // Undirected and without duplicates, as the page draws them; "related" (concept to concept) first.
  const seen = new Set();
  /** @type {number[]} */
  const related = [];
  /** @type {number[]} */
  const other = [];
  /** @type {number[]} */
  const tagged = [];
  for (const e of data.edges) {
    const s = index.get(e.source);
    const t = index.get(e.target);
    if (s === undefined || t === undefined || s === t) continue;
    const key = s < t ? s * n + t : t * n + s;
    if (seen.has(key)) continue;
    seen.add(key);
    (e.kind === 'related' ? related : e.kind === 'tagged' ? tagged : other).push(s, t);
  }
  const edges = Uint32Array.from([...related, ...other, ...tagged]);
  // Neighbours as offsets into one array (compressed sparse rows).
  const degree = new Uint32Array(n + 1);
  for (let i = 0; i < edges.length; i++) degree[edges[i] + 1]++;
  for (let i = 0; i < n; i++) degree[i + 1] += degree[i];
  const neighbours = new Uint32Array(edges.length);
  const fill = degree.slice(0, n);
  for (let i = 0; i < edges.length; i += 2) {
    neighbours[fill[edges[i]]++] = edges[i + 1];
    neighbours[fill[edges[i + 1]]++] = edges[i];
  }
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => size[a] - size[b] || b - a);
  return {
    ids,
    labels,
    urls,
    xy,
    size,
    type,
    edges,
    /** Where the edge groups end, in numbers of edges: related, then cites, then tagged. */
    groups: [related.length / 2, (related.length + other.length) / 2, edges.length / 2],
    neighbourStart: degree,
    neighbours,
    order,
  };
}

/** @type {{ xy: Float32Array, size: Float32Array } | null} */
let kept = null;
/** @type {GlDrawing | null} */
let drawing = null;
/** @type {import('./graph-gl.js').GlCamera | null} */
let camera = null;
let drawQueued = false;
let frames = 0;

/** Draws the latest camera once the messages already waiting are read (the page may send several per frame). */
function queueDraw() {
  if (drawQueued) return;
  drawQueued = true;
  setTimeout(() => {
    drawQueued = false;
    if (!drawing || !camera) return;
    drawing.draw(camera);
    self.postMessage({ drawn: ++frames });
  }, 0);
}

/** @param {string} url */
async function load(url) {
  try {
    const res = await fetch(url, { headers: { Accept: 'application/json' } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const c = columns(await res.json());
    kept = { xy: c.xy.slice(), size: c.size.slice() };
    self.postMessage({ ok: true, graph: c }, { transfer: [c.xy.buffer, c.size.buffer, c.type.buffer, c.edges.buffer, c.neighbourStart.buffer, c.neighbours.buffer, c.order.buffer] });
  } catch (e) {
    self.postMessage({ ok: false, error: String(e) });
  }
}

self.addEventListener('message', (event) => {
  const m = event.data;
  if (m.load) void load(m.load);
  else if (m.canvas && kept) {
    try {
      drawing = new GlDrawing(m.canvas, kept.xy, kept.size);
      self.postMessage({ drawing: true });
    } catch {
      self.postMessage({ drawing: false });
    }
  } else if (m.style && drawing) {
    drawing.setStyle(m.style);
    queueDraw();
  } else if (m.camera) {
    camera = m.camera;
    queueDraw();
  }
});
