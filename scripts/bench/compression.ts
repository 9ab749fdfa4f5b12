// bench compression: what a compressed response costs the server. Over a fresh build of the sample content
// (or `--content <dir>`) with 250 audit events seeded, for the responses an anonymous caller can ask for
// at will (the OpenAPI document, a page of 200 audit events, a search, a dynamic content read, the largest
// prerendered file): the body's size, the time to compress it once with brotli 9 and gzip 9 (the settings
// before issue 39) and with the server's settings now, side by side in this process; then, from the real
// server (a child process), the time to first byte (p50 of N sequential keep-alive requests) and requests
// per second with 16 connections, without and with Accept-Encoding: br.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { openDatabase } from '../../src/lib/data/db/index.ts';
import { auditOrigin, createAuditLog } from '../../src/lib/data/audit/index.ts';
import { BROTLI_QUALITY, GZIP_LEVEL } from '../../api/static/compression.ts';
import { startChild, table } from './util.ts';

const BASE_URL = 'http://bench.local';

/** 250 events of the size a comment's are, in the database the server will open. */
async function seedAudit(dataDir: string): Promise<void> {
  const db = await openDatabase(path.join(dataDir, 'kb.sqlite'));
  const audit = await createAuditLog(db, { dataDir, origin: auditOrigin(BASE_URL), checkpointEvery: 100, checkpointIntervalSeconds: 3600 });
  await db.transaction(async () => {
    for (let i = 0; i < 250; i++) {
      await audit.append({ kind: 'comment.create', subjectType: 'comment', subjectId: `c${i}`, actor: { userId: `user-${i % 20}` }, data: { entity_type: 'video', entity_id: `v${i % 40}`, length: 100 + i } });
    }
  });
  await audit.stop();
  await db.close();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median milliseconds of `fn` over `n` runs (after one warm-up run). */
function timeMs(n: number, fn: () => void): number {
  fn();
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    fn();
    t.push(performance.now() - s);
  }
  return Math.round(median(t) * 100) / 100;
}

const brotli = (b: Buffer, quality: number) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } });

function get(agent: http.Agent, url: string, headers: Record<string, string>): Promise<{ ttfbMs: number; status: number; encoding?: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    http
      .get(url, { agent, headers }, (res) => {
        const ttfbMs = Number(process.hrtime.bigint() - started) / 1e6;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ ttfbMs, status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export async function runCompressionBench(args: string[]): Promise<Record<string, unknown>> {
  const contentArg = args.indexOf('--content');
  const contentDir = path.resolve(contentArg >= 0 ? args[contentArg + 1] : 'content');
  const requests = Number(args.find((a) => /^\d+$/.test(a)) ?? 200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-compression-'));
  const env = { CONTENT_DIR: contentDir, DIST_DIR: path.join(dir, 'dist'), DATA_DIR: dir, BASE_URL, ALLOW_DEV_IDP: 'true', PORT: '0', HOST: '127.0.0.1', SEARCH_RATE_LIMIT_PER_MINUTE: '1000000' };
  console.log(`bench compression: building ${path.relative(process.cwd(), contentDir) || contentDir} …`);
  const build = spawnSync(process.execPath, ['scripts/build.ts', '--json'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed: ${build.stderr}`);
  await seedAudit(dir);
  const server = await startChild('api/server.ts', [], env);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const targets = [
    { name: 'OpenAPI document', path: '/openapi.json' },
    { name: '200 audit events', path: '/api/audit?limit=200' },
    { name: 'search, 50 hits', path: '/api/search?q=agents&limit=50' },
    { name: 'dynamic content read', path: '/api/videos?limit=100' },
    { name: 'prerendered file', path: '/llms-full.txt' },
  ];
  const cost: Record<string, string | number>[] = [];
  const serving: Record<string, string | number>[] = [];
  const results: Record<string, unknown>[] = [];
  try {
    for (const t of targets) {
      const url = server.url + t.path;
      const plain = await get(agent, url, {});
      if (plain.status !== 200) throw new Error(`${t.path}: HTTP ${plain.status}`);
      const body = plain.body;
      const runs = body.length > 100_000 ? 20 : 50;
      const was = { br: timeMs(runs, () => brotli(body, 9)), gzip: timeMs(runs, () => zlib.gzipSync(body, { level: 9 })) };
      const now = { br: timeMs(runs, () => brotli(body, BROTLI_QUALITY)), gzip: timeMs(runs, () => zlib.gzipSync(body, { level: GZIP_LEVEL })) };
      const size = { br9: brotli(body, 9).length, br: brotli(body, BROTLI_QUALITY).length };
      // The server: sequential requests for the time to first byte, then 16 connections for throughput.
      const ttfb = async (headers: Record<string, string>) => {
        const times: number[] = [];
        for (let i = 0; i < requests; i++) times.push((await get(agent, url, headers)).ttfbMs);
        return Math.round(median(times) * 100) / 100;
      };
      const br = await get(agent, url, { 'Accept-Encoding': 'br' });
      const rps = async (headers: Record<string, string>) => Math.round((await autocannon({ url, duration: 3, connections: 16, pipelining: 1, headers })).requests.average);
      const r = {
        target: t.name,
        path: t.path,
        bytes: body.length,
        brotli_9_bytes: size.br9,
        brotli_now_bytes: size.br,
        served_encoding: br.encoding ?? 'identity',
        served_bytes: br.body.length,
        compress_ms_before: was,
        compress_ms_now: now,
        ttfb_p50_ms: { identity: await ttfb({}), br: await ttfb({ 'Accept-Encoding': 'br' }) },
        rps_16_connections: { identity: await rps({}), br: await rps({ 'Accept-Encoding': 'br' }) },
      };
      results.push(r);
      cost.push({
        response: t.name,
        KB: Math.round(body.length / 102.4) / 10,
        'br 9 ms': was.br,
        [`br ${BROTLI_QUALITY} ms`]: now.br,
        'gzip 9 ms': was.gzip,
        [`gzip ${GZIP_LEVEL} ms`]: now.gzip,
        'br 9 KB': Math.round(size.br9 / 102.4) / 10,
        [`br ${BROTLI_QUALITY} KB`]: Math.round(size.br / 102.4) / 10,
      });
      serving.push({
        response: t.name,
        'sent (br asked)': `${r.served_encoding} ${Math.round(r.served_bytes / 102.4) / 10} KB`,
        'TTFB p50 ms': r.ttfb_p50_ms.identity,
        'TTFB p50 ms, br': r.ttfb_p50_ms.br,
        'req/s': r.rps_16_connections.identity,
        'req/s, br': r.rps_16_connections.br,
      });
    }
  } finally {
    agent.destroy();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\ncompressing each body once in this process (median ms; the server now uses brotli ${BROTLI_QUALITY}, gzip ${GZIP_LEVEL})`);
  console.log(table(cost));
  console.log(`\nthe server: time to first byte (p50 of ${requests} sequential requests) and requests per second (16 connections, 3 s)`);
  console.log(table(serving));
  return { settings: { brotli_quality: BROTLI_QUALITY, gzip_level: GZIP_LEVEL }, load_average: os.loadavg()[0], results };
}
