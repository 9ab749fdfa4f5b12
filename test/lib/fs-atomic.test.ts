// writeFilesAtomic: many files replaced whole, flushed in batches; on an error no temporary file is left and
// no file is half written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stageFile, writeFilesAtomic } from '../../src/lib/fs-atomic.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-atomic-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const everyFile = () =>
  fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();

describe('writeFilesAtomic', () => {
  it('writes every file whole, in new folders and over old files, and leaves no temporary file', async () => {
    fs.mkdirSync(path.join(dir, 'old'));
    for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(dir, 'old', `${i}.json`), 'old bytes');
    const files: [string, Buffer][] = [];
    for (let i = 0; i < 10; i++) files.push([path.join(dir, 'old', `${i}.json`), Buffer.from(`new ${i}`)]);
    for (let i = 0; i < 30; i++) files.push([path.join(dir, 'new', String(i % 4), `${i}.html`), Buffer.alloc(1000 + i, 97 + (i % 26))]);
    await writeFilesAtomic(files);
    for (const [file, data] of files) expect(fs.readFileSync(file).equals(data), file).toBe(true);
    expect(everyFile()).toEqual(files.map(([f]) => path.relative(dir, f)).sort());
  });

  it('fails on a file it cannot write: the batches before it are in place, nothing else changed, no temporary file left', async () => {
    fs.writeFileSync(path.join(dir, 'blocker'), 'a file where a folder is wanted');
    fs.writeFileSync(path.join(dir, 'kept.txt'), 'old');
    const files: [string, Buffer][] = [];
    for (let i = 0; i < 20; i++) files.push([path.join(dir, 'first', `${i}.txt`), Buffer.from(`first ${i}`)]);
    files.push([path.join(dir, 'kept.txt'), Buffer.from('new')]);
    files.push([path.join(dir, 'blocker', 'x.txt'), Buffer.from('cannot be written')]);
    for (let i = 0; i < 20; i++) files.push([path.join(dir, 'later', `${i}.txt`), Buffer.from(`later ${i}`)]);
    await expect(writeFilesAtomic(files)).rejects.toThrow();
    // The first batch (16 files) is in place; the failing batch's files are not, nor anything after it.
    const first = everyFile().filter((f) => f.startsWith('first'));
    expect(first.length).toBe(16);
    for (const f of first) expect(fs.readFileSync(path.join(dir, f), 'utf8')).toBe(`first ${path.basename(f, '.txt')}`);
    expect(fs.readFileSync(path.join(dir, 'kept.txt'), 'utf8')).toBe('old');
    expect(everyFile().filter((f) => f.startsWith('later'))).toEqual([]);
    expect(everyFile().filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(everyFile().length).toBe(first.length + 2); // blocker and kept.txt
  });
});

describe('stageFile', () => {
  it('writes beside the target and replaces it only on commit; discard and a failed write leave the target and no temporary file', () => {
    const target = path.join(dir, 'big.txt');
    fs.writeFileSync(target, 'old');
    const staged = stageFile(target, (fd) => fs.writeSync(fd, 'new'));
    expect(fs.readFileSync(target, 'utf8')).toBe('old');
    staged.commit();
    expect(fs.readFileSync(target, 'utf8')).toBe('new');
    stageFile(target, (fd) => fs.writeSync(fd, 'dropped')).discard();
    expect(() =>
      stageFile(target, (fd) => {
        fs.writeSync(fd, 'half');
        throw new Error('the writer failed');
      }),
    ).toThrow('the writer failed');
    expect(fs.readFileSync(target, 'utf8')).toBe('new');
    expect(everyFile()).toEqual(['big.txt']);
  });
});
