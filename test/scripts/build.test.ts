// npm run build: a second build in the same process renders the new content, not the first bundle's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildSite } from '../../scripts/build.ts';
import { generateCorpus } from '../../scripts/gen-corpus.ts';
import { renderStats } from '../../src/lib/static-build/render.ts';

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
});
