// Tests that run the pipeline's scheduler (npm start, npm run pipeline) turn every job's schedule off, so the
// wall clock cannot start a job in the middle of a test: an hourly ingest-videos fires at minute 0, and a run
// of the suite that crosses the hour would otherwise see a second ingest it did not ask for.
import { spawn, type ChildProcess } from 'node:child_process';
import { JOBS } from '../../pipeline/lib/jobs.ts';

/** `PIPELINE_CRON_<JOB>=off` for every job: jobs run only when started at once or chained. */
export const NO_SCHEDULES: Record<string, string> = Object.fromEntries(
  Object.keys(JOBS).map((job) => [`PIPELINE_CRON_${job.toUpperCase().replace(/-/g, '_')}`, 'off']),
);

/**
 * SIGTERM to a detached child's process group, then waits until no process of the group is left (npm exits
 * before the node process it started has finished its shutdown); SIGKILL after `ms`.
 */
export async function stopGroup(pid: number, ms = 30_000): Promise<void> {
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + ms;
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (!alive()) return;
  process.kill(-pid, 'SIGKILL');
  while (alive()) await new Promise((r) => setTimeout(r, 50));
}

export interface NpmStarted {
  url: string;
  child: ChildProcess;
  output: () => string;
}

/**
 * `npm start` in its own process group with every schedule off, on loopback and any free port, with the
 * builtin embedder; resolves at its listening line. `children` collects the process for the file's
 * afterAll to stop (stopGroup).
 */
export function npmStart(env: Record<string, string>, children: ChildProcess[]): Promise<NpmStarted> {
  // Vitest sets BASE_URL=/ for Vite; the child must not inherit it.
  const { BASE_URL: _vite, ...inherited } = process.env;
  const child = spawn('npm', ['start'], {
    env: { ...inherited, ...NO_SCHEDULES, ...env, PORT: '0', HOST: '127.0.0.1', KB_NODE_QUIET: '1', EMBEDDING_PROVIDER: 'builtin' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) resolve({ url: m[1], child, output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`npm start exited ${code}:\n${output}`)));
  });
}
