// bench pipeline: a full run of every job over the 10k-video synthetic corpus, then an incremental run
// after 50 new videos arrive in the channel feeds, with each job's time, share of the run and peak memory.
// The summary also gives the full run's rebuild-site alone: the full static build, as `npm run build` makes it.
//   npm run bench -- pipeline [videos] [--in-process] [--corpus <content folder from gen-corpus>] [--again] [--editor]
// --again skips the corpus and the full run: the incremental and no-op runs go over the state a previous
// run left in bench/corpus/pipeline-<videos> (at 100k the full run takes a quarter of an hour).
// Then an editor's change: npm start's server and scheduler over that state (every schedule off, the
// content folder watched), one essay edited three times, each timed from the file write to its page served
// (up to 10k videos; above, with --editor).
// In the full run each job runs in a process of its own (as `npm run pipeline -- run <job>` does), so every
// job's peak memory is its own; the incremental run is one process that runs ingest-videos and its
// follow-ups, as the scheduler's worker does (rebuild-site in a thread of its own beside summarise and
// update-index: its row's time and CPU are what it took after update-index ended; the run's peak of all
// processes adds the render process's to the chain process's). --in-process runs every job in the bench
// process instead.
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateCorpus } from '../gen-corpus.ts';
import { JOBS } from '../../pipeline/lib/jobs.ts';
import { runJob } from '../../pipeline/lib/run-job.ts';
import { jobContext } from '../../pipeline/lib/context.ts';
import { benchDir, sampleTreeRss, table } from './util.ts';
import { renderStats, resetRenderStats } from '../../src/lib/static-build/render.ts';

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

interface JobRow {
  job: string;
  ms: number;
  counts: Record<string, number>;
  ok: boolean;
  /** Peak RSS of the process that ran the job (in-process: the bench's peak so far). */
  rss_mb: number;
  /**
   * A chain's first row: the most its process and every process it started held at once (sampleTreeRss), over
   * the process's whole life. Absent elsewhere; null off Linux.
   */
  together_mb?: number | null;
  /** Render shards the job started (rebuild-site), and the largest one's peak RSS. */
  shards: number;
  shard_rss_mb: number;
  /**
   * CPU time (user and system, every thread) of the job's process and of its render shards: on a machine
   * shared with others, wall time varies by tens of percent from run to run, CPU time much less.
   */
  cpu_ms: number;
  shard_cpu_ms: number;
}

/**
 * One job in a child process (pipeline-job.ts), with --chain its follow-ups too (one row each). The first
 * row's time is the child's whole life less the later jobs', so the process start counts in the run.
 */
function runInChild(env: Record<string, string | undefined>, job: string, date?: string, chain = false): Promise<JobRow[]> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [path.resolve('scripts/bench/pipeline-job.ts'), job, ...(date ? [date] : []), ...(chain ? ['--chain'] : [])], {
      env: { ...env, KB_NODE_QUIET: '1' } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    // What a chain's processes hold at once is what issue 41's bound is about: only a chain is sampled.
    const sampled = chain ? sampleTreeRss(child.pid!) : null;
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const together = sampled?.stop();
      const rows = [...out.matchAll(/^JOB (.*)$/gm)].map((m) => JSON.parse(m[1]) as JobRow & { error: string | null });
      if (!rows.length) return reject(new Error(`bench pipeline: ${job} exited with ${code} and no result`));
      if (sampled) rows[0].together_mb = together;
      for (const r of rows) if (!r.ok) console.error(`bench pipeline: ${r.job} failed: ${r.error}`);
      rows[0].ms = Math.round(performance.now() - t) - rows.slice(1).reduce((a, r) => a + r.ms, 0);
      resolve(rows);
    });
  });
}

/**
 * Runs the jobs of `order` one after another. A process each (each job's memory its own), or with `chain`
 * the first job and its follow-ups in one process, as the scheduler's worker runs them (then `order` is
 * only what the chain is expected to run: a row each, checked). --in-process: all in the bench process.
 */
async function runAll(env: Record<string, string | undefined>, date: string, order: readonly string[], inProcess: boolean, chain = false): Promise<JobRow[]> {
  const rows: JobRow[] = [];
  if (chain && !inProcess) {
    const ran = await runInChild(env, order[0], undefined, true);
    const names = ran.map((r) => r.job);
    if (names.join() !== order.join()) console.error(`bench pipeline: the chain ran ${names.join(', ')}, not ${order.join(', ')}`);
    return ran;
  }
  for (const job of order) {
    const jobDate = job === 'build-digest' ? date : undefined;
    if (!inProcess) {
      rows.push(...(await runInChild(env, job, jobDate)));
      continue;
    }
    const t = performance.now();
    const cpu = process.cpuUsage();
    resetRenderStats(0);
    const r = await runJob(job, { ...jobContext(jobDate ? { date: jobDate } : {}, env), log: () => {} }, JOBS[job].run);
    const used = process.cpuUsage(cpu);
    rows.push({
      job,
      ms: Math.round(performance.now() - t),
      counts: r.counts,
      ok: r.ok,
      rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      shards: renderStats.shards,
      shard_rss_mb: renderStats.peakShardRssMb,
      cpu_ms: Math.round((used.user + used.system) / 1000),
      shard_cpu_ms: renderStats.shardCpuMs,
    });
    if (!r.ok) console.error(`bench pipeline: ${job} failed: ${r.error}`);
  }
  return rows;
}

/** Above this many videos the editor's change is measured only with --editor (npm start holds every prerendered file: ~8 GB at 100k). */
const EDITOR_MAX_VIDEOS = 10_000;

/** How often the editor's change is measured (one essay edited, then again once that run is done). */
const EDITS = 3;

/**
 * An editor's change as a person sees it: `npm start`'s entry (scripts/start.ts: the server and its scheduler,
 * every schedule off, the content folder watched) over the state the runs left, one essay's body edited, and
 * the time from the file write until its page is served with the edit. EDITS times, one after another.
 */
async function editorsChange(env: Record<string, string | undefined>, contentDir: string): Promise<{ edits_ms: number[]; median_ms: number; start_ms: number }> {
  const noSchedules = Object.fromEntries(Object.keys(JOBS).map((job) => [`PIPELINE_CRON_${job.toUpperCase().replace(/-/g, '_')}`, 'off']));
  const t0 = performance.now();
  const child = spawn(process.execPath, [path.resolve('scripts/start.ts')], {
    env: { ...env, ...noSchedules, PIPELINE: 'on', PIPELINE_WATCH: 'on', PORT: '0', HOST: '127.0.0.1', KB_NODE_QUIET: '1' } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const until = async (what: string, ok: () => boolean | Promise<boolean>, ms: number) => {
    const deadline = performance.now() + ms;
    while (!(await ok())) {
      if (child.exitCode !== null) throw new Error(`bench pipeline: npm start ended while waiting for ${what}:\n${out}`);
      if (performance.now() > deadline) throw new Error(`bench pipeline: no ${what} after ${ms / 1000} s:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await until('listening server and watching scheduler', () => /listening on http:/.test(out) && /pipeline: watching /.test(out), 15 * 60_000);
    const startMs = Math.round(performance.now() - t0);
    const url = /listening on (http:\/\/[^\s;)]+)/.exec(out)![1];
    const slug = fs.readdirSync(path.join(contentDir, 'essays')).sort()[0];
    const folder = path.join(contentDir, 'essays', slug);
    const file = path.join(folder, fs.existsSync(path.join(folder, 'en.md')) ? 'en.md' : fs.readdirSync(folder).sort()[0]);
    const page = `${url}/essays/${slug}${path.basename(file) === 'en.md' ? '' : `/${path.basename(file, '.md')}`}`;
    const edits: number[] = [];
    for (let i = 0; i < EDITS; i++) {
      const mark = `editorsmark${process.pid}x${i}`;
      const runs = (out.match(/pipeline: rebuild-site ok/g) ?? []).length;
      const t = performance.now();
      fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8').trimEnd()}\n\nAn editor's note: ${mark}.\n`);
      const served = async () => {
        try {
          return (await (await fetch(page)).text()).includes(mark);
        } catch {
          return false; // the server busy or between connections: asked again
        }
      };
      await until(`page with edit ${i + 1}`, served, 10 * 60_000);
      edits.push(Math.round(performance.now() - t));
      // The run that published it is over before the next edit.
      await until('the run to end', () => (out.match(/pipeline: rebuild-site ok/g) ?? []).length > runs, 60_000);
    }
    const sorted = [...edits].sort((a, b) => a - b);
    return { edits_ms: edits, median_ms: sorted[Math.floor(sorted.length / 2)], start_ms: startMs };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** The largest peak of any process of a run: the jobs' (or the bench's) and their render shards'. */
const peakOf = (rows: JobRow[]) => Math.max(...rows.map((r) => Math.max(r.rss_mb, r.shard_rss_mb)));

/**
 * The peak of a chain's processes together (the incremental run: one process, its threads included, and the
 * render processes it started): the process's peak plus each render process's, an upper bound (their peaks
 * need not coincide).
 */
const chainPeakOf = (rows: JobRow[]) => Math.max(...rows.map((r) => r.rss_mb)) + rows.reduce((a, r) => a + r.shards * r.shard_rss_mb, 0);

/**
 * The corpus of a run from scratch, in `contentDir`: a copy of `corpus` (made once by `npm run gen-corpus`,
 * the same seed and size) or generated. The previous run's state (~170k files at 10k videos) is moved aside to
 * `aside` now and deleted after the measurements, not before them: on ext4 without a journal (these machines'
 * disk) every new inode is picked past the ones deleted in the last ~35 s, each looked up in turn, so a build
 * right after a mass deletion made its files 10-20x slower (a full run at 10k: 71 s against 54 s; docs/decisions/0055-slow-fs-after-deletions.md).
 */
function prepareCorpus(root: string, aside: string, contentDir: string, videos: number, corpus: string | undefined): void {
  if (fs.existsSync(root)) fs.renameSync(root, aside);
  if (corpus) fs.cpSync(path.resolve(corpus), contentDir, { recursive: true });
  else generateCorpus({ dir: contentDir, videos, seed: 42 });
}

/**
 * Channel feeds on loopback, on `port` (0: any; the port is kept in `portFile` so that a run --again, on the
 * same port, finds the channel files naming it as they are). Serves an empty feed until `serve` sets them.
 */
async function startFeeds(port: number, portFile: string): Promise<{ base: string; serve(feeds: Map<string, string>): void; close(): void }> {
  let served = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const body = served.get(req.url ?? '') ?? feed([]);
    res.writeHead(200, { 'Content-Type': 'application/atom+xml' }).end(body);
  });
  await new Promise<void>((r, j) => server.once('error', j).listen(port, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fs.writeFileSync(portFile, String((server.address() as AddressInfo).port));
  return {
    base,
    serve: (feeds) => {
      served = feeds;
    },
    close: () => server.close(),
  };
}

/** Points every channel file's feed_url at the loopback feeds. */
function pointChannelsAt(contentDir: string, channels: string[], base: string): void {
  for (const f of channels) {
    const file = path.join(contentDir, 'channels', f);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^feed_url: .*$/m, `feed_url: ${base}/${f.replace(/\.md$/, '')}`));
  }
}

/**
 * The feeds of the incremental run: exactly NEW_VIDEOS new videos in all, spread over the channels (one each
 * in the first 50 of a large corpus), with ids new for the `run`-th run over the same state.
 */
function newVideoFeeds(channels: string[], run: number): Map<string, string> {
  return new Map(
    channels.map((f, ci) => [
      `/${f.replace(/\.md$/, '')}`,
      feed(
        Array.from({ length: Math.floor(NEW_VIDEOS / channels.length) + (ci < NEW_VIDEOS % channels.length ? 1 : 0) }, (_, i) => ({
          id: `nw${String(ci).padStart(3, '0')}${String(run + i).padStart(6, '0')}`,
          title: `New talk ${ci}-${i} on agents in operations`,
          published: '2026-11-22T07:00:00+00:00',
          description: 'The team started from the work, not the model. Adoption stalled until managers changed targets. An evaluation set caught regressions before release. Costs per task fell by a third.',
        })),
      ),
    ]),
  );
}

/** Prints a run's table (each job's time, share, CPU time and peak memory) and returns its figures. */
function showRun(label: string, rows: JobRow[], inProcess: boolean) {
  const total = rows.reduce((a, r) => a + r.ms, 0);
  console.log(`\n${label}: ${(total / 1000).toFixed(1)} s`);
  console.log(
    table(
      rows.map((r) => ({
        job: r.job,
        seconds: (r.ms / 1000).toFixed(2),
        share: `${Math.round((r.ms / total) * 100)}%`,
        'CPU s': `${(r.cpu_ms / 1000).toFixed(2)}${r.shard_cpu_ms ? ` + ${(r.shard_cpu_ms / 1000).toFixed(2)} (shards)` : ''}`,
        [inProcess ? 'bench peak RSS' : 'peak RSS']: `${r.rss_mb} MB${r.shards ? ` (${r.shards} shard${r.shards > 1 ? 's' : ''} ≤ ${r.shard_rss_mb} MB)` : ''}`,
        result: r.ok ? JSON.stringify(r.counts) : 'FAILED',
      })),
    ),
  );
  const cpuMs = rows.reduce((a, r) => a + r.cpu_ms + r.shard_cpu_ms, 0);
  console.log(`CPU time of the run, every process: ${(cpuMs / 1000).toFixed(1)} s`);
  return { total_ms: total, cpu_ms: cpuMs, peak_rss_mb: peakOf(rows), jobs: rows };
}

/** The runs' figures, and a summary table of one row. */
function report(videos: number, inProcess: boolean, runs: { full: JobRow[] | null; incremental: JobRow[]; noop: JobRow[] }, editor: Awaited<ReturnType<typeof editorsChange>> | null) {
  // The largest peak of any process involved: a job's (in-process: the bench's), or a render shard's.
  const fullPeakMb = runs.full ? peakOf(runs.full) : 0;
  const site = runs.full?.find((r) => r.job === 'rebuild-site');
  const shards = { shards: site?.shards ?? 0, peakShardRssMb: site?.shard_rss_mb ?? 0 };
  const result = {
    videos,
    jobs_in: inProcess ? 'the bench process' : 'full run: a process each; incremental: one process (the chain)',
    full: !runs.full ? null : {
      ...showRun(`full run over ${videos} videos (peak RSS of any process ${fullPeakMb} MB; pages rendered in ${shards.shards} shard${shards.shards > 1 ? `s, the largest peaking at ${shards.peakShardRssMb} MB` : ''})`, runs.full, inProcess),
      peak_rss_mb: fullPeakMb,
      site_build_ms: site?.ms ?? null,
      render_shards: shards.shards,
      peak_shard_rss_mb: shards.peakShardRssMb,
    },
    incremental: {
      ...showRun('incremental run (50 new videos): ingest, summarise, update-index and rebuild-site side by side', runs.incremental, inProcess),
      peak_all_processes_mb: inProcess ? null : chainPeakOf(runs.incremental),
      /** What they held at once, sampled (sampleTreeRss): what the issue's bound is about; the sum above bounds it. */
      peak_together_mb: inProcess ? null : (runs.incremental[0]?.together_mb ?? null),
    },
    noop: showRun('no-op run (nothing new: ingest only, nothing chained)', runs.noop, inProcess),
    editor,
  };
  if (editor) console.log(`\nan editor's change (one essay edited, from the file write to its page served; npm start running, up in ${(editor.start_ms / 1000).toFixed(1)} s): ${editor.edits_ms.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}`);
  else console.log(`\nan editor's change: not measured above ${EDITOR_MAX_VIDEOS} videos (npm start holds every prerendered file in memory, ~8 GB at 100k; --editor measures it)`);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  // The full run is every job; its rebuild-site is the full static build (what `npm run build` does).
  const fullCells: Record<string, string> = result.full
    ? {
        full: s(result.full.total_ms),
        'full peak RSS': `${fullPeakMb} MB${shards.shards > 1 ? ` (shards ≤ ${shards.peakShardRssMb} MB)` : ''}`,
        'of it the site build': site ? s(site.ms) : '-',
      }
    : { full: '(--again: not run)' };
  console.log(`\n${table([{ videos, ...fullCells, 'incremental (50 new)': s(result.incremental.total_ms), 'incremental peak RSS': `${result.incremental.peak_rss_mb} MB`, 'of all its processes': result.incremental.peak_all_processes_mb === null ? '-' : `${result.incremental.peak_all_processes_mb} MB`, 'at once (sampled)': result.incremental.peak_together_mb == null ? '-' : `${result.incremental.peak_together_mb} MB`, 'no-op': s(result.noop.total_ms), "editor's change (median)": editor ? s(editor.median_ms) : '-' }])}`);
  return result;
}

/** `npm run bench -- pipeline`: the full, incremental and no-op runs and an editor's change; returns their figures. */
export async function runPipelineBench(args: string[]): Promise<Record<string, unknown>> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { 'in-process': { type: 'boolean' }, corpus: { type: 'string' }, again: { type: 'boolean' }, editor: { type: 'boolean' } } });
  const videos = Number(positionals[0] ?? 10_000);
  const inProcess = values['in-process'] === true;
  const again = values.again === true;
  const root = benchDir('corpus', `pipeline-${videos}`);
  const contentDir = path.join(root, 'content');
  const portFile = path.join(root, 'feed-port');
  if (again && !fs.existsSync(portFile)) throw new Error(`bench pipeline: --again needs the state of an earlier run in ${root}`);
  const asidePrefix = `.old-${path.basename(root)}-`;
  if (!again) prepareCorpus(root, path.join(path.dirname(root), `${asidePrefix}${process.pid}`), contentDir, videos, values.corpus);

  // Channel feeds on loopback: empty for the full run, 50 new videos for the incremental one.
  const feeds = await startFeeds(again ? Number(fs.readFileSync(portFile, 'utf8')) : 0, portFile);
  const channels = fs.readdirSync(path.join(contentDir, 'channels'));
  // New ids for each run over the same state.
  const run = fs.readdirSync(path.join(contentDir, 'videos')).filter((f) => f.startsWith('nw')).length;
  if (!again) pointChannelsAt(contentDir, channels, feeds.base);
  const env = { ...process.env, CONTENT_DIR: contentDir, DATA_DIR: path.join(root, 'var'), DIST_DIR: path.join(root, 'dist'), BASE_URL: 'http://bench.local', ALLOW_DEV_IDP: 'true' };
  try {
    console.log(`bench pipeline: ${again ? 'again over the state of an earlier run' : 'full run'} over ${videos} videos, ${inProcess ? 'each job in the bench process' : 'each job of the full run in a process of its own, the incremental run in one'} …`);
    const full = again ? [] : await runAll(env, '2026-11-22', FULL, inProcess);
    feeds.serve(newVideoFeeds(channels, run));
    console.log('bench pipeline: incremental run (50 new videos) …');
    // As the scheduler runs it: ingest's worker runs its follow-ups itself (one process, one corpus load).
    const incremental = await runAll(env, '2026-11-23', INCREMENTAL, inProcess, true);
    console.log('bench pipeline: no-op run (the feeds bring nothing new) …');
    const noop = await runAll(env, '2026-11-23', ['ingest-videos'], inProcess);
    const measureEditor = values.editor === true || videos <= EDITOR_MAX_VIDEOS;
    if (measureEditor) console.log("bench pipeline: an editor's change (npm start's server and scheduler, one essay edited) …");
    const editor = measureEditor ? await editorsChange(env, contentDir) : null;
    const result = report(videos, inProcess, { full: again ? null : full, incremental, noop }, editor);
    // Figures of a run whose jobs failed measure nothing: the command fails too (the results are still written).
    const failed = [...full, ...incremental, ...noop].filter((r) => !r.ok).map((r) => r.job);
    if (failed.length) {
      console.error(`bench pipeline: failed jobs: ${failed.join(', ')}`);
      process.exitCode = 1;
    }
    return result;
  } finally {
    feeds.close();
    // Older runs' leftovers too (a run stopped before it got here).
    for (const f of fs.readdirSync(path.dirname(root))) if (f.startsWith(asidePrefix)) fs.rmSync(path.join(path.dirname(root), f), { recursive: true, force: true });
  }
}
