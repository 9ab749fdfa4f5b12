// bench pipeline: a full run of every job over the 10k-video synthetic corpus, then an incremental run
// after 50 new videos arrive in the channel feeds, with each job's time and share of the run.
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateCorpus } from '../gen-corpus.ts';
import { JOBS } from '../../pipeline/lib/jobs.ts';
import { runJob } from '../../pipeline/lib/run-job.ts';
import { jobContext } from '../../pipeline/lib/context.ts';
import { table } from './util.ts';
import { renderStats } from '../../src/lib/static-build/render.ts';

const NEW_VIDEOS = 50;

/** The full run: every job, the index built whole. */
const FULL = ['ingest-videos', 'summarise', 'build-digest', 'build-knowledge', 'build-index', 'rebuild-site'];
/** What the scheduler chains when ingest brings new videos: the index and the site updated incrementally. */
const INCREMENTAL = ['ingest-videos', 'summarise', 'update-index', 'rebuild-site'];

function feed(videos: { id: string; title: string; published: string; description: string }[]): string {
  const entries = videos
    .map((v) => `<entry><id>yt:video:${v.id}</id><yt:videoId>${v.id}</yt:videoId><title>${v.title}</title><link rel="alternate" href="https://www.youtube.com/watch?v=${v.id}"/><published>${v.published}</published><media:group><media:title>${v.title}</media:title><media:thumbnail url="https://i1.ytimg.com/vi/${v.id}/hqdefault.jpg" width="480" height="360"/><media:description>${v.description}</media:description></media:group></entry>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom"><title>bench</title>${entries}</feed>`;
}

async function runAll(env: Record<string, string | undefined>, date: string, order: readonly string[]) {
  const rows: { job: string; ms: number; counts: Record<string, number>; ok: boolean }[] = [];
  for (const job of order) {
    const t = performance.now();
    const r = await runJob(job, { ...jobContext(job === 'build-digest' ? { date } : {}, env), log: () => {} }, JOBS[job].run);
    rows.push({ job, ms: Math.round(performance.now() - t), counts: r.counts, ok: r.ok });
    if (!r.ok) console.error(`bench pipeline: ${job} failed: ${r.error}`);
  }
  return rows;
}

export async function runPipelineBench(args: string[]): Promise<Record<string, unknown>> {
  const videos = Number(args[0] ?? 10_000);
  const root = path.resolve('bench/corpus', `pipeline-${videos}`);
  fs.rmSync(root, { recursive: true, force: true });
  const contentDir = path.join(root, 'content');
  generateCorpus({ dir: contentDir, videos, seed: 42 });

  // Channel feeds on loopback: empty for the full run, 50 new videos for the incremental one.
  let served = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const body = served.get(req.url ?? '') ?? feed([]);
    res.writeHead(200, { 'Content-Type': 'application/atom+xml' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const channels = fs.readdirSync(path.join(contentDir, 'channels'));
  for (const f of channels) {
    const file = path.join(contentDir, 'channels', f);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^feed_url: .*$/m, `feed_url: ${base}/${f.replace(/\.md$/, '')}`));
  }
  const env = { ...process.env, CONTENT_DIR: contentDir, DATA_DIR: path.join(root, 'var'), DIST_DIR: path.join(root, 'dist'), BASE_URL: 'http://bench.local', ALLOW_DEV_IDP: 'true' };
  try {
    console.log(`bench pipeline: full run over ${videos} videos …`);
    const full = await runAll(env, '2026-11-22', FULL);
    // The process's peak so far is the full run's (the incremental runs below are far smaller); the page
    // render may run in shard processes, each with its own peak.
    const fullPeakMb = Math.round(process.resourceUsage().maxRSS / 1024);
    const shards = { ...renderStats };
    served = new Map(
      channels.map((f, ci) => [
        `/${f.replace(/\.md$/, '')}`,
        feed(
          // Exactly NEW_VIDEOS in all, spread over the channels (one each in the first 50 of a large corpus).
          Array.from({ length: Math.floor(NEW_VIDEOS / channels.length) + (ci < NEW_VIDEOS % channels.length ? 1 : 0) }, (_, i) => ({
            id: `nw${String(ci).padStart(3, '0')}${String(i).padStart(6, '0')}`,
            title: `New talk ${ci}-${i} on agents in operations`,
            published: '2026-11-22T07:00:00+00:00',
            description: 'The team started from the work, not the model. Adoption stalled until managers changed targets. An evaluation set caught regressions before release. Costs per task fell by a third.',
          })),
        ),
      ]),
    );
    console.log('bench pipeline: incremental run (50 new videos) …');
    const incremental = await runAll(env, '2026-11-23', INCREMENTAL);
    console.log('bench pipeline: no-op run (the feeds bring nothing new) …');
    const noop = await runAll(env, '2026-11-23', ['ingest-videos']);
    const show = (label: string, rows: typeof full) => {
      const total = rows.reduce((a, r) => a + r.ms, 0);
      console.log(`\n${label}: ${(total / 1000).toFixed(1)} s`);
      console.log(table(rows.map((r) => ({ job: r.job, seconds: (r.ms / 1000).toFixed(2), share: `${Math.round((r.ms / total) * 100)}%`, result: r.ok ? JSON.stringify(r.counts) : 'FAILED' }))));
      return { total_ms: total, jobs: rows };
    };
    const result = {
      videos,
      full: {
        ...show(`full run over ${videos} videos (peak RSS ${fullPeakMb} MB; pages rendered in ${shards.shards} shard${shards.shards > 1 ? `s, the largest peaking at ${shards.peakShardRssMb} MB` : ''})`, full),
        peak_rss_mb: fullPeakMb,
        render_shards: shards.shards,
        peak_shard_rss_mb: shards.peakShardRssMb,
      },
      incremental: show('incremental run (50 new videos): ingest, summarise, update-index, rebuild-site', incremental),
      noop: show('no-op run (nothing new: ingest only, nothing chained)', noop),
    };
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    console.log(`\n${table([{ videos, full: s(result.full.total_ms), 'full peak RSS': `${fullPeakMb} MB${shards.shards > 1 ? ` (shards ≤ ${shards.peakShardRssMb} MB)` : ''}`, 'incremental (50 new)': s(result.incremental.total_ms), 'no-op': s(result.noop.total_ms) }])}`);
    return result;
  } finally {
    server.close();
  }
}
