// @ts-check
// The knowledge graph page (/api/graph): draws /api/graph/data at the positions the build computed
// (ForceAtlas2, src/lib/read/graph.ts), so nothing is laid out in the browser and nothing moves once drawn.
// A worker (/assets/graph-worker.js) fetches and parses the data into typed arrays, so the page's own thread
// only uploads them and draws (/assets/graph-view.js, WebGL): at 10k videos the first frame is one short
// task instead of the 1.2 s the parse, a graph library's indexes and its first frame took. Filters by node
// type and by tag, finds nodes by label (a list of links over the stage, which never moves it), centres one
// with its neighbours highlighted, opens a node's page on click. The worker and the drawing start only once
// the stage is in view (or the find box is used), so a phone that opens the page sees its text at once.

import { GraphView } from './graph-view.js';

/**
 * @typedef {import('./graph-view.js').GraphColumns} GraphColumns
 * @typedef {import('./graph-view.js').EdgeRun} EdgeRun
 * @typedef {{ types: Set<string>, inTag: Set<number> | null, focus: number, focusNeighbours: Set<number> }} GraphState
 */

/** The node types in the order of the worker's codes. */
const TYPES = ['knowledge', 'video', 'essay', 'digest', 'web_page', 'tag'];
/** What a row of the find list calls each type. */
const TYPE_NAMES = ['Knowledge', 'Video', 'Essay', 'Digest', 'Web page', 'Tag'];
/** Swatch colours; /assets/graph.css has the same. */
const COLORS = ['#b35c00', '#1f6fb2', '#2e7d32', '#c62828', '#6a3fa0', '#4d5965'];
const DIMMED = '#dfe4e8';
/** Past this many edges the links to tags (a few hubs with thousands of long lines) show only for a chosen tag. */
const BIG = 5000;

const stage = /** @type {HTMLElement} */ (document.getElementById('graph'));
const status = /** @type {HTMLElement} */ (document.getElementById('graph-status'));
const filters = /** @type {HTMLFormElement} */ (document.getElementById('graph-filters'));
const tagSelect = /** @type {HTMLSelectElement} */ (document.getElementById('graph-tag'));
const find = /** @type {HTMLFormElement} */ (document.getElementById('graph-find'));
const query = /** @type {HTMLInputElement} */ (document.getElementById('graph-q'));
const found = /** @type {HTMLElement} */ (document.getElementById('graph-found'));

/**
 * What tests and the bench read: renders so far (the page's), frames the drawing made (in the worker), the
 * label boxes of the last render, when the first frame was drawn, the view.
 */
const probe = { renders: 0, frames: 0, labels: /** @type {import('./graph-view.js').LabelBox[]} */ ([]), firstRenderMs: 0, view: /** @type {GraphView | null} */ (null) };
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

/** @param {string} hex @param {Uint8Array} into @param {number} at */
function rgba(hex, into, at) {
  into[at] = parseInt(hex.slice(1, 3), 16);
  into[at + 1] = parseInt(hex.slice(3, 5), 16);
  into[at + 2] = parseInt(hex.slice(5, 7), 16);
  into[at + 3] = 255;
}

/** @param {string} hex */
const glColor = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).concat(1);

/**
 * The graph's columns, fetched and parsed by a worker, and the worker (which then draws).
 * @returns {Promise<{ g: GraphColumns, worker: Worker }>}
 */
function load() {
  return new Promise((resolve, reject) => {
    const worker = new Worker('/assets/graph-worker.js', { type: 'module' });
    const fail = (/** @type {string} */ why) => {
      worker.terminate();
      reject(new Error(why));
    };
    worker.addEventListener('message', (e) => {
      if (!('ok' in e.data)) return;
      if (e.data.ok) resolve({ g: e.data.graph, worker });
      else fail(e.data.error);
    });
    worker.addEventListener('error', (e) => fail(e.message));
    worker.postMessage({ load: '/api/graph/data' });
  });
}

/**
 * What to draw for a state: node colours (dimmed outside a focus), shown nodes in drawing order (the dimmed
 * ones first, under the edges; the focus and its neighbours last, on top), labels biggest first, and the
 * edges as runs of one colour each.
 * @param {GraphColumns} g @param {GraphState} state
 */
function styleOf(g, state) {
  const n = g.ids.length;
  const shown = new Uint8Array(n);
  for (let i = 0; i < n; i++) shown[i] = state.types.has(TYPES[g.type[i]]) && (!state.inTag || state.inTag.has(i)) ? 1 : 0;
  const focus = state.focus;
  const lit = (/** @type {number} */ i) => focus < 0 || i === focus || state.focusNeighbours.has(i);
  const colors = new Uint8Array(4 * n);
  for (let i = 0; i < n; i++) rgba(lit(i) ? COLORS[g.type[i]] : DIMMED, colors, 4 * i);
  /** @type {number[]} */
  const order = [];
  for (const i of g.order) if (shown[i] && (focus < 0 || !lit(i))) order.push(i);
  const dimmed = order.length;
  if (focus >= 0) {
    for (const i of g.order) if (shown[i] && i !== focus && lit(i)) order.push(i);
    if (shown[focus]) order.push(focus);
  }
  const labelOrder = Uint32Array.from(order.filter(lit)).reverse();
  /** @type {EdgeRun[]} */
  const runs = [];
  const big = g.edges.length / 2 > BIG;
  const [related, cites, tagged] = g.groups;
  /** @param {number} from @param {number} to @param {string} color */
  const run = (from, to, color) => {
    /** @type {number[]} */
    const picked = [];
    for (let e = from; e < to; e++) {
      const s = g.edges[2 * e];
      const t = g.edges[2 * e + 1];
      if (shown[s] && shown[t] && (focus < 0 || s === focus || t === focus)) picked.push(s, t);
    }
    runs.push({ indices: Uint32Array.from(picked), color: glColor(color) });
  };
  // In a big graph the links to tags show only for a chosen tag.
  const end = big && !state.inTag ? cites : tagged;
  if (focus >= 0) run(0, end, '#5f6b76');
  else {
    run(related, end, '#d5dbe1');
    run(0, related, '#aab5c0');
  }
  return { colors, nodeOrder: Uint32Array.from(order), nodesUnder: focus < 0 ? 0 : dimmed, labelOrder, forced: focus, edgeRuns: runs };
}

/** The neighbours of node i. @param {GraphColumns} g @param {number} i */
const neighboursOf = (g, i) => g.neighbours.subarray(g.neighbourStart[i], g.neighbourStart[i + 1]);

async function main() {
  status.textContent = 'Loading the graph…';
  /** @type {GraphColumns} */
  let g;
  /** @type {Worker} */
  let worker;
  try {
    ({ g, worker } = await load());
  } catch {
    status.textContent = 'The graph could not be loaded.';
    return;
  }
  /** @type {GraphState} */
  const state = { types: new Set(TYPES), inTag: null, focus: -1, focusNeighbours: new Set() };
  let view;
  try {
    view = await GraphView.create(stage, g, worker);
  } catch {
    worker.terminate();
    status.textContent = 'This browser cannot draw the graph (WebGL is off). Use “Find a node” to list nodes and open their pages.';
    wireFind(g, null, state);
    return;
  }
  const v = view;
  const restyle = () => v.setStyle(styleOf(g, state));
  v.onRender = () => {
    probe.renders = v.renders;
    probe.labels = v.labels;
  };
  v.drawer.onDrawn((frames) => {
    probe.frames = frames;
    if (frames === 1) {
      probe.firstRenderMs = performance.now();
      performance.mark('kb-graph-first-render');
    }
  });
  probe.view = v;
  restyle();
  v.render();
  v.onClickNode = (i) => location.assign(g.urls[i]);

  const total = g.ids.length;
  const say = () => {
    let n = 0;
    for (let i = 0; i < total; i++) if (state.types.has(TYPES[g.type[i]]) && (!state.inTag || state.inTag.has(i))) n++;
    status.textContent = (n === total ? `${total} nodes.` : `Showing ${n} of ${total} nodes.`) + (g.edges.length / 2 > BIG && !state.inTag ? ' Links to tags show when you choose a tag.' : '');
  };
  filters.addEventListener('change', () => {
    state.types = new Set(new FormData(filters).getAll('type').map(String));
    const tag = g.ids.indexOf(tagSelect.value);
    if (tagSelect.value && tag >= 0) {
      // A tag keeps itself, its concepts and what those concepts cite.
      const keep = new Set([tag]);
      for (const c of neighboursOf(g, tag)) {
        keep.add(c);
        for (const s of neighboursOf(g, c)) if (TYPES[g.type[s]] !== 'tag') keep.add(s);
      }
      state.inTag = keep;
    } else state.inTag = null;
    restyle();
    say();
  });
  say();
  wireFind(g, { view: v, restyle }, state);
}

/**
 * One row of the find list: the node's type as a badge (read as "Knowledge: " before the title), its title
 * as a link to its page, and "Show in graph" when the graph is drawn.
 * @param {GraphColumns} g @param {number} i @param {((i: number) => void) | null} show
 */
function row(g, i, show) {
  const li = document.createElement('li');
  const kind = document.createElement('span');
  kind.className = `kind k-${TYPES[g.type[i]]}`;
  const colon = document.createElement('span');
  colon.className = 'visually-hidden';
  colon.textContent = ': ';
  kind.append(TYPE_NAMES[g.type[i]], colon);
  const link = document.createElement('a');
  link.href = g.urls[i];
  link.textContent = g.labels[i];
  li.append(kind, ' ', link);
  if (show) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'link';
    // The visible words start the accessible name, which goes on to say which node.
    const which = document.createElement('span');
    which.className = 'visually-hidden';
    which.textContent = `: ${g.labels[i]}`;
    button.append('Show in graph', which);
    button.addEventListener('click', () => show(i));
    li.append(' ', button);
  }
  return li;
}

/**
 * "Find a node": matching labels as a list of links over the top of the stage (which works without WebGL),
 * and "Show in graph", which closes the list, brings the whole stage into view and centres the node there
 * with its neighbours highlighted.
 * @param {GraphColumns} g @param {{ view: GraphView, restyle: () => void } | null} drawn @param {GraphState} state
 */
function wireFind(g, drawn, state) {
  /** @type {string[] | null} */
  let lower = null;
  /** @param {number} i */
  function show(i) {
    if (!drawn) return;
    state.focus = i;
    state.focusNeighbours = new Set(neighboursOf(g, i));
    drawn.restyle();
    found.hidden = true;
    const box = stage.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) stage.scrollIntoView({ block: box.height <= window.innerHeight ? 'nearest' : 'start' });
    stage.focus({ preventScroll: true });
    drawn.view.centreOn(i, Math.min(drawn.view.camera.ratio, 0.25));
    status.textContent = `“${g.labels[i]}” is in the middle of the graph, with the ${state.focusNeighbours.size} nodes it links to.`;
  }
  function search() {
    const q = query.value.trim().toLowerCase();
    found.replaceChildren();
    found.hidden = false;
    if (!q) {
      if (state.focus >= 0 && drawn) {
        state.focus = -1;
        drawn.restyle();
      }
      return;
    }
    lower ??= g.labels.map((l) => l.toLowerCase());
    /** @type {number[]} */
    const hits = [];
    for (let i = 0; i < lower.length && hits.length < 12; i++) if (lower[i].includes(q)) hits.push(i);
    for (const i of hits) found.append(row(g, i, drawn ? show : null));
    status.textContent = hits.length ? `${hits.length === 12 ? 'The first 12' : hits.length} matching node${hits.length === 1 ? '' : 's'} for “${query.value.trim()}”.` : `No node matches “${query.value.trim()}”.`;
  }
  let timer = 0;
  query.addEventListener('input', () => {
    clearTimeout(timer);
    timer = window.setTimeout(search, 150);
  });
  query.addEventListener('focus', () => {
    if (found.childElementCount) found.hidden = false;
  });
  // The list lies over the stage: a click or tap anywhere else closes it.
  document.addEventListener('pointerdown', (e) => {
    if (!find.parentElement?.contains(/** @type {Node} */ (e.target))) found.hidden = true;
  });
  for (const el of [query, found]) {
    el.addEventListener('keydown', (e) => {
      if (/** @type {KeyboardEvent} */ (e).key === 'Escape') found.hidden = true;
    });
  }
  if (query.value.trim()) search();
  find.addEventListener('submit', (e) => {
    e.preventDefault();
    search();
    const first = /** @type {HTMLButtonElement | null} */ (found.querySelector('button'));
    if (first) first.click();
  });
}
