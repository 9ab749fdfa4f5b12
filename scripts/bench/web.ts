// bench web: the website's main pages from the real server (a child process over a fresh build of the
// sample content, or of `--content <dir>`): bytes and gzip bytes of each page and of the page with its
// stylesheet and scripts (the weight before images; the budget for home is 100 KB), the time to first
// byte (p50/p99 over N sequential keep-alive requests, no other load), and requests per second with 16
// connections. Prerendered pages come from memory; /search?q=, /account and /posts/me are rendered per
// request through the API in process. Then the knowledge graph at real size (web-graph.ts: a 10k-video
// corpus by default, `--graph-videos <n>`, `--no-graph` to skip) and Lighthouse's four scores on every kind
// of public page (lighthouse.ts; `--no-lighthouse` to skip).
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import zlib from 'node:zlib';
import { seedPerson } from './seed.ts';
import autocannon from 'autocannon';
import { buildAndServe, table } from './util.ts';
import { graphFigure } from './web-graph.ts';
import { lighthouseReport, type LighthouseRow } from './lighthouse.ts';

interface PageSpec {
  name: string;
  path: string;
  cookie?: string;
}


/** One GET on a kept-alive connection; resolves with the time to the response's first byte and the body. */
function timedGet(agent: http.Agent, url: string, cookie?: string): Promise<{ ttfbMs: number; status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.get(url, { agent, headers: { Accept: 'text/html', ...(cookie ? { Cookie: cookie } : {}) } }, (res) => {
      const ttfbMs = Number(process.hrtime.bigint() - started) / 1e6;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ ttfbMs, status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const gzipSize = (b: Buffer) => zlib.gzipSync(b).length;
const kb = (n: number) => Math.round(n / 102.4) / 10;

/** The pages measured, one of each kind, found through the API of the server at `url`. */
async function pagesToMeasure(url: string, cookie: string): Promise<PageSpec[]> {
  const getJson = async (p: string) => (await fetch(url + p)).json() as Promise<Record<string, any>>;
  const latest = await getJson('/api/latest');
  const video = latest.latest_videos[0].video_id as string;
  const essays = (await getJson('/api/essays')).items as { slug: string; available_languages: string[] }[];
  const bilingual = essays.find((e) => e.available_languages.length > 1);
  const concept = ((await getJson('/api/knowledge')).items as { slug: string }[])[0];
  return [
    { name: 'home', path: '/' },
    { name: 'video', path: `/videos/${video}` },
    { name: 'essay', path: `/essays/${latest.featured_essay.slug}` },
    ...(bilingual ? [{ name: 'essay (sl)', path: `/essays/${bilingual.slug}/${bilingual.available_languages.find((l) => l !== 'en') ?? 'sl'}` }] : []),
    { name: 'digest', path: `/digests/${latest.latest_digest.date}` },
    ...(concept ? [{ name: 'knowledge concept', path: `/knowledge/${concept.slug}` }] : []),
    { name: 'channels', path: '/channels' },
    { name: 'search (static)', path: '/search' },
    { name: 'search ?q= (server)', path: '/search?q=agents' },
    { name: 'account (server)', path: '/account', cookie },
    { name: 'my posts (server)', path: '/posts/me', cookie },
  ];
}

/** One page's figures: its size and weight with CSS and JS, its time to first byte over `requests` requests, and its rate under load. */
async function measurePage(agent: http.Agent, url: string, page: PageSpec, requests: number) {
  const first = await timedGet(agent, url + page.path, page.cookie);
  if (first.status !== 200) throw new Error(`${page.path}: HTTP ${first.status}`);
  const html = first.body.toString('utf8');
  // The page's weight before images: the HTML, its stylesheet and its scripts (module imports included).
  const assets = new Set([...html.matchAll(/<(?:link rel="stylesheet" href|script type="module" src)="([^"]+)"/g)].map((m) => m[1]));
  let weight = first.body.length;
  let weightGz = gzipSize(first.body);
  for (const a of assets) {
    const body = (await timedGet(agent, url + a)).body;
    weight += body.length;
    weightGz += gzipSize(body);
    for (const m of body.toString('utf8').matchAll(/from '\.\/([\w-]+\.js)'/g)) assets.add(`/assets/${m[1]}`);
  }
  const times: number[] = [];
  for (let i = 0; i < requests; i++) times.push((await timedGet(agent, url + page.path, page.cookie)).ttfbMs);
  times.sort((a, b) => a - b);
  const loaded = await autocannon({ url: url + page.path, duration: 2, connections: 16, pipelining: 1, headers: page.cookie ? { Cookie: page.cookie } : {} });
  return {
    page: page.name,
    path: page.path,
    bytes: first.body.length,
    gzip_bytes: gzipSize(first.body),
    weight_bytes: weight,
    weight_gzip_bytes: weightGz,
    ttfb_p50_ms: Math.round(quantile(times, 0.5) * 100) / 100,
    ttfb_p99_ms: Math.round(quantile(times, 0.99) * 100) / 100,
    rps_16_connections: Math.round(loaded.requests.average),
    non_2xx_under_load: loaded.non2xx,
  };
}

/** A page's row in the printed table. */
function pageRow(r: Awaited<ReturnType<typeof measurePage>>): Record<string, string | number> {
  return {
    page: r.page,
    'KB': kb(r.bytes),
    'KB gzip': kb(r.gzip_bytes),
    'with CSS+JS KB': kb(r.weight_bytes),
    'gzip': kb(r.weight_gzip_bytes),
    'TTFB p50 ms': r.ttfb_p50_ms.toFixed(2),
    'p99 ms': r.ttfb_p99_ms.toFixed(2),
    'req/s (16 conn)': r.rps_16_connections,
  };
}

/** Prints the knowledge graph's figures. */
function printGraph(graph: NonNullable<Awaited<ReturnType<typeof graphFigure>>>): void {
  console.log(`\nknowledge graph at ${graph.videos} videos: ${graph.nodes} nodes, ${graph.edges} edges, ${kb(graph.data_bytes)} KB of data\n`);
  console.log(
    table([
      { figure: 'layout at build time (ForceAtlas2, one core)', value: `${graph.layout_ms} ms` },
      { figure: 'first render (navigation to first frame)', value: `${graph.first_render_ms} ms` },
      { figure: 'frame while panning/zooming, p50', value: `${graph.frame_p50_ms} ms` },
      { figure: 'frame while panning/zooming, p95', value: `${graph.frame_p95_ms} ms` },
      { figure: 'frames drawn in the second after it settles', value: graph.idle_frames_after_settle },
      { figure: 'load average while measured (2 cores)', value: os.loadavg()[0].toFixed(1) },
    ]),
  );
}

/** `npm run bench -- web`: builds the content, serves it, measures every kind of page, Lighthouse and the graph; returns the figures. */
export async function runWebBench(args: string[]): Promise<Record<string, unknown>> {
  const contentArg = args.indexOf('--content');
  const contentDir = path.resolve(contentArg >= 0 ? args[contentArg + 1] : 'content');
  const requests = Number(args.find((a) => /^\d+$/.test(a)) ?? 200);
  let cookie = '';
  const seed = async (dataDir: string) => {
    cookie = `kb_session=${(await seedPerson(path.join(dataDir, 'kb.sqlite'), dataDir, 'bench.local/audit')).session}`;
  };
  const server = await buildAndServe(contentDir, { beforeServe: seed, env: { WRITE_RATE_LIMIT_PER_MINUTE: '1000000' } });
  const graphArg = args.indexOf('--graph-videos');
  const graphVideos = graphArg >= 0 ? Number(args[graphArg + 1]) : 10_000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const results: Awaited<ReturnType<typeof measurePage>>[] = [];
  let lighthouseRows: LighthouseRow[] | null = null;
  try {
    for (const page of await pagesToMeasure(server.url, cookie)) results.push(await measurePage(agent, server.url, page, requests));
    agent.destroy();
    if (!args.includes('--no-lighthouse')) {
      console.log('\nbench web: Lighthouse on every kind of public page …');
      lighthouseRows = await lighthouseReport(server.url, args.includes('--no-graph') ? null : graphVideos);
    }
  } finally {
    agent.destroy();
    await server.stop();
  }
  console.log(`\nwebsite pages (${requests} sequential requests each for TTFB; sizes as served, gzip as a CDN would send them)\n`);
  console.log(table(results.map(pageRow)));
  const graph = args.includes('--no-graph') ? null : await graphFigure(graphVideos);
  if (graph) printGraph(graph);
  const home = results.find((r) => r.page === 'home');
  return {
    lighthouse: lighthouseRows,
    graph, content: path.relative(process.cwd(), contentDir) || contentDir, requests_per_page: requests, home_budget_bytes: 100 * 1024, home_within_budget: home ? home.weight_bytes < 100 * 1024 : null, pages: results };
}
