// @ts-check
// The knowledge graph's WebGL2 drawing, for /assets/graph-worker.js (into the page's canvas handed over as an
// OffscreenCanvas, so the drawing never blocks the page's thread) or, where a browser cannot do that,
// /assets/graph-view.js on the page itself. Every node is one point (a round sprite) and every edge one line,
// from buffers filled once: a frame of the 10k-video graph (16k nodes, 40k edges) is a few draw calls.

/**
 * @typedef {{ indices: Uint32Array, color: number[] }} EdgeRun
 * @typedef {{ colors: Uint8Array, nodeOrder: Uint32Array, nodesUnder: number, edgeRuns: EdgeRun[] }} GlStyle
 *   nodesUnder: how many nodes, from the start of nodeOrder, are drawn before the edges (dimmed ones, so the
 *   edges of a node in focus are not hidden under them).
 * @typedef {{ x: number, y: number, scale: number, px: number, width: number, height: number, dpr: number }} GlCamera
 *   scale: CSS pixels per layout unit; px: CSS pixels per unit of node size; width, height: the stage in CSS pixels.
 */

const NODE_VERTEX = `#version 300 es
in vec2 a_pos; in float a_size; in vec4 a_color;
uniform vec2 u_center; uniform vec2 u_scale; uniform float u_px;
out vec4 v_color; out float v_px;
void main() {
  gl_Position = vec4((a_pos - u_center) * u_scale, 0.0, 1.0);
  v_px = max(2.0, 2.0 * a_size * u_px);
  gl_PointSize = v_px;
  v_color = a_color;
}`;
const NODE_FRAGMENT = `#version 300 es
precision mediump float;
in vec4 v_color; in float v_px; out vec4 o;
void main() {
  float a = clamp((1.0 - length(gl_PointCoord * 2.0 - 1.0)) * v_px * 0.5, 0.0, 1.0);
  if (a <= 0.0) discard;
  o = vec4(v_color.rgb, v_color.a * a);
}`;
const EDGE_VERTEX = `#version 300 es
in vec2 a_pos; uniform vec2 u_center; uniform vec2 u_scale;
void main() { gl_Position = vec4((a_pos - u_center) * u_scale, 0.0, 1.0); }`;
const EDGE_FRAGMENT = `#version 300 es
precision mediump float;
uniform vec4 u_color; out vec4 o;
void main() { o = u_color; }`;

/** @param {WebGL2RenderingContext} gl @param {string} vertex @param {string} fragment */
function program(gl, vertex, fragment) {
  const p = /** @type {WebGLProgram} */ (gl.createProgram());
  for (const [kind, source] of /** @type {const} */ ([
    [gl.VERTEX_SHADER, vertex],
    [gl.FRAGMENT_SHADER, fragment],
  ])) {
    const s = /** @type {WebGLShader} */ (gl.createShader(kind));
    gl.shaderSource(s, source);
    gl.compileShader(s);
    gl.attachShader(p, s);
  }
  gl.linkProgram(p);
  return p;
}

/** @param {WebGL2RenderingContext} gl @param {number} target @param {ArrayBufferView} data */
function buffer(gl, target, data) {
  const b = gl.createBuffer();
  gl.bindBuffer(target, b);
  gl.bufferData(target, data, gl.STATIC_DRAW);
  return b;
}

export class GlDrawing {
  /**
   * Throws when the canvas gives no WebGL2 context.
   * @param {HTMLCanvasElement | OffscreenCanvas} canvas @param {Float32Array} xy layout positions @param {Float32Array} size node sizes
   */
  constructor(canvas, xy, size) {
    this.canvas = canvas;
    const gl = /** @type {WebGL2RenderingContext | null} */ (canvas.getContext('webgl2', { alpha: false, antialias: true }));
    if (!gl) throw new Error('graph: no WebGL2');
    this.gl = gl;
    this.nodeProgram = program(gl, NODE_VERTEX, NODE_FRAGMENT);
    this.edgeProgram = program(gl, EDGE_VERTEX, EDGE_FRAGMENT);
    const at = (/** @type {WebGLProgram} */ p, /** @type {string} */ name) => gl.getUniformLocation(p, name);
    this.u = {
      nodeCenter: at(this.nodeProgram, 'u_center'),
      nodeScale: at(this.nodeProgram, 'u_scale'),
      nodePx: at(this.nodeProgram, 'u_px'),
      edgeCenter: at(this.edgeProgram, 'u_center'),
      edgeScale: at(this.edgeProgram, 'u_scale'),
      edgeColor: at(this.edgeProgram, 'u_color'),
    };
    this.colorBuffer = buffer(gl, gl.ARRAY_BUFFER, new Uint8Array(4 * size.length));
    const positions = buffer(gl, gl.ARRAY_BUFFER, xy);
    const attribute = (/** @type {WebGLProgram} */ p, /** @type {string} */ name, /** @type {WebGLBuffer | null} */ b, /** @type {number} */ n, /** @type {number} */ type, normalized = false) => {
      const loc = gl.getAttribLocation(p, name);
      gl.bindBuffer(gl.ARRAY_BUFFER, b);
      gl.enableVertexAttribArray(loc);
      gl.vertexAttribPointer(loc, n, type, normalized, 0, 0);
    };
    this.nodeVao = gl.createVertexArray();
    gl.bindVertexArray(this.nodeVao);
    attribute(this.nodeProgram, 'a_pos', positions, 2, gl.FLOAT);
    attribute(this.nodeProgram, 'a_size', buffer(gl, gl.ARRAY_BUFFER, size), 1, gl.FLOAT);
    attribute(this.nodeProgram, 'a_color', this.colorBuffer, 4, gl.UNSIGNED_BYTE, true);
    this.nodeIndexBuffer = buffer(gl, gl.ELEMENT_ARRAY_BUFFER, new Uint32Array(0));
    this.edgeVao = gl.createVertexArray();
    gl.bindVertexArray(this.edgeVao);
    attribute(this.edgeProgram, 'a_pos', positions, 2, gl.FLOAT);
    this.edgeIndexBuffer = buffer(gl, gl.ELEMENT_ARRAY_BUFFER, new Uint32Array(0));
    gl.bindVertexArray(null);
    this.nodeCount = 0;
    this.nodesUnder = 0;
    /** @type {{ count: number, color: number[] }[]} */
    this.runs = [];
  }

  /** @param {GlStyle} style */
  setStyle(style) {
    const gl = this.gl;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.colorBuffer);
    gl.bufferData(gl.ARRAY_BUFFER, style.colors, gl.STATIC_DRAW);
    gl.bindVertexArray(this.nodeVao);
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, style.nodeOrder, gl.STATIC_DRAW);
    this.nodeCount = style.nodeOrder.length;
    this.nodesUnder = Math.min(style.nodesUnder, this.nodeCount);
    const all = new Uint32Array(style.edgeRuns.reduce((s, r) => s + r.indices.length, 0));
    let at = 0;
    for (const r of style.edgeRuns) {
      all.set(r.indices, at);
      at += r.indices.length;
    }
    gl.bindVertexArray(this.edgeVao);
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, all, gl.STATIC_DRAW);
    gl.bindVertexArray(null);
    this.runs = style.edgeRuns.map((r) => ({ count: r.indices.length, color: r.color }));
  }

  /** One frame: the dimmed nodes, the edges, then the other nodes over them. @param {GlCamera} c */
  draw(c) {
    const gl = this.gl;
    const w = Math.max(1, Math.round(c.width * c.dpr));
    const h = Math.max(1, Math.round(c.height * c.dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    gl.viewport(0, 0, w, h);
    gl.clearColor(1, 1, 1, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    const sx = (2 * c.scale) / Math.max(1, c.width);
    const sy = (2 * c.scale) / Math.max(1, c.height);
    gl.useProgram(this.nodeProgram);
    gl.uniform2f(this.u.nodeCenter, c.x, c.y);
    gl.uniform2f(this.u.nodeScale, sx, sy);
    gl.uniform1f(this.u.nodePx, c.px * c.dpr);
    gl.bindVertexArray(this.nodeVao);
    if (this.nodesUnder) gl.drawElements(gl.POINTS, this.nodesUnder, gl.UNSIGNED_INT, 0);
    gl.useProgram(this.edgeProgram);
    gl.uniform2f(this.u.edgeCenter, c.x, c.y);
    gl.uniform2f(this.u.edgeScale, sx, sy);
    gl.bindVertexArray(this.edgeVao);
    let at = 0;
    for (const r of this.runs) {
      gl.uniform4fv(this.u.edgeColor, r.color);
      if (r.count) gl.drawElements(gl.LINES, r.count, gl.UNSIGNED_INT, at * 4);
      at += r.count;
    }
    gl.useProgram(this.nodeProgram);
    gl.bindVertexArray(this.nodeVao);
    if (this.nodeCount > this.nodesUnder) gl.drawElements(gl.POINTS, this.nodeCount - this.nodesUnder, gl.UNSIGNED_INT, this.nodesUnder * 4);
    gl.bindVertexArray(null);
  }
}
