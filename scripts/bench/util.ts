// Shared benchmark helpers: child servers, autocannon runs, and a plain table.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';

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

/** Starts a Node script that prints "listening on <url>" and waits for that line. */
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

export function table(rows: Record<string, string | number>[]): string {
  if (rows.length === 0) return '';
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(width[i])).join('  ');
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => String(r[c]))))].join('\n');
}
