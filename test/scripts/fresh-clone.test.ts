// The README's two commands in order (issue 44, item 1): `npm start` on a fresh clone drafts concepts into
// the git-tracked content/knowledge/ (as designed: editors commit what the pipeline drafts), and `npm test`
// must not see them. The tests read content/ as git tracks it, written out by global-setup
// (test/helpers/tracked-content.ts), never the working tree's content/, which once turned five tests red.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readStatus } from '../../pipeline/lib/status.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { fixtureContent } from '../helpers/content.ts';
import { NO_SCHEDULES, stopGroup } from '../helpers/pipeline.ts';
import { materialiseTrackedContent } from '../helpers/tracked-content.ts';

const roots: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) await stopGroup(c.pid!);
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

const git = (repo: string, ...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });

/** Each file under content/ in `repo`'s HEAD (the committed corpus): path → blob id. */
function committedContent(repo: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of git(repo, 'ls-tree', '-r', '-z', 'HEAD', '--', 'content').split('\0').filter(Boolean)) {
    const [meta, file] = entry.split('\t');
    out.set(file, meta.split(' ')[2]);
  }
  return out;
}

/** Each file in `dir` (the corpus the tests see), as content/<path> → the blob id git gives its bytes. */
function corpusIn(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    const bytes = fs.readFileSync(file);
    const blob = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
    out.set(path.posix.join('content', path.relative(dir, file).split(path.sep).join('/')), blob);
  }
  return out;
}

/** `npm start` in `cwd` with the README's defaults (no CONTENT_DIR, DIST_DIR or DATA_DIR), in its own process group. */
function npmStart(cwd: string): { child: ChildProcess; output: () => string } {
  const { BASE_URL: _vite, CONTENT_DIR: _c, DIST_DIR: _d, DATA_DIR: _v, DATABASE_URL: _db, KEYS_DIR: _k, ...inherited } = process.env;
  const child = spawn('npm', ['start'], {
    cwd,
    env: { ...inherited, ...NO_SCHEDULES, PORT: '0', HOST: '127.0.0.1', KB_NODE_QUIET: '1', EMBEDDING_PROVIDER: 'builtin' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

describe('npm start, then npm test, on a fresh clone', () => {
  it('the first start drafts concepts into content/, and the corpus the tests see is still the committed one', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-fresh-clone-'));
    roots.push(root);
    const clone = path.join(root, 'clone');
    execFileSync('git', ['clone', '--quiet', process.cwd(), clone]);
    // The installed packages of this checkout stand in for `npm install` (covered by hand, see the README).
    fs.symlinkSync(path.resolve('node_modules'), path.join(clone, 'node_modules'), 'dir');
    const committed = committedContent(clone);
    expect(committed.size).toBeGreaterThan(50);

    const s = npmStart(clone);
    try {
      const deadline = Date.now() + 150_000;
      while (readStatus(path.join(clone, 'var')).jobs['build-knowledge']?.status !== 'ok') {
        if (s.child.exitCode !== null) throw new Error(`npm start exited ${s.child.exitCode}:\n${s.output()}`);
        if (Date.now() > deadline) throw new Error(`build-knowledge did not finish:\n${s.output()}`);
        await new Promise((r) => setTimeout(r, 300));
      }
    } finally {
      await stopGroup(s.child.pid!);
    }
    expect(s.output()).toMatch(/started now: build-knowledge \(first start\)/);
    // The working tree now holds the first start's drafts, which git does not track.
    const drafts = git(clone, 'status', '--porcelain', '--untracked-files=all', '--', 'content').split('\n').filter(Boolean);
    expect(drafts.length, 'npm start drafted no concept').toBeGreaterThan(0);
    expect(drafts.every((l) => /^\?\? content\/knowledge\/[^/]+\.md$/.test(l)), drafts.join('\n')).toBe(true);
    const workingTree = loadSnapshot(path.join(clone, 'content'));

    // npm test's fixture step (global-setup): the corpus the tests see is the committed one, file for file.
    const seen = materialiseTrackedContent(clone, path.join(root, 'fixture'));
    expect(Object.fromEntries(corpusIn(seen))).toEqual(Object.fromEntries(committed));
    const snap = loadSnapshot(seen);
    expect(snap.concepts.length).toBe(workingTree.concepts.length - drafts.length);
    for (const d of drafts) expect(snap.conceptsBySlug.has(path.basename(d, '.md'))).toBe(false);
  });

  it('this run reads content/ as git tracks it', () => {
    const tracked = new Map<string, string>();
    for (const line of git(process.cwd(), 'ls-files', '-s', '-z', '--', 'content').split('\0').filter(Boolean)) {
      const [meta, file] = line.split('\t');
      tracked.set(file, meta.split(' ')[1]);
    }
    expect(path.resolve(fixtureContent())).not.toBe(path.resolve('content'));
    expect(Object.fromEntries(corpusIn(fixtureContent()))).toEqual(Object.fromEntries(tracked));
  });
});
