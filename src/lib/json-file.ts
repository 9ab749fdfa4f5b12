// Large JSON state files (the parse cache, the site manifest, the search index's tables, the page models a
// render process is handed) are written in ASCII only: every other character as its \uXXXX escape, which
// JSON.parse turns back into the same string. The reason is memory and decoding: one accented letter
// anywhere in a UTF-8 file makes the whole text, once decoded, a two-byte string (the 100k parse cache's
// 372 MB became 744 MB for a moment); an ASCII file is read as a one-byte string. Loading that cache went
// 10.2-10.5 -> 8.3-8.7 s (decoding 4.4-4.8 -> 2.5-3.1 s; the read and JSON.parse take the same time).
// The state files kept as a base and a delta of what changed since (the parse cache, the stat keys, the
// site manifest, the search input keys) share the policy below: newBaseId, deltaFits; those whose delta
// holds records by key (the site manifest, the search input keys) also recordChange and applyChange.
import fs from 'node:fs';
import { isAscii } from 'node:buffer';

const NON_ASCII = /[^\x00-\x7f]/;
const NON_ASCII_ALL = /[^\x00-\x7f]/g;
const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A JSON text with every non-ASCII character escaped: the same value, in ASCII. (Outside strings JSON has
 * only ASCII, so each such character is inside a string, where \uXXXX stands for it; a character beyond
 * the BMP is two UTF-16 units, each escaped, as JSON allows.)
 */
export function asciiJson(text: string): string {
  return NON_ASCII.test(text) ? text.replace(NON_ASCII_ALL, escape) : text;
}

/** JSON.stringify(value), in ASCII (asciiJson). */
export const stringifyAscii = (value: unknown): string => asciiJson(JSON.stringify(value));

/**
 * Reads and parses a JSON file: as a one-byte string when its bytes are all ASCII (what the writers above
 * give), else decoded as UTF-8 (any other JSON file, such as one written before they were used).
 */
export function readJsonFile(file: string): unknown {
  const buf = fs.readFileSync(file);
  return JSON.parse(isAscii(buf) ? buf.toString('latin1') : buf.toString('utf8'));
}

/**
 * The pieces of a JSON object whose members' values are JSON texts already, or pieces of one (an object of
 * objectPieces, say), for writeJsonPieces: a value of MBs is not copied into a larger string.
 */
export function* objectPieces(members: Iterable<[key: string, json: string | Iterable<string>]>): Generator<string> {
  let sep = '{';
  for (const [key, json] of members) {
    yield `${sep}${JSON.stringify(key)}:`;
    if (typeof json === 'string') yield json;
    else yield* json;
    sep = ',';
  }
  yield sep === '{' ? '{}' : '}';
}

/** Writes ~1 MB strings at a time: one write per small piece costs a system call each. */
const WRITE_BATCH = 1 << 20;

/**
 * Writes a JSON text given in pieces to an open file, each in ASCII (asciiJson): a document of hundreds of
 * MB without building it as one string (at 100k videos, stringifying the parse cache whole took 13.7 s,
 * its entries one by one 4.1 s).
 */
export function writeJsonPieces(fd: number, pieces: Iterable<string>): void {
  let batch = '';
  const flush = () => {
    const bytes = Buffer.from(batch, 'latin1');
    for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at);
    batch = '';
  };
  for (const piece of pieces) {
    batch += asciiJson(piece);
    if (batch.length >= WRITE_BATCH) flush();
  }
  if (batch) flush();
}

/** Writes a JSON text given in pieces (writeJsonPieces) to a new file, replacing one of that name (flag `wx`: only a new one). */
export function writeJsonPiecesFile(file: string, pieces: Iterable<string>, mode = 0o666, flag: 'w' | 'wx' = 'w'): void {
  const fd = fs.openSync(file, flag, mode);
  try {
    writeJsonPieces(fd, pieces);
  } finally {
    fs.closeSync(fd);
  }
}

/** The id of a new base, which its deltas name (a delta naming another base is older than the base). */
export const newBaseId = (): string => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

/** Whether `changed` entries still go in a delta over a base of `total` entries, or a new base is due. */
export const deltaFits = (changed: number, total: number): boolean => changed <= Math.max(1000, total * 0.1);

/** What a delta holds of one record of a base (an object by key): the entries set and the keys removed since the base. */
export interface RecordChange<T> {
  set: Record<string, T>;
  removed: string[];
}

/** A record read from its base, brought up to date with its delta's change (in place). */
export function applyChange<T>(entries: Record<string, T>, change: RecordChange<T>): void {
  for (const k of change.removed) delete entries[k];
  Object.assign(entries, change.set);
}

/**
 * The change from a record's base to `after`, given `had`, the change from the base to `before` (what the
 * delta held when `before` was read): each entry of `after` is compared with `before`'s, and `before` is
 * walked for removed entries only when some are. Also how many entries `after` has (for deltaFits).
 */
export function recordChange<T>(before: Record<string, T>, after: Record<string, T>, had: RecordChange<T> | undefined, same: (a: T, b: T) => boolean): { change: RecordChange<T>; entries: number } {
  const set: Record<string, T> = { ...had?.set };
  const removed = new Set(had?.removed);
  let entries = 0;
  /** Entries of `after` that `before` has too: when all of `before`'s, none was removed. */
  let kept = 0;
  for (const k in after) {
    entries++;
    if (Object.hasOwn(before, k)) {
      kept++;
      if (same(before[k], after[k])) continue;
    }
    set[k] = after[k];
    removed.delete(k);
  }
  if (kept < Object.keys(before).length) {
    for (const k in before) {
      if (Object.hasOwn(after, k)) continue;
      delete set[k];
      removed.add(k);
    }
  }
  return { change: { set, removed: [...removed] }, entries };
}
