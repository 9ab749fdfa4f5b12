// Shared benchmark helpers: child servers, autocannon runs, and a plain table.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

/**
 * The largest memory a process and its descendants held at once: their resident sizes summed, sampled every
 * `ms` from /proc (Linux; null elsewhere). The sum of each process's own peak is an upper bound of it (their
 * peaks need not coincide); this is the figure itself, give or take what rises and falls between two samples.
 */
export function sampleTreeRss(pid: number, ms = 200): { stop(): number | null } {
  if (!fs.existsSync('/proc/self/status')) return { stop: () => null };
  let peakKb = 0;
  let ticks = 0;
  let tree: number[] = [pid];
  // Synchronous: /proc's files are made on reading, in microseconds (the promise API cost ~10% of a core here).
  const read = (file: string) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return ''; // the process ended meanwhile
    }
  };
  /** The process and its descendants, from every process's parent in /proc (a scan: every fifth tick only). */
  const scan = () => {
    const parent = new Map<number, number>();
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      const stat = read(`/proc/${d}/stat`); // "pid (name) state ppid …": the name may hold spaces
      if (stat) parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    }
    const inTree = (p: number) => {
      for (let x: number | undefined = p; x; x = parent.get(x)) if (x === pid) return true;
      return false;
    };
    tree = [...parent.keys()].filter(inTree);
  };
  const tick = () => {
    if (ticks++ % 5 === 0) scan();
    let kb = 0;
    for (const p of tree) kb += Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${p}/status`))?.[1] ?? 0);
    peakKb = Math.max(peakKb, kb);
  };
  const timer = setInterval(tick, ms);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.round(peakKb / 1024);
    },
  };
}

/**
 * The benchmarks' own folder: their corpora and state (corpus/) and results.json. BENCH_DIR moves it (a test
 * that runs a suite through npm run bench keeps the project's bench/ as it was); bench/ in the project by default.
 */
export const benchDir = (...parts: string[]) => path.resolve(process.env.BENCH_DIR || 'bench', ...parts);

export interface ChildServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a Node script that prints "listening on <url>" and waits for that line. Our server prints it once
 * it is ready: its search index loaded (or built) and its prerendered files in memory (api/server.ts).
 */
export function startChild(script: string, args: string[], env: Record<string, string | undefined>): Promise<ChildServer> {
  const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        resolve({
          url: m[1],
          child,
          stop: () => new Promise<void>((r) => { child.once('exit', () => r()); child.kill('SIGTERM'); }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`${script} exited ${code}: ${out}`)));
  });
}

/**
 * Builds `contentDir` (npm run build) into a fresh folder under the system's temporary folder and serves it
 * with the real server; `beforeServe` gets that folder (the DATA_DIR) first, `env` adds to the server's
 * environment. stop() ends the server and removes the folder.
 */
export async function buildAndServe(contentDir: string, opts: { beforeServe?: (dataDir: string) => void | Promise<void>; env?: Record<string, string> } = {}): Promise<ChildServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-site-'));
  const env = { CONTENT_DIR: contentDir, DIST_DIR: path.join(dir, 'dist'), DATA_DIR: dir, BASE_URL: 'http://bench.local', ALLOW_DEV_IDP: 'true', PORT: '0', HOST: '127.0.0.1' };
  console.log(`bench: building ${path.relative(process.cwd(), contentDir) || contentDir} …`);
  const build = spawnSync(process.execPath, ['scripts/build.ts', '--json'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (build.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`build failed: ${build.stderr}`);
  }
  await opts.beforeServe?.(dir);
  const server = await startChild('api/server.ts', [], { ...env, ...opts.env });
  return {
    ...server,
    stop: async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface LoadResult {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
}

/** A bounded autocannon run against loopback. */
export async function load(url: string, opts: { seconds?: number; connections?: number } = {}): Promise<LoadResult> {
  const r = await autocannon({ url, duration: opts.seconds ?? 8, connections: opts.connections ?? 16, pipelining: 1 });
  return { rps: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

/** What a bench waited for before it measured a target: the windows' requests per second, in order. */
export interface Settled {
  windows: number[];
  seconds: number;
}

/**
 * Loads `url` in one-second windows until two windows in a row agree within `tolerance` (JIT tiers, the
 * first-use caches and the garbage of the start-up work are behind), at most `maxSeconds`. A figure
 * measured right after "listening" read a server still settling: the first seconds ran at about half the
 * later rate (issue 44, item 4).
 */
export async function waitUntilSteady(url: string, opts: { tolerance?: number; maxSeconds?: number; connections?: number } = {}): Promise<Settled> {
  const tolerance = opts.tolerance ?? 0.1;
  const windows: number[] = [];
  while (windows.length < (opts.maxSeconds ?? 20)) {
    windows.push((await load(url, { seconds: 1, connections: opts.connections })).rps);
    const [a, b] = windows.slice(-2);
    if (windows.length >= 3 && Math.abs(b - a) <= tolerance * Math.max(a, b)) break;
  }
  return { windows, seconds: windows.length };
}

/** One line saying what a measurement waited for. */
export const settledLine = (name: string, s: Settled): string => `  ${name}: ${s.seconds} s of 1-s windows until two agreed within 10% (${s.windows.join(' → ')} req/s)`;

export function table(rows: Record<string, string | number>[]): string {
  if (rows.length === 0) return '';
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(width[i])).join('  ');
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => String(r[c]))))].join('\n');
}
