// The knowledge graph: published concepts, the sources they cite and their tags, as nodes and edges, and a
// self-contained interactive HTML page (no external script) that draws it.
import { essayIn, type Snapshot } from '../content/model.ts';
import { itemUrl } from './links.ts';

export interface GraphNode {
  id: string;
  type: 'knowledge' | 'video' | 'essay' | 'digest' | 'web_page' | 'tag';
  label: string;
  url: string;
}
export interface GraphEdge {
  source: string;
  target: string;
  kind: 'cites' | 'related' | 'tagged';
}

export function graphData(snap: Snapshot) {
  const nodes = new Map<string, GraphNode>();
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
      let node: GraphNode;
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
      nodes.set(id, { id, type: 'tag', label: t, url: `/api/videos?tag=${encodeURIComponent(t)}` });
      edge(from, id, 'tagged');
    }
  }
  return { node_count: nodes.size, edge_count: edges.length, nodes: [...nodes.values()], edges };
}

const escapeHtml = (s: string) =>
  s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);

/** A self-contained page: the data inline, a small force layout on a canvas, hover labels, click to open. */
export function graphHtml(snap: Snapshot, siteName: string): string {
  const data = JSON.stringify(graphData(snap)).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Knowledge graph · ${escapeHtml(siteName)}</title>
<link rel="alternate" type="application/json" href="/api/graph/data">
<style>
  html,body{margin:0;height:100%;font:15px/1.4 system-ui,sans-serif;background:#0f2a3d;color:#fff}
  header{position:absolute;top:0;left:0;right:0;padding:10px 16px;background:rgba(15,42,61,.85)}
  h1{font-size:18px;margin:0 0 4px}
  .legend span{margin-right:14px;white-space:nowrap}
  .legend i{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:5px;vertical-align:middle}
  canvas{display:block;width:100%;height:100%;cursor:grab}
  #tip{position:absolute;pointer-events:none;background:#fff;color:#0f2a3d;padding:4px 8px;border-radius:4px;display:none;max-width:320px}
  noscript{display:block;padding:80px 16px}
  noscript a{color:#e8a33d}
</style>
</head>
<body>
<header>
  <h1>Knowledge graph</h1>
  <div class="legend" id="legend"></div>
</header>
<canvas id="graph" aria-label="Graph of knowledge concepts, their sources and tags"></canvas>
<div id="tip" role="tooltip"></div>
<noscript>This graph needs JavaScript. The same data is at <a href="/api/graph/data">/api/graph/data</a>.</noscript>
<script id="graph-data" type="application/json">${data}</script>
<script>
(() => {
  const data = JSON.parse(document.getElementById('graph-data').textContent);
  const colors = { knowledge: '#e8a33d', video: '#5fb3f0', essay: '#9be39b', digest: '#f07f7f', web_page: '#c9a0f0', tag: '#8899aa' };
  document.getElementById('legend').innerHTML = Object.entries(colors)
    .map(([k, c]) => '<span><i style="background:' + c + '"></i>' + k.replace('_', ' ') + '</span>').join('');
  const canvas = document.getElementById('graph'), ctx = canvas.getContext('2d'), tip = document.getElementById('tip');
  const nodes = data.nodes.map((n, i) => ({ ...n, x: Math.cos(i) * 300 * Math.random(), y: Math.sin(i) * 300 * Math.random(), vx: 0, vy: 0, deg: 0 }));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const links = data.edges.map((e) => ({ s: byId.get(e.source), t: byId.get(e.target), kind: e.kind })).filter((l) => l.s && l.t);
  for (const l of links) { l.s.deg++; l.t.deg++; }
  let scale = 1, ox = 0, oy = 0, hover = null, drag = null, last = null;
  const radius = (n) => (n.type === 'knowledge' ? 6 : 3) + Math.sqrt(n.deg);
  function resize() { canvas.width = innerWidth * devicePixelRatio; canvas.height = innerHeight * devicePixelRatio; }
  addEventListener('resize', resize); resize();
  let alpha = 1;
  function step() {
    if (alpha > 0.005) {
      for (let i = 0; i < nodes.length; i++) for (let j = i + 1; j < nodes.length; j++) {
        const a = nodes[i], b = nodes[j]; let dx = b.x - a.x, dy = b.y - a.y, d2 = dx * dx + dy * dy + 0.01;
        if (d2 > 90000) continue; const f = 600 * alpha / d2; a.vx -= dx * f; a.vy -= dy * f; b.vx += dx * f; b.vy += dy * f;
      }
      for (const l of links) {
        const dx = l.t.x - l.s.x, dy = l.t.y - l.s.y, d = Math.sqrt(dx * dx + dy * dy) || 1, want = l.kind === 'related' ? 90 : 60;
        const f = (d - want) / d * 0.05 * alpha; l.s.vx += dx * f; l.s.vy += dy * f; l.t.vx -= dx * f; l.t.vy -= dy * f;
      }
      for (const n of nodes) { n.vx -= n.x * 0.002 * alpha; n.vy -= n.y * 0.002 * alpha; if (n !== drag) { n.x += n.vx; n.y += n.vy; } n.vx *= 0.6; n.vy *= 0.6; }
      alpha *= 0.995;
    }
    draw(); requestAnimationFrame(step);
  }
  function toScreen(n) { return [(n.x * scale + ox) + canvas.width / 2 / devicePixelRatio, (n.y * scale + oy) + canvas.height / 2 / devicePixelRatio]; }
  function draw() {
    ctx.setTransform(devicePixelRatio, 0, 0, devicePixelRatio, 0, 0); ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.lineWidth = 0.6;
    for (const l of links) { const [x1, y1] = toScreen(l.s), [x2, y2] = toScreen(l.t);
      ctx.strokeStyle = hover && (l.s === hover || l.t === hover) ? '#ffffff' : 'rgba(184,199,211,0.25)';
      ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke(); }
    for (const n of nodes) { const [x, y] = toScreen(n); ctx.fillStyle = colors[n.type]; ctx.beginPath(); ctx.arc(x, y, radius(n) * Math.sqrt(scale), 0, 7); ctx.fill();
      if (n.type === 'knowledge' && scale > 0.8) { ctx.fillStyle = '#fff'; ctx.font = '11px system-ui'; ctx.fillText(n.label, x + 8, y + 4); } }
  }
  function pick(ev) { let best = null, bd = 144; for (const n of nodes) { const [x, y] = toScreen(n), d = (x - ev.clientX) ** 2 + (y - ev.clientY) ** 2; if (d < bd) { bd = d; best = n; } } return best; }
  canvas.addEventListener('mousemove', (ev) => {
    if (drag) { drag.x += (ev.clientX - last[0]) / scale; drag.y += (ev.clientY - last[1]) / scale; last = [ev.clientX, ev.clientY]; alpha = Math.max(alpha, 0.1); return; }
    if (last) { ox += ev.clientX - last[0]; oy += ev.clientY - last[1]; last = [ev.clientX, ev.clientY]; return; }
    hover = pick(ev);
    if (hover) { tip.style.display = 'block'; tip.style.left = ev.clientX + 12 + 'px'; tip.style.top = ev.clientY + 12 + 'px'; tip.textContent = hover.type.replace('_', ' ') + ': ' + hover.label; }
    else tip.style.display = 'none';
  });
  canvas.addEventListener('mousedown', (ev) => { drag = pick(ev); last = [ev.clientX, ev.clientY]; });
  addEventListener('mouseup', (ev) => { if (drag && last && Math.abs(ev.clientX - last[0]) < 3 && !drag.moved) {} drag = null; last = null; });
  canvas.addEventListener('dblclick', (ev) => { const n = pick(ev); if (n) location.href = n.url; });
  canvas.addEventListener('wheel', (ev) => { ev.preventDefault(); scale = Math.min(6, Math.max(0.2, scale * (ev.deltaY < 0 ? 1.1 : 0.9))); }, { passive: false });
  step();
})();
</script>
</body>
</html>
`;
}
