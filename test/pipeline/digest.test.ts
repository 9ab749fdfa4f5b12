// build-digest from the command line: the digest's exact shape, line by line, with working links, and an
// editor's digest is never overwritten.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { fixtureContent } from '../helpers/content.ts';

const run = promisify(execFile);
let root: string;
let contentDir: string;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-digest-'));
  contentDir = path.join(root, 'content');
  fs.cpSync(fixtureContent(), contentDir, { recursive: true });
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const pipeline = (...args: string[]) =>
  run(process.execPath, ['pipeline/index.ts', ...args], { env: { ...process.env, CONTENT_DIR: contentDir, DATA_DIR: path.join(root, 'var'), BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true' } });

describe('npm run pipeline -- run build-digest --date <d>', () => {
  it('writes the digest in the exact shape, from the previous day, reaching back and saying so', async () => {
    const { stdout } = await pipeline('run', 'build-digest', '--date', '2026-11-21');
    expect(stdout).toMatch(/build-digest: ok/);
    const text = fs.readFileSync(path.join(contentDir, 'digests', '2026-11-21.md'), 'utf8');
    const lines = text.split('\n');
    expect(lines.slice(0, 4)).toEqual(['---', 'date: 2026-11-21', '---', '# AI Transformation Daily — 21 November 2026']);
    expect(lines[4]).toBe('');
    // The sample has three videos on 20 November, so the digest reaches back and its intro says so.
    expect(lines[5]).toMatch(/^Fewer than five videos arrived on 20 November 2026, so this digest reaches back to \d{1,2} November 2026\.$/);
    expect(lines[6]).toBe('');
    const snap = loadSnapshot(contentDir);
    let i = 7;
    for (let n = 1; n <= 5; n++) {
      expect(lines[i], `heading ${n}`).toMatch(new RegExp(`^## ${n}\\. \\S`));
      expect(lines[i + 1]).toBe('');
      expect(lines[i + 2].length, `paragraph ${n}`).toBeGreaterThan(20);
      expect(lines[i + 2]).not.toMatch(/^Sources:/);
      expect(lines[i + 3]).toBe('');
      const m = /^Sources: \[(.+)\]\(\/videos\/([A-Za-z0-9_-]+)\)$/.exec(lines[i + 4]);
      expect(m, `sources ${n}: ${lines[i + 4]}`).not.toBeNull();
      const video = snap.videosById.get(m![2]);
      expect(video, `link /videos/${m![2]}`).toBeDefined();
      expect(m![1]).toBe(video!.title);
      expect(video!.date <= '2026-11-20').toBe(true);
      i += n < 5 ? 6 : 5;
    }
    expect(lines.slice(i)).toEqual(['']);
    expect(snap.digestsByDate.get('2026-11-21')!.items).toHaveLength(5);
    // The previous day's videos come first.
    const firstSource = snap.digestsByDate.get('2026-11-21')!.items[0].sources[0].video_id;
    expect(snap.videosById.get(firstSource)!.date).toBe('2026-11-20');
  });

  it('regenerates its own digest but never overwrites one an editor changed', async () => {
    const file = path.join(contentDir, 'digests', '2026-11-21.md');
    await pipeline('run', 'build-digest', '--date', '2026-11-21');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^Fewer.*$/m, 'An editor rewrote this intro.'));
    const { stdout } = await pipeline('run', 'build-digest', '--date', '2026-11-21');
    expect(stdout).toMatch(/edited by a person; left as it is/);
    expect(fs.readFileSync(file, 'utf8')).toContain('An editor rewrote this intro.');
    // …nor one that was there before the pipeline existed.
    const before = fs.readFileSync(path.join(contentDir, 'digests', '2026-11-20.md'), 'utf8');
    await pipeline('run', 'build-digest', '--date', '2026-11-20');
    expect(fs.readFileSync(path.join(contentDir, 'digests', '2026-11-20.md'), 'utf8')).toBe(before);
  });

  it('fails clearly on a bad date and shows each job in status', async () => {
    const bad = await pipeline('run', 'build-digest', '--date', '21.11.2026').catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 1 });
    expect((bad as { stderr: string }).stderr).toMatch(/--date must be YYYY-MM-DD/);
    const { stdout } = await pipeline('status');
    expect(stdout).toMatch(/^build-digest\s+failed/m);
    expect(stdout).toMatch(/^ingest-videos\s+never run/m);
  });
});
