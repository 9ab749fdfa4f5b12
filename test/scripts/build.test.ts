// npm run build: a second build in the same process renders the new content, not the first bundle's.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildSite } from '../../scripts/build.ts';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { renderStats, ROOT } from '../../src/lib/static-build/render.ts';
import { processAlive } from '../../src/lib/fs-atomic.ts';
import { sweepBuildLeftovers } from '../../src/lib/static-build/leftovers.ts';

describe('buildSite', () => {
  it('builds again from changed content in the same process, and swaps the folder whole', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-build-'));
    try {
      generateCorpus({ dir: path.join(dir, 'content'), videos: 12, seed: 1 });
      const env = { ...process.env, CONTENT_DIR: path.join(dir, 'content'), DIST_DIR: path.join(dir, 'dist'), DATA_DIR: path.join(dir, 'var'), BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true' };
      const first = await buildSite(env, { renderInProcess: true });
      const removed = fs.readdirSync(path.join(dir, 'content', 'videos')).filter((f) => f.endsWith('.md'));
      const gone = removed.find((f) => !fs.readFileSync(path.join(dir, 'content', 'digests', fs.readdirSync(path.join(dir, 'content', 'digests'))[0]), 'utf8').includes(f.replace('.md', '')))!;
      fs.rmSync(path.join(dir, 'content', 'knowledge'), { recursive: true });
      fs.rmSync(path.join(dir, 'content', 'essays'), { recursive: true });
      fs.rmSync(path.join(dir, 'content', 'digests'), { recursive: true });
      fs.rmSync(path.join(dir, 'content', 'videos', gone));
      const second = await buildSite(env, { renderInProcess: true });
      expect(second.files).toBeLessThan(first.files);
      expect(second.content_hash).not.toBe(first.content_hash);
      const videos = JSON.parse(fs.readFileSync(path.join(dir, 'dist', 'client', 'api', 'videos', 'index.json'), 'utf8'));
      expect(videos.total).toBe(11);
      expect(fs.existsSync(path.join(dir, 'dist', 'client', 'api', 'videos', gone.replace('.md', '')))).toBe(false);
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('dist.'))).toEqual([]); // no staging leftovers
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('builds from a fresh bundle in a fresh instance of its modules too (vi.resetModules), not from an earlier build’s', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-build-'));
    try {
      const env = (name: string) => ({ ...process.env, CONTENT_DIR: path.join(dir, name), DIST_DIR: path.join(dir, `dist-${name}`), DATA_DIR: path.join(dir, `var-${name}`), BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true' });
      const videos = (name: string) => fs.readdirSync(path.join(dir, `dist-${name}`, 'client', 'videos'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
      const ids = (name: string) => fs.readdirSync(path.join(dir, name, 'videos')).map((f) => f.replace(/\.md$/, '')).sort();
      generateCorpus({ dir: path.join(dir, 'a'), videos: 8, seed: 3 });
      generateCorpus({ dir: path.join(dir, 'b'), videos: 9, seed: 4 });
      await buildSite(env('a'), { renderInProcess: true });
      expect(videos('a')).toEqual(ids('a'));
      // The modules again, as a test file that resets them leaves them for the next (test files share their worker).
      vi.resetModules();
      const again = (await import('../../scripts/build.ts')).buildSite;
      expect(again).not.toBe(buildSite);
      await again(env('b'), { renderInProcess: true });
      expect(videos('b')).toEqual(ids('b'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('renders a small build in this process only when asked: a server (npm start) renders in a child', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-build-'));
    try {
      generateCorpus({ dir: path.join(dir, 'content'), videos: 12, seed: 2 });
      const env = { ...process.env, CONTENT_DIR: path.join(dir, 'content'), DIST_DIR: path.join(dir, 'dist'), DATA_DIR: path.join(dir, 'var'), BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true' };
      // A render process reports its peak memory when it ends; a render in this process has none.
      await buildSite(env, { renderInProcess: true });
      expect(renderStats.peakShardRssMb).toBe(0);
      const here = fs.readFileSync(path.join(dir, 'dist', 'client', 'index.html'));
      await buildSite(env, { generatedAt: JSON.parse(fs.readFileSync(path.join(dir, 'dist', 'build-meta.json'), 'utf8')).generated_at });
      expect(renderStats.peakShardRssMb).toBeGreaterThan(0);
      expect(fs.readFileSync(path.join(dir, 'dist', 'client', 'index.html')).equals(here)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a build killed mid-way leaves folders the next npm run build removes, and only those of processes that are gone', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-build-'));
    const cache = path.join(ROOT, 'node_modules', '.cache');
    const alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
    const planted: string[] = [];
    try {
      generateCorpus({ dir: path.join(dir, 'content'), videos: 30, seed: 5 });
      const env = { ...process.env, CONTENT_DIR: path.join(dir, 'content'), DIST_DIR: path.join(dir, 'dist'), DATA_DIR: path.join(dir, 'var'), BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true' };
      // The build (what npm run build runs) is killed, its whole process group, while its documents' folder
      // and its render's folder exist: what a restart during a build leaves. Other tests build meanwhile:
      // its folders are told by its pid.
      const killed = spawn(process.execPath, ['scripts/build.ts'], { cwd: ROOT, env, stdio: 'ignore', detached: true });
      const pid = killed.pid!;
      const docs = () => fs.readdirSync(cache).filter((n) => n.startsWith(`kb-build-docs-${pid}-`));
      const left = () => [...docs(), ...fs.readdirSync(cache).filter((n) => n === `kb-build-${pid}-${pid}-1`)];
      const deadline = Date.now() + 60_000;
      while (left().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      process.kill(-pid, 'SIGKILL');
      await new Promise((r) => killed.once('exit', r));
      const leftover = left();
      expect(leftover).toEqual([expect.stringMatching(/^kb-build-docs-/), `kb-build-${pid}-${pid}-1`]); // its documents, and its render's pages (rendered in that process)
      // Gone once the kernel has torn it down (a moment after the signal).
      while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(processAlive(pid)).toBe(false);
      // What other killed builds left (this one's pid is gone now), and what live processes own.
      const gone = String(pid);
      const live = String(alive.pid);
      const plant = (file: string, folder = true) => {
        if (folder) fs.mkdirSync(path.join(file, 'client'), { recursive: true });
        else fs.writeFileSync(file, '{}');
        planted.push(file);
        return file;
      };
      const deadOnes = [
        plant(path.join(dir, `dist.old-${os.hostname()}-${gone}`)),
        plant(path.join(dir, `dist.new-${os.hostname()}-${gone}`)),
        plant(path.join(cache, `kb-build-${gone}-7`)), // the name before the owner was in it
        plant(path.join(os.tmpdir(), `kb-models-${gone}-1-abc.json`), false),
        plant(path.join(os.tmpdir(), `kb-models-${gone}-AbC123`)), // a private hand-off folder
      ];
      const liveOnes = [
        plant(path.join(dir, `dist.old-${os.hostname()}-${live}`)),
        plant(path.join(dir, `dist.new-another-host-${gone}`)), // a host sharing the volume: its pids are not this host's
        plant(path.join(cache, `kb-build-${live}-${gone}-1`)), // its build still runs: it reads the pages next
        plant(path.join(cache, `kb-build-${gone}-${live}-1`)), // its render process still runs
        plant(path.join(cache, `kb-build-docs-${live}-1`)),
        plant(path.join(os.tmpdir(), `kb-selection-${live}-1-abc.json`), false),
        plant(path.join(os.tmpdir(), `kb-selection-${live}-XyZ789`)),
      ];
      const again = spawnSync('npm', ['run', 'build'], { env, encoding: 'utf8' });
      expect(again.status, again.stderr).toBe(0);
      for (const n of leftover) expect(fs.existsSync(path.join(cache, n)), n).toBe(false);
      for (const f of deadOnes) expect(fs.existsSync(f), f).toBe(false);
      for (const f of liveOnes) expect(fs.existsSync(f), f).toBe(true);
      // And the build is whole.
      const meta = JSON.parse(fs.readFileSync(path.join(dir, 'dist', 'build-meta.json'), 'utf8'));
      expect(fs.readdirSync(path.join(dir, 'dist', 'client', 'videos'), { withFileTypes: true }).filter((e) => e.isDirectory())).toHaveLength(30);
      expect(meta.files).toBeGreaterThan(100);
    } finally {
      alive.kill();
      for (const f of planted) fs.rmSync(f, { recursive: true, force: true });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('hands its render processes their pages in private files: a folder of its own (0700), the file 0600, made exclusively', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-build-'));
    try {
      generateCorpus({ dir: path.join(dir, 'content'), videos: 12, seed: 3 });
      // Two render processes (a shard each), each told its pages and handed their models in files.
      const env = { ...process.env, CONTENT_DIR: path.join(dir, 'content'), DIST_DIR: path.join(dir, 'dist'), DATA_DIR: path.join(dir, 'var'), BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true', KB_PAGES_PER_SHARD: '10' };
      const build = spawn('npm', ['run', 'build'], { env, stdio: 'ignore' });
      const ended = new Promise<number | null>((resolve) => build.once('exit', resolve));
      // What the temporary folder holds while the build runs (other tests' builds too: they run the same code).
      const seen = new Map<string, string>();
      let running = true;
      void ended.then(() => (running = false));
      while (running) {
        for (const name of fs.readdirSync(os.tmpdir())) {
          if (!/^kb-(?:selection|models)-\d+-/.test(name) || seen.has(name)) continue;
          try {
            const folder = fs.lstatSync(path.join(os.tmpdir(), name));
            const kind = name.split('-')[1];
            const file = fs.lstatSync(path.join(os.tmpdir(), name, `${kind}.json`));
            seen.set(name, `${folder.isDirectory() ? 'folder' : 'file'} ${(folder.mode & 0o777).toString(8)}, ${file.isFile() ? 'file' : 'other'} ${(file.mode & 0o777).toString(8)}`);
          } catch (err) {
            // gone between the listing and the look (a render that ended), or a plain file: recorded as such
            if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') seen.set(name, 'file');
          }
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(await ended).toBe(0);
      // Each shard's selection at least (models files, where a build hands them, are made the same way).
      expect([...seen.keys()].filter((n) => n.startsWith('kb-selection-')).length).toBeGreaterThanOrEqual(1);
      for (const [name, what] of seen) expect(what, name).toBe('folder 700, file 600');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('takes a leftover named after this process for a former process’s when it is older than this one (a container restarted)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-build-'));
    const dist = path.join(dir, 'dist');
    try {
      const former = path.join(dir, `dist.old-${os.hostname()}-${process.pid}`);
      const mine = path.join(dir, `dist.new-${os.hostname()}-${process.pid}`);
      for (const f of [former, mine, dist]) fs.mkdirSync(f);
      const before = (Date.now() - process.uptime() * 1000 - 60_000) / 1000;
      fs.utimesSync(former, before, before);
      expect(sweepBuildLeftovers(dist)).toEqual([former]);
      expect(fs.existsSync(former)).toBe(false);
      expect(fs.existsSync(mine)).toBe(true); // made by this process: a build of its own may be using it
      expect(fs.existsSync(dist)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
