// Documents made of every item's piece (/llms-full.txt: every essay, digest, concept and video summary,
// 188 MB at 100k videos). A build records where each item's piece lies in the file it wrote (the site
// manifest's `pieces`); the next incremental build copies from that file the bytes of every piece whose
// item's input key did not move, instead of making and encoding its text again: a run that brings 50
// videos changes a few hundred KB of it. The pieces between items (the header with its date and counts,
// the section titles) are made every time.
//
// The file is written through one 4 MB buffer, never held whole: allocating and filling buffers of
// hundreds of MB cost more here than the encoding saved (at 100k videos, reading the previous file whole,
// hashing it and joining the new one took ~4 s on a loaded machine).
import fs from 'node:fs';
import type { Piece } from '../representation.ts';
import { statKey } from '../content/stat-keys.ts';

/** Where a file's item pieces lie, recorded when it is written. */
export interface PieceSpans {
  /**
   * The file's stat key (size, mtime, ctime, inode) once in place: a file edited or replaced since has
   * another (a write moves ctime, which no one can set back) and nothing is copied from it.
   */
  stat: string;
  /** Each item piece in order: its group, first byte and length (an essay has one piece per language). */
  groups: string[];
  starts: number[];
  lengths: number[];
}

/** The previous file and what may be copied from it. */
export interface PieceReuse {
  file: string;
  spans: PieceSpans;
  /** Whether a group's input key is the one the previous build recorded. */
  unchanged: (group: string) => boolean;
}

const BLOCK = 4 << 20;

function writeAll(fd: number, buf: Buffer, length: number): void {
  for (let off = 0; off < length; ) off += fs.writeSync(fd, buf, off, length - off);
}

/**
 * A file written in order through one buffer: text is encoded into it, copied spans of the previous file
 * are read through it. Adjacent spans are copied as one run (most of the file, between the few changed
 * pieces).
 */
class Output {
  size = 0;
  private readonly buf = Buffer.allocUnsafe(BLOCK);
  private used = 0;
  private run: { start: number; end: number } | null = null;
  private readonly fd: number;
  private readonly from: number | null;
  constructor(fd: number, from: number | null) {
    this.fd = fd;
    this.from = from;
  }
  private flushText(): void {
    writeAll(this.fd, this.buf, this.used);
    this.used = 0;
  }
  private flushRun(): void {
    if (!this.run) return;
    this.flushText();
    let { start } = this.run;
    const { end } = this.run;
    this.run = null;
    while (start < end) {
      const n = fs.readSync(this.from!, this.buf, 0, Math.min(BLOCK, end - start), start);
      if (n === 0) throw new Error('the previous file ended before a piece recorded in it');
      writeAll(this.fd, this.buf, n);
      start += n;
    }
  }
  text(s: string): void {
    this.flushRun();
    // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4).
    if (this.used + s.length * 3 > BLOCK) this.flushText();
    if (s.length * 3 > BLOCK) {
      const b = Buffer.from(s, 'utf8');
      writeAll(this.fd, b, b.length);
      this.size += b.length;
      return;
    }
    const n = this.buf.write(s, this.used, 'utf8');
    this.used += n;
    this.size += n;
  }
  copy(start: number, length: number): void {
    if (this.run && this.run.end === start) this.run.end += length;
    else {
      this.flushRun();
      this.run = { start, end: start + length };
    }
    this.size += length;
  }
  end(): void {
    this.flushRun();
    this.flushText();
  }
}

/**
 * Where each group's n-th piece lies in `groups` (a file's spans). A group's pieces come one after another
 * (an essay's languages), so its first piece's index is enough: a list per group (~214k at 100k videos)
 * cost ~0.3 s a build. Should a group's pieces lie apart, every group's list is made, once.
 */
function piecesOf(groups: readonly string[]): (group: string, n: number) => number | undefined {
  const first = new Map<string, number>();
  for (let i = 0; i < groups.length; i++) if (!first.has(groups[i])) first.set(groups[i], i);
  let lists: Map<string, number[]> | undefined;
  return (group, n) => {
    const i = first.get(group);
    if (i === undefined) return undefined;
    // n after the first while the pieces between are all the group's (the first is its earliest).
    let run = true;
    for (let k = 1; k <= n && run; k++) run = groups[i + k] === group;
    if (run) return i + n;
    if (!lists) {
      lists = new Map();
      groups.forEach((g, k) => {
        const list = lists!.get(g);
        if (list) list.push(k);
        else lists!.set(g, [k]);
      });
    }
    return lists.get(group)?.[n];
  };
}

/**
 * Writes the pieces to the open file `fd`, in UTF-8, and says where its item pieces lie (`stat` is left to
 * the caller, for the file once in place). With `reuse`, and while the previous file is the one its spans
 * were recorded for, an item piece whose group is unchanged and was in that file, as that group's n-th
 * piece there too, is copied from it.
 */
export function writePieces(fd: number, pieces: Iterable<Piece>, reuse?: PieceReuse): { spans: Omit<PieceSpans, 'stat'>; size: number; copied: number } {
  let from: number | null = null;
  /** Where each group's n-th piece lies in the previous file, as an index into its spans. */
  let before: ((group: string, n: number) => number | undefined) | undefined;
  if (reuse && statKey(reuse.file) === reuse.spans.stat) {
    from = fs.openSync(reuse.file, 'r');
    before = piecesOf(reuse.spans.groups);
  }
  try {
    const out = new Output(fd, from);
    const spans: Omit<PieceSpans, 'stat'> = { groups: [], starts: [], lengths: [] };
    /** How many pieces of each group came so far. */
    const seen = new Map<string, number>();
    let copied = 0;
    for (const p of pieces) {
      if (typeof p === 'string') {
        out.text(p);
        continue;
      }
      const start = out.size;
      const n = seen.get(p.group) ?? 0;
      seen.set(p.group, n + 1);
      const at = before?.(p.group, n);
      if (at !== undefined && reuse!.unchanged(p.group)) {
        out.copy(reuse!.spans.starts[at], reuse!.spans.lengths[at]);
        copied++;
      } else out.text(p.text());
      spans.groups.push(p.group);
      spans.starts.push(start);
      spans.lengths.push(out.size - start);
    }
    out.end();
    return { spans, size: out.size, copied };
  } finally {
    if (from !== null) fs.closeSync(from);
  }
}

/**
 * The pieces written to `file` in place (created or truncated; the full build's folder, which nothing
 * serves yet), with the spans and the file's stat key for the next build.
 */
export function writePiecesFile(file: string, pieces: Iterable<Piece>): { spans: PieceSpans; size: number } {
  const fd = fs.openSync(file, 'w', 0o644);
  let made: ReturnType<typeof writePieces>;
  try {
    made = writePieces(fd, pieces);
  } finally {
    fs.closeSync(fd);
  }
  return { spans: { ...made.spans, stat: statKey(file)! }, size: made.size };
}
