// @ts-check
// The knowledge graph's view, for /assets/graph.js: the camera, the labels (a 2D canvas over the drawing),
// finding the node under a pointer, and panning and zooming. The nodes and edges are drawn by graph-gl.js,
// in the page's worker when the browser can hand a canvas over (OffscreenCanvas), so that drawing never
// blocks the page, else here. Drawing happens only when asked (a change, a camera move), never in a loop.
// Drag or one finger pans, the wheel or two fingers zoom, a click or tap on a node calls onClickNode. Labels
// never overlap and never leave the stage: each goes right of its node, else left, else centred under it,
// and is skipped when none fits.

import { GlDrawing } from './graph-gl.js';

/**
 * @typedef {{ ids: string[], labels: string[], urls: string[], xy: Float32Array, size: Float32Array, type: Uint8Array,
 *   edges: Uint32Array, groups: number[], neighbourStart: Uint32Array, neighbours: Uint32Array, order: Uint32Array }} GraphColumns
 * @typedef {{ x: number, y: number, w: number, h: number, text: string }} LabelBox
 * @typedef {import('./graph-gl.js').EdgeRun} EdgeRun
 * @typedef {import('./graph-gl.js').GlStyle & { labelOrder: Uint32Array, forced: number }} ViewStyle
 * @typedef {{ setStyle: (style: import('./graph-gl.js').GlStyle) => void, draw: (camera: import('./graph-gl.js').GlCamera) => void,
 *   onDrawn: (listener: (frames: number) => void) => void }} Drawer
 *   onDrawn: called with the number of frames drawn so far, after each one (in the worker, some time after draw()).
 */

const MAX_LABEL = 42;
const LABEL_SIZE = 12;
const LABEL_FONT = `600 ${LABEL_SIZE}px system-ui, sans-serif`;
/** A label is drawn once its node is this many pixels in radius (sigma's labelRenderedSizeThreshold). */
const LABEL_THRESHOLD = 6;
const MAX_LABELS = 250;
/** The grid that keeps labels sparse: one label per cell this wide and high, in pixels. */
const LABEL_CELL = [90, 36];
const MIN_RATIO = 0.01;
const MAX_RATIO = 3;

/** The next message from the worker that has `key`. @param {Worker} worker @param {string} key @returns {Promise<any>} */
function reply(worker, key) {
  return new Promise((resolve) => {
    const on = (/** @type {MessageEvent} */ e) => {
      if (!(key in e.data)) return;
      worker.removeEventListener('message', on);
      resolve(e.data[key]);
    };
    worker.addEventListener('message', on);
  });
}

/**
 * Where the nodes and edges get drawn: the worker, given the canvas, or graph-gl.js here. Throws when neither
 * can draw (no WebGL2).
 * @param {HTMLCanvasElement} canvas @param {Worker} worker @param {GraphColumns} g @returns {Promise<Drawer>}
 */
async function drawerFor(canvas, worker, g) {
  if (typeof canvas.transferControlToOffscreen === 'function') {
    const offscreen = canvas.transferControlToOffscreen();
    worker.postMessage({ canvas: offscreen }, [offscreen]);
    if (!(await reply(worker, 'drawing'))) throw new Error('graph: no WebGL2');
    return {
      // The colours and edges are made for each style and only drawn: handed over, not copied.
      setStyle: (style) => worker.postMessage({ style }, [style.colors.buffer, ...style.edgeRuns.map((r) => r.indices.buffer)]),
      draw: (camera) => worker.postMessage({ camera }),
      onDrawn: (listener) =>
        worker.addEventListener('message', (e) => {
          if ('drawn' in e.data) listener(e.data.drawn);
        }),
    };
  }
  const local = new GlDrawing(canvas, g.xy, g.size);
  let frames = 0;
  /** @type {(frames: number) => void} */
  let drawn = () => {};
  return {
    setStyle: (style) => local.setStyle(style),
    draw: (camera) => {
      local.draw(camera);
      drawn(++frames);
    },
    onDrawn: (listener) => {
      drawn = listener;
    },
  };
}

export class GraphView {
  /**
   * The view of columns `g` in `stage`, drawn through `worker` where it can.
   * @param {HTMLElement} stage @param {GraphColumns} g @param {Worker} worker
   */
  static async create(stage, g, worker) {
    const canvas = document.createElement('canvas');
    const labels = document.createElement('canvas');
    const dpr = window.devicePixelRatio || 1;
    for (const c of [canvas, labels]) {
      c.style.cssText = 'position:absolute;inset:0;width:100%;height:100%';
      c.setAttribute('aria-hidden', 'true');
      // Sized before the canvas is handed over: a canvas resized in the worker shows its new frames only once
      // the page draws something too.
      c.width = Math.max(1, Math.round(stage.clientWidth * dpr));
      c.height = Math.max(1, Math.round(stage.clientHeight * dpr));
    }
    // In the page before it is handed over: the worker's first frame is not shown otherwise.
    stage.append(canvas, labels);
    try {
      return new GraphView(stage, g, await drawerFor(canvas, worker, g), labels);
    } catch (e) {
      canvas.remove();
      labels.remove();
      throw e;
    }
  }

  /** @param {HTMLElement} stage @param {GraphColumns} g @param {Drawer} drawer @param {HTMLCanvasElement} labelsCanvas */
  constructor(stage, g, drawer, labelsCanvas) {
    this.stage = stage;
    this.g = g;
    this.drawer = drawer;
    this.labelsCanvas = labelsCanvas;
    this.ctx = /** @type {CanvasRenderingContext2D} */ (labelsCanvas.getContext('2d'));
    const n = g.ids.length;
    // The layout's extent, which ratio 1 fits in the stage.
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (let i = 0; i < n; i++) {
      minX = Math.min(minX, g.xy[2 * i]);
      maxX = Math.max(maxX, g.xy[2 * i]);
      minY = Math.min(minY, g.xy[2 * i + 1]);
      maxY = Math.max(maxY, g.xy[2 * i + 1]);
    }
    this.span = n ? Math.max(maxX - minX, maxY - minY, 1) : 1;
    this.camera = { x: n ? (minX + maxX) / 2 : 0, y: n ? (minY + maxY) / 2 : 0, ratio: 1 };
    /** @type {ViewStyle} */
    this.style = { colors: new Uint8Array(4 * n), nodeOrder: new Uint32Array(0), nodesUnder: 0, labelOrder: new Uint32Array(0), forced: -1, edgeRuns: [] };
    /** @type {Float32Array} */
    this.labelWidths = new Float32Array(n).fill(-1);
    /** @type {LabelBox[]} what the last render drew */
    this.labels = [];
    this.renders = 0;
    this.frame = 0;
    this.width = 0;
    this.height = 0;
    /** @type {(node: number) => void} */
    this.onClickNode = () => {};
    /** Called after each frame. */
    this.onRender = () => {};
    this.resize();
    new ResizeObserver(() => {
      if (this.resize()) this.requestRender();
    }).observe(stage);
    this.listen();
  }

  /** Matches the canvases to the stage's size; true when it changed. */
  resize() {
    const w = this.stage.clientWidth;
    const h = this.stage.clientHeight;
    if (w === this.width && h === this.height) return false;
    this.width = w;
    this.height = h;
    const dpr = window.devicePixelRatio || 1;
    this.labelsCanvas.width = Math.max(1, Math.round(w * dpr));
    this.labelsCanvas.height = Math.max(1, Math.round(h * dpr));
    return true;
  }

  /** Pixels per layout unit at the current zoom. */
  get scale() {
    return (0.9 * Math.min(this.width, this.height)) / this.span / this.camera.ratio;
  }

  /** A node's radius in pixels: it grows with the zoom, more slowly (as sigma's nodes do). */
  radius(/** @type {number} */ i) {
    return this.g.size[i] / Math.sqrt(this.camera.ratio);
  }

  /** Where node i is drawn, in CSS pixels from the stage's top left. */
  viewportOf(/** @type {number} */ i) {
    const k = this.scale;
    return { x: this.width / 2 + (this.g.xy[2 * i] - this.camera.x) * k, y: this.height / 2 - (this.g.xy[2 * i + 1] - this.camera.y) * k };
  }

  /** The layout point under a stage pixel. */
  graphAt(/** @type {number} */ x, /** @type {number} */ y) {
    const k = this.scale;
    return { x: this.camera.x + (x - this.width / 2) / k, y: this.camera.y - (y - this.height / 2) / k };
  }

  /** The topmost shown node under a stage pixel, or -1. */
  nodeAt(/** @type {number} */ x, /** @type {number} */ y) {
    // Run on every pointer move over 16k nodes: inline arithmetic, no objects.
    const { nodeOrder: order } = this.style;
    const { xy, size } = this.g;
    const k = this.scale;
    const gx = this.camera.x + (x - this.width / 2) / k;
    const gy = this.camera.y - (y - this.height / 2) / k;
    const grow = 1 / Math.sqrt(this.camera.ratio);
    for (let j = order.length - 1; j >= 0; j--) {
      const i = order[j];
      const r = Math.max(4, size[i] * grow + 2) / k;
      const dx = xy[2 * i] - gx;
      const dy = xy[2 * i + 1] - gy;
      if (dx * dx + dy * dy <= r * r) return i;
    }
    return -1;
  }

  /** @param {ViewStyle} style */
  setStyle(style) {
    this.style = style;
    this.drawer.setStyle({ colors: style.colors, nodeOrder: style.nodeOrder.slice(), nodesUnder: style.nodesUnder, edgeRuns: style.edgeRuns });
    this.requestRender();
  }

  requestRender() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.render());
  }

  render() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const dpr = window.devicePixelRatio || 1;
    this.drawer.draw({ x: this.camera.x, y: this.camera.y, scale: this.scale, px: 1 / Math.sqrt(this.camera.ratio), width: this.width, height: this.height, dpr });
    this.drawLabels(dpr);
    this.renders++;
    this.onRender();
  }

  /** The labels, biggest node first, each where it fits whole inside the stage without touching another. */
  drawLabels(/** @type {number} */ dpr) {
    const ctx = this.ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.width, this.height);
    ctx.font = LABEL_FONT;
    ctx.lineWidth = 3;
    ctx.lineJoin = 'round';
    ctx.strokeStyle = 'rgba(255,255,255,0.9)';
    ctx.fillStyle = '#16202a';
    /** @type {LabelBox[]} */
    const placed = [];
    const h = LABEL_SIZE * 1.2;
    const free = (/** @type {{ x: number, y: number, w: number }} */ b) =>
      b.x >= 1 && b.x + b.w <= this.width - 1 && b.y >= 1 && b.y + h <= this.height - 1 && !placed.some((o) => b.x < o.x + o.w + 2 && o.x < b.x + b.w + 2 && b.y < o.y + o.h && o.y < b.y + h);
    const { labelOrder, forced } = this.style;
    // At most one label per cell of a coarse grid, by where the node is: the rest are not even measured.
    const cells = new Set();
    for (const i of labelOrder) {
      const r = this.radius(i);
      if (r < LABEL_THRESHOLD && i !== forced) break; // the order is biggest first
      const p = this.viewportOf(i);
      if (p.x < -r || p.y < -r || p.x > this.width + r || p.y > this.height + r) continue;
      const cell = Math.floor(p.x / LABEL_CELL[0]) * 4096 + Math.floor(p.y / LABEL_CELL[1]);
      if (cells.has(cell) && i !== forced) continue;
      cells.add(cell);
      const label = this.g.labels[i];
      const text = label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label;
      if (this.labelWidths[i] < 0) this.labelWidths[i] = ctx.measureText(text).width;
      const w = this.labelWidths[i];
      const box = [
        { x: p.x + r + 3, y: p.y - h / 2, w },
        { x: p.x - r - 3 - w, y: p.y - h / 2, w },
        { x: Math.min(Math.max(1, p.x - w / 2), this.width - 1 - w), y: p.y + r + 2, w },
      ].find(free);
      if (!box) continue;
      placed.push({ ...box, h, text });
      ctx.strokeText(text, box.x, box.y + h * 0.8);
      ctx.fillText(text, box.x, box.y + h * 0.8);
      if (placed.length >= MAX_LABELS) break;
    }
    this.labels = placed;
  }

  /** Zooms by `factor` keeping the layout point under stage pixel (x, y) where it is. */
  zoomAt(/** @type {number} */ x, /** @type {number} */ y, /** @type {number} */ factor) {
    const before = this.graphAt(x, y);
    this.camera.ratio = Math.min(MAX_RATIO, Math.max(MIN_RATIO, this.camera.ratio * factor));
    const after = this.graphAt(x, y);
    this.camera.x += before.x - after.x;
    this.camera.y += before.y - after.y;
    this.requestRender();
  }

  /** Moves the camera to centre node i at `ratio`, over `ms` milliseconds. */
  centreOn(/** @type {number} */ i, /** @type {number} */ ratio, ms = 400) {
    const from = { ...this.camera };
    const to = { x: this.g.xy[2 * i], y: this.g.xy[2 * i + 1], ratio };
    const started = performance.now();
    const step = () => {
      const t = Math.min(1, (performance.now() - started) / ms);
      const e = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
      this.camera = { x: from.x + (to.x - from.x) * e, y: from.y + (to.y - from.y) * e, ratio: from.ratio * (to.ratio / from.ratio) ** e };
      this.render();
      if (t < 1) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }

  /** Pointer and wheel handling: pan, zoom, pinch, hover, click. */
  listen() {
    const el = this.labelsCanvas;
    /** @type {Map<number, { x: number, y: number }>} */
    const pointers = new Map();
    /** @type {{ x: number, y: number, moved: boolean } | null} */
    let press = null;
    let pinch = 0;
    const local = (/** @type {MouseEvent} */ e) => {
      const r = el.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    el.addEventListener('pointerdown', (e) => {
      el.setPointerCapture(e.pointerId);
      pointers.set(e.pointerId, local(e));
      press = pointers.size === 1 ? { ...local(e), moved: false } : null;
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        pinch = Math.hypot(a.x - b.x, a.y - b.y);
      }
    });
    el.addEventListener('pointermove', (e) => {
      const p = local(e);
      const last = pointers.get(e.pointerId);
      if (!last) {
        this.stage.classList.toggle('over-node', this.nodeAt(p.x, p.y) >= 0);
        return;
      }
      pointers.set(e.pointerId, p);
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const d = Math.hypot(a.x - b.x, a.y - b.y);
        if (pinch && d) this.zoomAt((a.x + b.x) / 2, (a.y + b.y) / 2, pinch / d);
        pinch = d;
        return;
      }
      if (press && !press.moved && Math.hypot(p.x - press.x, p.y - press.y) < 4) return;
      if (press) press.moved = true;
      const k = this.scale;
      this.camera.x -= (p.x - last.x) / k;
      this.camera.y += (p.y - last.y) / k;
      this.requestRender();
    });
    const release = (/** @type {PointerEvent} */ e) => {
      if (!pointers.delete(e.pointerId)) return;
      if (e.type === 'pointerup' && press && !press.moved && pointers.size === 0) {
        const p = local(e);
        const i = this.nodeAt(p.x, p.y);
        if (i >= 0) this.onClickNode(i);
      }
      if (pointers.size === 0) press = null;
    };
    el.addEventListener('pointerup', release);
    el.addEventListener('pointercancel', release);
    el.addEventListener(
      'wheel',
      (e) => {
        e.preventDefault();
        const p = local(e);
        this.zoomAt(p.x, p.y, Math.exp(Math.max(-2, Math.min(2, e.deltaY * (e.deltaMode ? 0.05 : 0.002)))));
      },
      { passive: false },
    );
  }
}
