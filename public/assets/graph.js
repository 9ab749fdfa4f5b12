// @ts-check
// The knowledge graph page (/api/graph): draws /api/graph/data with sigma.js (WebGL) at the positions the
// build computed (ForceAtlas2, src/lib/read/graph.ts), so nothing is laid out in the browser and nothing
// moves once drawn: sigma renders only when the camera or the filters change. Filters by node type and by
// tag, finds nodes by label (the list links to their pages), opens a node's page on click. Labels never
// overlap: each render draws them biggest first and skips any that would touch one already drawn.
// The libraries and the data load only once the stage is in view (or the find box is used), in
// steps with a pause between them, so a phone that opens the page sees its text at once and is not kept
// busy drawing a graph below the fold.

/**
 * @typedef {{ id: string, type: string, label: string, url: string, x: number, y: number, size: number }} DataNode
 * @typedef {{ source: string, target: string, kind: string }} DataEdge
 * @typedef {{ x: number, y: number, w: number, h: number }} Box
 * @typedef {{ label?: string | null, x: number, y: number, size: number, color?: string, kind?: string, url?: string,
 *   hidden?: boolean, highlighted?: boolean, forceLabel?: boolean, zIndex?: number }} NodeAttrs
 */


const COLORS = /** @type {Record<string, string>} */ ({
  knowledge: '#b35c00',
  video: '#1f6fb2',
  essay: '#2e7d32',
  digest: '#c62828',
  web_page: '#6a3fa0',
  tag: '#4d5965',
});
const DIMMED = '#dfe4e8';
const MAX_LABEL = 42;

const stage = /** @type {HTMLElement} */ (document.getElementById('graph'));
const status = /** @type {HTMLElement} */ (document.getElementById('graph-status'));
const filters = /** @type {HTMLFormElement} */ (document.getElementById('graph-filters'));
const tagSelect = /** @type {HTMLSelectElement} */ (document.getElementById('graph-tag'));
const find = /** @type {HTMLFormElement} */ (document.getElementById('graph-find'));
const query = /** @type {HTMLInputElement} */ (document.getElementById('graph-q'));
const found = /** @type {HTMLElement} */ (document.getElementById('graph-found'));

/** What tests and the bench read: renders so far, the label boxes of the last render, the first render's time, the renderer. */
const probe = { renders: 0, labels: /** @type {Box[]} */ ([]), firstRenderMs: 0, sigma: /** @type {any} */ (null) };
/** @type {any} */ (window).kbGraph = probe;

/** @type {Promise<void> | undefined} */
let started;
const start = () => (started ??= main());
// Drawn once a good part of the stage is in view: on a phone, where it starts below the fold, that is when
// the person scrolls to it.
new IntersectionObserver(
  (entries, observer) => {
    if (entries.some((e) => e.isIntersecting)) {
      observer.disconnect();
      void start();
    }
  },
  { threshold: 0.35 },
).observe(stage);
query.addEventListener('focus', () => void start(), { once: true });
// Until the graph is loaded, a search waits for it instead of leaving for the site search.
find.addEventListener('submit', (e) => {
  e.preventDefault();
  void start();
});

/** A pause that lets the browser paint and handle input between two pieces of work. */
const breathe = () => new Promise((resolve) => setTimeout(resolve, 0));

async function main() {
  status.textContent = 'Loading the graph…';
  const [libs, res] = await Promise.all([import('./vendor/graph-libs.js'), fetch('/api/graph/data', { headers: { Accept: 'application/json' } })]);
  /** @type {any} */
  const Sigma = libs.Sigma;
  /** @type {any} */
  const Graph = libs.Graph;
  if (!res.ok) {
    status.textContent = 'The graph could not be loaded.';
    return;
  }
  /** @type {{ nodes: DataNode[], edges: DataEdge[] }} */
  const data = await res.json();
  await breathe();
  const graph = new Graph({ type: 'undirected', multi: false });
  for (const n of data.nodes) {
    graph.addNode(n.id, { x: n.x, y: n.y, size: n.size, label: n.label, color: COLORS[n.type] ?? '#777', kind: n.type, url: n.url });
  }
  for (const e of data.edges) if (!graph.hasEdge(e.source, e.target)) graph.addEdge(e.source, e.target, { size: e.kind === 'related' ? 1 : 0.5, kind: e.kind });
  // In a big graph the links to tags (a few hubs with thousands of long lines) are noise and most of the
  // drawing: they show when a tag is chosen.
  const big = graph.size > 5000;
  // A big graph is drawn with sigma's simplest programs: one point per node and one 1-pixel line per edge.
  // Sigma's default circles and edge rectangles are instanced draws that cost ~16 µs per item per frame
  // where WebGL runs in software (no GPU: a frame of the 10k-video graph took 0.9 s, and 0.15–0.3 s while
  // dragging with edges hidden); points and lines bring that to ~0.13 s with every edge and ~35 ms while
  // moving. Small graphs keep the smoother circles and edge widths.
  const cheap = graph.order > 2000 || graph.size > 6000;
  const programs = cheap ? { nodeProgramClasses: { circle: libs.NodePointProgram }, edgeProgramClasses: { line: libs.EdgeLineProgram } } : {};
  await breathe();

  const state = {
    types: new Set(data.nodes.map((n) => n.type)),
    /** Nodes the tag filter keeps, or null for all. */
    inTag: /** @type {Set<string> | null} */ (null),
    focus: /** @type {string | null} */ (null),
    focusNeighbours: /** @type {Set<string>} */ (new Set()),
  };
  /** @param {string} node @param {NodeAttrs} a */
  const shown = (node, a) => state.types.has(a.kind ?? '') && (!state.inTag || state.inTag.has(node));

  /** @type {Box[]} */
  let placed = [];
  /**
   * Sigma's label drawer, with collision avoidance: sigma hands labels over biggest node first.
   * @param {CanvasRenderingContext2D} ctx @param {NodeAttrs} d @param {any} settings
   */
  function drawLabel(ctx, d, settings) {
    if (!d.label) return;
    const size = settings.labelSize;
    const text = d.label.length > MAX_LABEL ? `${d.label.slice(0, MAX_LABEL - 1)}…` : d.label;
    ctx.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
    const box = { x: d.x + d.size + 3, y: d.y - size * 0.55, w: ctx.measureText(text).width, h: size * 1.15 };
    if (placed.some((b) => box.x < b.x + b.w && b.x < box.x + box.w && box.y < b.y + b.h && b.y < box.y + box.h)) return;
    placed.push(box);
    // A white halo keeps the text readable over edges.
    ctx.lineWidth = 3;
    ctx.strokeStyle = 'rgba(255,255,255,0.9)';
    ctx.strokeText(text, box.x, d.y + size / 3);
    ctx.fillStyle = '#16202a';
    ctx.fillText(text, box.x, d.y + size / 3);
  }

  let renderer;
  try {
    renderer = new Sigma(graph, stage, {
      ...programs,
      defaultDrawNodeLabel: drawLabel,
      labelFont: 'system-ui, sans-serif',
      labelSize: 12,
      labelWeight: '600',
      labelDensity: 0.6,
      labelGridCellSize: 140,
      labelRenderedSizeThreshold: 6,
      defaultEdgeColor: '#c9d1d9',
      zIndex: true,
      minCameraRatio: 0.01,
      maxCameraRatio: 3,
      // While the camera moves, big graphs skip edges and labels (sigma's own switches): a frame of 50k
      // edges is the slow part where WebGL runs in software.
      hideEdgesOnMove: graph.size > 5000,
      hideLabelsOnMove: graph.order > 5000,
      /** @param {string} node @param {NodeAttrs} a */
      nodeReducer: (node, a) => {
        if (!shown(node, a)) return { ...a, hidden: true };
        if (!state.focus) return a;
        if (node === state.focus) return { ...a, highlighted: true, forceLabel: true, zIndex: 2 };
        return state.focusNeighbours.has(node) ? { ...a, zIndex: 1 } : { ...a, color: DIMMED, label: null, zIndex: 0 };
      },
      /** @param {string} edge @param {any} a */
      edgeReducer: (edge, a) => {
        const [s, t] = graph.extremities(edge);
        if (!shown(s, graph.getNodeAttributes(s)) || !shown(t, graph.getNodeAttributes(t))) return { ...a, hidden: true };
        if (big && a.kind === 'tagged' && !state.inTag) return { ...a, hidden: true };
        if (state.focus && s !== state.focus && t !== state.focus) return { ...a, hidden: true };
        return state.focus ? { ...a, color: '#5f6b76', size: 1 } : a;
      },
    });
  } catch {
    status.textContent = 'This browser cannot draw the graph (WebGL is off). Use “Find a node” to list nodes and open their pages.';
    wireFind(graph, null, state);
    return;
  }
  // The constructor drew the first frame synchronously; later frames come only when something changes.
  probe.renders = 1;
  probe.labels = placed;
  probe.sigma = renderer;
  probe.firstRenderMs = performance.now();
  performance.mark('kb-graph-first-render');
  renderer.on('beforeRender', () => {
    placed = [];
  });
  renderer.on('afterRender', () => {
    probe.renders++;
    probe.labels = placed;
  });
  renderer.on('clickNode', (/** @type {{ node: string }} */ { node }) => {
    const url = graph.getNodeAttribute(node, 'url');
    if (url) location.assign(url);
  });
  renderer.on('enterNode', () => stage.classList.add('over-node'));
  renderer.on('leaveNode', () => stage.classList.remove('over-node'));

  const total = graph.order;
  const say = () => {
    let n = 0;
    graph.forEachNode((/** @type {string} */ id, /** @type {NodeAttrs} */ a) => {
      if (shown(id, a)) n++;
    });
    status.textContent = (n === total ? `${total} nodes.` : `Showing ${n} of ${total} nodes.`) + (big && !state.inTag ? ' Links to tags show when you choose a tag.' : '');
  };

  filters.addEventListener('change', () => {
    state.types = new Set(new FormData(filters).getAll('type').map(String));
    const tag = tagSelect.value;
    if (tag && graph.hasNode(tag)) {
      // A tag keeps itself, its concepts and what those concepts cite.
      const keep = new Set([tag]);
      for (const c of graph.neighbors(tag)) {
        keep.add(c);
        for (const s of graph.neighbors(c)) if (graph.getNodeAttribute(s, 'kind') !== 'tag') keep.add(s);
      }
      state.inTag = keep;
    } else state.inTag = null;
    renderer.refresh();
    say();
  });
  say();
  wireFind(graph, renderer, state);
}

/**
 * "Find a node": matching labels as a list of links (which works without WebGL), and "Show" to centre the
 * graph on one with its neighbours highlighted.
 * @param {any} graph @param {any} renderer
 * @param {{ focus: string | null, focusNeighbours: Set<string> }} state
 */
function wireFind(graph, renderer, state) {
  /** @param {string} id */
  function focusOn(id) {
    state.focus = id;
    state.focusNeighbours = new Set(graph.neighbors(id));
    renderer.refresh();
    const at = renderer.getNodeDisplayData(id);
    if (at) renderer.getCamera().animate({ x: at.x, y: at.y, ratio: 0.25 }, { duration: 400 });
  }
  function search() {
    const q = query.value.trim().toLowerCase();
    found.replaceChildren();
    if (!q) {
      if (state.focus && renderer) {
        state.focus = null;
        renderer.refresh();
      }
      return;
    }
    /** @type {string[]} */
    const hits = [];
    graph.forEachNode((/** @type {string} */ id, /** @type {NodeAttrs} */ a) => {
      if (hits.length < 12 && a.label && a.label.toLowerCase().includes(q)) hits.push(id);
    });
    for (const id of hits) {
      const a = graph.getNodeAttributes(id);
      const li = document.createElement('li');
      const link = document.createElement('a');
      link.href = a.url;
      link.textContent = a.label;
      const kind = document.createElement('span');
      kind.className = 'kind';
      kind.textContent = String(a.kind).replace('_', ' ');
      li.append(kind, link);
      if (renderer) {
        const show = document.createElement('button');
        show.type = 'button';
        show.className = 'link';
        // The visible words start the accessible name, which goes on to say which node.
        const which = document.createElement('span');
        which.className = 'visually-hidden';
        which.textContent = `: ${a.label}`;
        show.append('Show in graph', which);
        show.addEventListener('click', () => focusOn(id));
        li.append(' ', show);
      }
      found.append(li);
    }
    status.textContent = hits.length ? `${hits.length === 12 ? 'The first 12' : hits.length} matching node${hits.length === 1 ? '' : 's'} for “${query.value.trim()}”.` : `No node matches “${query.value.trim()}”.`;
  }
  let timer = 0;
  query.addEventListener('input', () => {
    clearTimeout(timer);
    timer = window.setTimeout(search, 150);
  });
  if (query.value.trim()) search();
  find.addEventListener('submit', (e) => {
    e.preventDefault();
    search();
    const first = /** @type {HTMLButtonElement | null} */ (found.querySelector('button'));
    if (first) first.click();
  });
}
