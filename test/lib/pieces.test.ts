// Documents made of items' pieces (/llms-full.txt): the bytes of an unchanged item's piece are copied from
// the previous file, every other piece is made; the file must be what making every piece gives, and
// nothing may be copied from a file that is not the one the spans were recorded for.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pieceText, type Piece } from '../../src/lib/representation.ts';
import { stageFile } from '../../src/lib/fs-atomic.ts';
import { statKey } from '../../src/lib/content/stat-keys.ts';
import { writePieces, type PieceReuse, type PieceSpans } from '../../src/lib/static-build/pieces.ts';

/** Pieces of a document: a header, then each item's text (an item may have several pieces, like an essay's languages). */
function doc(header: string, items: [group: string, text: string][], made: string[] = []): Piece[] {
  return [header, ...items.map(([group, text]) => ({ group, text: () => (made.push(group), text) })), '\n'];
}
const whole = (pieces: Piece[]) => Buffer.from(pieces.map(pieceText).join(''), 'utf8');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-pieces-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'llms-full.txt');

/** Writes the pieces as the incremental build does: staged beside the file, then renamed over it; the spans with the file's stat key. */
function write(pieces: Piece[], reuse?: Omit<PieceReuse, 'file'>): { spans: PieceSpans; copied: number; size: number } {
  let made: ReturnType<typeof writePieces> | undefined;
  stageFile(file, (fd) => {
    made = writePieces(fd, pieces, reuse && { ...reuse, file });
  }).commit();
  return { ...made!, spans: { ...made!.spans, stat: statKey(file)! } };
}

describe('writePieces', () => {
  const before: [string, string][] = [
    ['video:a', '\n\n## A\n\nčšž'],
    ['essay:e', '\n\n## E (English)'],
    ['essay:e', '\n\n## E (Slovenian) – č'],
    ['video:b', '\n\n## B\n\n' + 'x'.repeat(5 << 20) + 'ž'.repeat(1_500_000)], // past the 4 MB buffer
    ['video:c', '\n\n## C 😀'],
  ];

  it('writes the UTF-8 of the whole and records where each item piece lies, in bytes', () => {
    const first = write(doc('# Corpus, 3 videos', before));
    const bytes = fs.readFileSync(file);
    expect(bytes.equals(whole(doc('# Corpus, 3 videos', before)))).toBe(true);
    expect(first.size).toBe(bytes.length);
    expect(first.spans.groups).toEqual(['video:a', 'essay:e', 'essay:e', 'video:b', 'video:c']);
    before.forEach(([, text], i) => {
      expect(bytes.subarray(first.spans.starts[i], first.spans.starts[i] + first.spans.lengths[i]).toString('utf8')).toBe(text);
    });
    expect(first.copied).toBe(0);
    expect(write([]).size).toBe(0);
    expect(fs.statSync(file).size).toBe(0);
  });

  it('copies unchanged items, makes changed and new ones, and equals making them all', () => {
    const first = write(doc('# Corpus, 3 videos', before));
    // b changed, d is new and comes first, c is gone; the header's count moved.
    const after: [string, string][] = [['video:d', '\n\n## D new'], before[0], before[1], before[2], ['video:b', '\n\n## B edited ž']];
    const made: string[] = [];
    const next = write(doc('# Corpus, 3 videos (again)', after, made), { spans: first.spans, unchanged: (g) => g === 'video:a' || g === 'essay:e' });
    const bytes = fs.readFileSync(file);
    expect(bytes.equals(whole(doc('# Corpus, 3 videos (again)', after)))).toBe(true);
    expect(made).toEqual(['video:d', 'video:b']);
    expect(next.copied).toBe(3);
    // The spans of the new file point at its own bytes, so the build after this one can copy from it.
    after.forEach(([, text], i) => expect(bytes.subarray(next.spans.starts[i], next.spans.starts[i] + next.spans.lengths[i]).toString('utf8')).toBe(text));
  });

  it('makes an unchanged group’s extra piece (an essay given a language), never copying another piece in its place', () => {
    const first = write(doc('# Corpus', before));
    const after: [string, string][] = [before[0], before[1], before[2], ['essay:e', '\n\n## E (third)'], before[4]];
    const made: string[] = [];
    write(doc('# Corpus', after, made), { spans: first.spans, unchanged: () => true });
    expect(fs.readFileSync(file).equals(whole(doc('# Corpus', after)))).toBe(true);
    expect(made).toEqual(['essay:e']);
  });

  it('copies each piece of a group whose pieces lie apart from its own place, in order', () => {
    // The group's pieces are found by their first one while they come one after another; apart, by every group's list.
    const apart: [string, string][] = [['essay:e', '\n\n## E one'], before[0], ['essay:e', '\n\n## E two'], before[4], ['essay:e', '\n\n## E three']];
    const first = write(doc('# Corpus', apart));
    const made: string[] = [];
    const next = write(doc('# Corpus', apart, made), { spans: first.spans, unchanged: () => true });
    expect(made).toEqual([]);
    expect(next.copied).toBe(apart.length);
    expect(fs.readFileSync(file).equals(whole(doc('# Corpus', apart)))).toBe(true);
  });

  it('copies nothing from a file edited since its spans were recorded, even to the same size', () => {
    const first = write(doc('# Corpus', before));
    const edited = fs.readFileSync(file).toString('utf8').replace('## A', '## X');
    fs.writeFileSync(file, edited);
    expect(fs.statSync(file).size).toBe(first.size);
    const made: string[] = [];
    const next = write(doc('# Corpus', before, made), { spans: first.spans, unchanged: () => true });
    expect(next.copied).toBe(0);
    expect(made).toHaveLength(before.length);
    expect(fs.readFileSync(file).equals(whole(doc('# Corpus', before)))).toBe(true);
    // Nor from a file that is gone.
    fs.rmSync(file);
    expect(write(doc('# Corpus', before), { spans: next.spans, unchanged: () => true }).copied).toBe(0);
  });
});
