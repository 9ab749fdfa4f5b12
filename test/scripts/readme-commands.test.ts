// Every npm command README.md and docs/ show exists and answers through its documented entry point: `npm run X`
// (or `npm start`) with --help prints its usage and exits 0, and the pipeline's status runs for real. A
// script dropped from package.json, or an entry point that no longer starts, fails here (the pipeline's
// script once vanished while the tests called `node pipeline/index.ts` directly and stayed green).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureContent } from '../helpers/content.ts';

/** README.md and every page under docs/: the commands move between them as the docs are arranged. */
function documents(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? documents(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
}
const readme = ['README.md', ...documents('docs')].map((f) => fs.readFileSync(path.resolve(f), 'utf8')).join('\n');
const scripts = (JSON.parse(fs.readFileSync(path.resolve('package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** Each documented invocation: the script and what follows `--` (placeholders such as <job> kept). */
const invocations = [...readme.matchAll(/\bnpm (?:run ([a-z][\w:-]*)|(start|test))\b(?: -- ([^`|\n]*))?/g)].map((m) => ({
  script: m[1] ?? m[2],
  args: (m[3] ?? '').trim(),
}));
const documented = [...new Set(invocations.map((i) => i.script))].sort();

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-readme-cmds-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function npm(args: string[]): { status: number | null; out: string } {
  // Vite sets BASE_URL=/ in the test process; the commands read BASE_URL as the public origin.
  const { BASE_URL: _vite, ...env } = process.env;
  const r = spawnSync('npm', args, {
    encoding: 'utf8',
    env: { ...env, KB_NODE_QUIET: '1', CONTENT_DIR: fixtureContent(), DATA_DIR: dataDir, DIST_DIR: path.join(dataDir, 'dist'), npm_config_loglevel: 'error' },
    timeout: 60_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('the commands README.md and docs/ show', () => {
  it('are found in the docs (the quick start and the Commands table at least)', () => {
    expect(documented).toEqual(expect.arrayContaining(['start', 'test', 'build', 'serve', 'bench', 'pipeline', 'audit:verify', 'lock:platforms']));
  });

  it.each(documented)('npm run %s exists in package.json', (script) => {
    expect(scripts[script], `README.md shows "npm run ${script}"`).toBeDefined();
  });

  // npm test is the command running this file.
  it.each(documented.filter((s) => s !== 'test'))('npm run %s -- --help answers with its usage', (script) => {
    const r = npm(script === 'start' ? ['start', '--', '--help'] : ['run', script, '--', '--help']);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/usage: /i); // Biome (npm run lint) prints "Usage:"
  });

  it('npm run bench knows every suite the README names', () => {
    const help = npm(['run', 'bench', '--', '--help']).out;
    const suites = invocations.filter((i) => i.script === 'bench' && i.args).map((i) => i.args.split(/\s+/)[0]);
    expect(suites.length).toBeGreaterThan(3);
    for (const suite of suites) expect(help, `npm run bench -- ${suite}`).toMatch(new RegExp(`\\b${suite}\\b`));
  });

  it('npm run pipeline -- status prints every job, and -- run <job> names the jobs it knows', () => {
    const status = npm(['run', 'pipeline', '--', 'status']);
    expect(status.status, status.out).toBe(0);
    for (const job of ['ingest-videos', 'summarise', 'build-digest', 'build-knowledge', 'build-index', 'update-index', 'rebuild-site']) expect(status.out).toContain(job);
    const unknown = npm(['run', 'pipeline', '--', 'run', 'no-such-job']);
    expect(unknown.status).toBe(2);
    expect(unknown.out).toContain('build-knowledge');
  });
});
