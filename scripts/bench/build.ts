// bench build: time and peak memory of `npm run build` at 1k and 10k synthetic videos, and requests per
// second for a prerendered file, the same read through the dynamic route, and a bare node:http server
// answering the same bytes, measured side by side in one run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generateCorpus } from '../gen-corpus.ts';
import { benchDir, load, settledLine, startChild, table, waitUntilSteady, type Settled } from './util.ts';

interface BuildFigures {
  videos: number;
  files: number;
  seconds: number;
  peak_rss_mb: number;
}

function buildOnce(contentDir: string, distDir: string, videos: number): BuildFigures {
  const r = spawnSync(process.execPath, ['scripts/build.ts', '--json'], {
    env: { ...process.env, CONTENT_DIR: contentDir, DIST_DIR: distDir, DATA_DIR: path.join(path.dirname(distDir), 'var') },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`build of ${videos} videos failed:\n${r.stderr}\n${r.stdout}`);
  const report = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  return { videos, files: report.files, seconds: report.built_in_ms / 1000, peak_rss_mb: report.peak_rss_mb };
}

export async function runBuildBench(args: string[]): Promise<Record<string, unknown>> {
  const sizes = args.length ? args.map(Number) : [1000, 10_000];
  const root = benchDir('corpus');
  const builds: BuildFigures[] = [];
  for (const videos of sizes) {
    const contentDir = path.join(root, `${videos}`, 'content');
    const distDir = path.join(root, `${videos}`, 'dist');
    generateCorpus({ dir: contentDir, videos, seed: 42 });
    console.log(`bench build: building ${videos} videos …`);
    builds.push(buildOnce(contentDir, distDir, videos));
  }
  console.log('\nnpm run build');
  console.log(table(builds.map((b) => ({ videos: b.videos, files: b.files, 'seconds': b.seconds.toFixed(1), 'peak RSS MB': b.peak_rss_mb }))));

  // Serving: the smallest corpus's build; a video document of typical size.
  const small = sizes[0];
  const contentDir = path.join(root, `${small}`, 'content');
  const distDir = path.join(root, `${small}`, 'dist');
  const videosDir = path.join(distDir, 'client', 'api', 'videos');
  // The video document closest to 1.7 KB, the size the service's typical reads have.
  const sizeOf = (d: string) => fs.statSync(path.join(videosDir, d, 'index.json')).size;
  const sample = fs
    .readdirSync(videosDir)
    .filter((d) => fs.existsSync(path.join(videosDir, d, 'index.json')))
    .sort((a, b) => Math.abs(sizeOf(a) - 1700) - Math.abs(sizeOf(b) - 1700))[0];
  const file = path.join(videosDir, sample, 'index.json');
  const bytes = fs.statSync(file).size;
  const bare = await startChild('scripts/bench/bare-server.ts', [file], {});
  const server = await startChild('api/server.ts', [], { CONTENT_DIR: contentDir, DIST_DIR: distDir, DATA_DIR: path.join(root, `${small}`, 'var'), PORT: '0', HOST: '127.0.0.1' });
  const targets = [
    { name: 'bare node:http, bytes in memory', url: `${bare.url}/` },
    { name: 'our server, prerendered file', url: `${server.url}/api/videos/${sample}` },
    { name: 'our server, dynamic route (repeated read)', url: `${server.url}/api/videos/${sample}?agent=false` },
  ];
  const serving: Record<string, unknown>[] = [];
  const settled: Settled[] = [];
  try {
    // Each target is measured once it has settled, right before its own measurement.
    for (const t of targets) {
      settled.push(await waitUntilSteady(t.url));
      const r = await load(t.url);
      serving.push({ target: t.name, ...r });
    }
  } finally {
    await bare.stop();
    await server.stop();
  }
  const base = serving[0].rps as number;
  console.log(`\nwaited for: each server's "listening" line (ours prints it with its search index loaded and its prerendered files in memory), then`);
  targets.forEach((t, i) => console.log(settledLine(t.name, settled[i])));
  console.log(`\nrequests per second for one ${bytes}-byte JSON document (autocannon, 16 connections, 8 s each)`);
  console.log(table(serving.map((s) => ({ target: String(s.target), 'req/s': s.rps as number, 'vs bare': `${Math.round(((s.rps as number) / base) * 100)}%`, 'p50 ms': s.p50_ms as number, 'p99 ms': s.p99_ms as number, errors: (s.errors as number) + (s.non2xx as number) }))));
  return { builds, serving: { document_bytes: bytes, waited_for: targets.map((t, i) => ({ target: t.name, steady_windows_rps: settled[i].windows })), results: serving, static_vs_bare: (serving[1].rps as number) / base, dynamic_vs_bare: (serving[2].rps as number) / base } };
}
