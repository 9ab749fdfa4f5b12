// `npm run bench -- pipeline [videos]`, as the README shows it, over a small synthetic corpus: the full, the
// incremental (50 new videos from the loopback feeds) and the no-op run each do what their rows say, the
// incremental one through the incremental index and site build, and what it published is there. BENCH_DIR
// keeps the project's bench/ (its results.json and corpora) as it was. A second run moves the first one's
// state aside and deletes it after its measurements (scripts/bench/pipeline.ts): none of it is left.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const benchDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-pipeline-'));
afterAll(() => fs.rmSync(benchDir, { recursive: true, force: true }));

type Row = { job: string; ok: boolean; counts: Record<string, number> };
type Results = {
  pipeline: {
    videos: number;
    full: { jobs: Row[] };
    incremental: { jobs: Row[]; peak_rss_mb: number; peak_all_processes_mb: number; peak_together_mb: number | null };
    noop: { jobs: Row[] };
    editor: { edits_ms: number[]; median_ms: number };
  };
};

async function bench(args: string[]): Promise<{ stdout: string; results: Results }> {
  // Vite sets BASE_URL=/ in the test process; the bench sets the origin of its own.
  const { BASE_URL: _vite, ...env } = process.env;
  const { stdout } = await run('npm', ['run', 'bench', '--', 'pipeline', ...args], {
    env: { ...env, BENCH_DIR: benchDir, npm_config_loglevel: 'error' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { stdout, results: JSON.parse(fs.readFileSync(path.join(benchDir, 'results.json'), 'utf8')) as Results };
}

const counts = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.job, r.counts]));

describe('npm run bench -- pipeline', () => {
  it('runs the full, the incremental and the no-op run, and writes its results and state under BENCH_DIR', async () => {
    const projectResults = path.resolve('bench/results.json');
    const before = fs.existsSync(projectResults) ? fs.readFileSync(projectResults, 'utf8') : null;
    const { stdout, results } = await bench(['60']);
    expect(stdout).toMatch(/^full run over 60 videos/m);
    expect(stdout).toMatch(/^incremental run \(50 new videos\)/m);
    const { full, incremental, noop } = results.pipeline;
    expect(results.pipeline.videos).toBe(60);
    expect(full.jobs.map((r) => r.job)).toEqual(['ingest-videos', 'summarise', 'build-digest', 'build-knowledge', 'build-index', 'rebuild-site']);
    expect(incremental.jobs.map((r) => r.job)).toEqual(['ingest-videos', 'summarise', 'update-index', 'rebuild-site']);
    for (const r of [...full.jobs, ...incremental.jobs, ...noop.jobs]) expect(r.ok, r.job).toBe(true);
    expect(counts(full.jobs)['build-index'].items).toBeGreaterThan(60);
    expect(counts(full.jobs)['rebuild-site'].full).toBe(1);
    const inc = counts(incremental.jobs);
    expect(inc['ingest-videos'].added).toBe(50);
    expect(inc.summarise.summarised).toBe(50);
    expect(inc['update-index']).toMatchObject({ added: 50, removed: 0, full: 0 });
    expect(inc['rebuild-site'].full).toBe(0);
    // What the incremental run's processes held at once, sampled from /proc (these tests run on Linux), in MB:
    // about the sum of each process's own peak (the bound the table shows beside it, read as each job ends,
    // so a process's last moments are in the sample only), and never a thousand times it (kB for MB).
    expect(incremental.peak_together_mb).toBeGreaterThan(incremental.peak_all_processes_mb / 4);
    expect(incremental.peak_together_mb).toBeLessThan(incremental.peak_all_processes_mb * 1.5);
    expect(stdout).toMatch(new RegExp(`at once \\(sampled\\)[\\s\\S]*\\b${incremental.peak_together_mb} MB`));
    expect(inc['rebuild-site'].pages_rendered).toBeGreaterThanOrEqual(50);
    expect(counts(noop.jobs)['ingest-videos'].added).toBe(0);
    expect(noop.jobs).toHaveLength(1);
    // An editor's change through npm start's server and scheduler: one essay edited three times, each served.
    expect(stdout).toMatch(/^an editor's change \(one essay edited, from the file write to its page served/m);
    expect(results.pipeline.editor.edits_ms).toHaveLength(3);
    for (const ms of results.pipeline.editor.edits_ms) expect(ms).toBeGreaterThan(0);

    // What the incremental run published: a new video's document, listed in the latest briefing.
    const root = path.join(benchDir, 'corpus', 'pipeline-60');
    const fresh = fs.readdirSync(path.join(root, 'content', 'videos')).filter((f) => f.startsWith('nw'));
    expect(fresh).toHaveLength(50);
    const id = fresh[0].replace(/\.md$/, '');
    const doc = JSON.parse(fs.readFileSync(path.join(root, 'dist', 'client', 'api', 'videos', id, 'index.json'), 'utf8')) as { video_id: string };
    expect(doc.video_id).toBe(id);
    expect(fs.readFileSync(path.join(root, 'dist', 'client', 'api', 'latest', 'index.json'), 'utf8')).toContain(`"${id}"`);
    expect((fs.existsSync(projectResults) ? fs.readFileSync(projectResults, 'utf8') : null)).toBe(before);

    // Again, from scratch: the first run's state is replaced, and nothing of it is left beside the new one.
    const second = await bench(['60']);
    expect(counts(second.results.pipeline.incremental.jobs)['ingest-videos'].added).toBe(50);
    expect(fs.readdirSync(path.join(benchDir, 'corpus'))).toEqual(['pipeline-60']);
    expect(fs.readdirSync(path.join(root, 'content', 'videos')).filter((f) => f.startsWith('nw'))).toHaveLength(50);
  }, 600_000);
});
