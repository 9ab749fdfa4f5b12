// The stat keys of the content cache (src/lib/content/parse-cache.ts): by file, the stat key (size, mtime,
// ctime, inode) it had before its bytes were read, and their SHA-256. A listing reads no file whose stat key is
// the one recorded. They live in files of their own (content-stat.json, ~32 MB at 100k videos, and a delta
// over it), read when a listing first asks for one, once per thread while both files are the same (a
// chain's rebuild-site thread reads them while summarise runs, for update-index's load there). A save writes
// the delta of what changed since the base, or a new base once the delta would no longer be small (decision
// 0066).
import fs from 'node:fs';
import path from 'node:path';
import { stageFile } from '../fs-atomic.ts';
import { deltaFits, newBaseId, objectPieces, readJsonFile, writeJsonPieces } from '../json-file.ts';

/** Bumped when the stat keys files' form changes (3: a base with an id, and a delta over it). */
const STAT_VERSION = 3;

/** The version before: one file, no id, still read as a base (the next save that changes a key writes a base). */
const STAT_VERSION_NO_ID = 2;

/** A file's stat key (size, mtime, ctime, inode), or null when it is not there: a write moves ctime, which no one can set back. */
export function statKey(file: string): string | null {
  try {
    const st = fs.statSync(file, { bigint: true });
    return `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * The stat keys file (the base; see statKeysDeltaFile): by file, the stat key it had before its bytes were
 * read, and their SHA-256 (see the top of this file).
 */
export function statKeysFile(cacheDir: string): string {
  return path.join(cacheDir, 'content-stat.json');
}

/**
 * The stat keys set since the base was written, and the files removed since: a save that changed a few
 * keys (a run's new and rewritten files) writes this small file, not the base (~32 MB at 100k videos).
 * Past a tenth of the keys (at least 1,000) the next save writes the base again and removes the delta.
 */
export function statKeysDeltaFile(cacheDir: string): string {
  return path.join(cacheDir, 'content-stat.delta.json');
}

/**
 * The stat keys as read: the base's, by file (`<stat key> <SHA-256>`), its id ('' for none: a version-2
 * base, or none at all; the next save that changes a key then writes a base), and the delta applied over
 * it: the keys set since the base, and the files removed since. Kept as the files' strings, one per file
 * (~221k at 100k videos), not split into objects. Never modified: shared by the loads of a thread.
 */
interface StatKeys {
  id: string;
  base: ReadonlyMap<string, string>;
  set: ReadonlyMap<string, string>;
  removed: ReadonlySet<string>;
}

const NO_STAT_KEYS: StatKeys = { id: '', base: new Map(), set: new Map(), removed: new Set() };

/** A file's recorded key (`<stat key> <SHA-256>`): the delta's, else the base's unless the delta removed it. */
function recordedKey(keys: StatKeys, rel: string): string | undefined {
  const k = keys.set.get(rel);
  if (k !== undefined) return k;
  return keys.removed.size > 0 && keys.removed.has(rel) ? undefined : keys.base.get(rel);
}

/** The members of a `keys` object, in a Map, entry by entry: Object.entries would first make a pair for each (~0.1 s more at 100k videos). */
function keysMap(keys: Record<string, string>): Map<string, string> {
  const map = new Map<string, string>();
  for (const rel in keys) map.set(rel, keys[rel]);
  return map;
}

/** The delta file's JSON: the base it applies to, the files removed since, the keys set since. */
interface StatDelta {
  version: number;
  base: string;
  removed: string[];
  keys: Record<string, string>;
}

function isStatDelta(d: unknown): d is StatDelta {
  if (!d || typeof d !== 'object') return false;
  const { version, base, removed, keys } = d as Partial<StatDelta>;
  return (
    version === STAT_VERSION &&
    typeof base === 'string' &&
    Array.isArray(removed) &&
    removed.every((rel) => typeof rel === 'string') &&
    !!keys &&
    typeof keys === 'object' &&
    !Array.isArray(keys) &&
    Object.values(keys).every((k) => typeof k === 'string')
  );
}

/** A stat keys base as read: its id ('' for a version-2 base, which has none) and its keys. */
interface StatBase {
  id: string;
  keys: ReadonlyMap<string, string>;
}

/** The stat keys base's contents: null when it is missing, unreadable or of another version (no keys). */
function readStatBase(file: string): StatBase | null {
  try {
    const raw = readJsonFile(file) as { version?: number; id?: unknown; keys?: Record<string, string> };
    const withId = raw.version === STAT_VERSION && typeof raw.id === 'string' && raw.id !== '';
    if (!(withId || raw.version === STAT_VERSION_NO_ID) || !raw.keys || typeof raw.keys !== 'object') return null;
    return { id: withId ? (raw.id as string) : '', keys: keysMap(raw.keys) };
  } catch {
    return null; // missing or unreadable: no file is vouched for, and the next save writes a base
  }
}

/**
 * The stat keys: the base (none: no keys; without an id: the base alone) and the delta naming it applied.
 * A delta naming another base was written over an older one and is ignored; none at all is the base alone;
 * one that cannot be read, or is not a delta, might be this base's: then no keys at all (every file is read
 * and hashed again: slower, never wrong), and the next save writes a base.
 */
function withStatDelta(base: StatBase | null, deltaFile: string): StatKeys {
  if (!base) return NO_STAT_KEYS;
  const alone: StatKeys = { ...NO_STAT_KEYS, id: base.id, base: base.keys };
  if (!base.id) return alone;
  let delta: unknown;
  try {
    delta = readJsonFile(deltaFile);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? alone : NO_STAT_KEYS;
  }
  if (!isStatDelta(delta)) return NO_STAT_KEYS;
  if (delta.base !== base.id) return alone;
  return { ...alone, set: keysMap(delta.keys), removed: new Set(delta.removed) };
}

/**
 * The stat keys as a thread last read or wrote them (`keys`, and the base apart: `base`), with the stat
 * keys the base and the delta had then (null: no delta): the loads of one thread read them once between
 * them, not once each (~32 MB of JSON at 100k videos, ~1 s), and a thread may read them ahead of its load
 * (warmStatKeys). Used while both files are those; with the same base and another delta (another process's
 * or thread's save, such as summarise's in a chain, or a pipeline run's seen by the server), only the
 * delta is read.
 */
let statKeysMemo: { file: string; baseKey: string; deltaKey: string | null; base: StatBase | null; keys: StatKeys } | null = null;

/** The stat keys a load read, and the stat keys its base and delta had before they were read (null: missing). */
interface StatKeysRead {
  keys: StatKeys;
  baseKey: string | null;
  deltaKey: string | null;
}

/** The stat keys files' contents, as this thread last read or wrote them while both files are those. */
function statKeysOf(file: string, deltaFile: string): StatKeysRead {
  // Taken before the reads: a file replaced since has another key (a rename moves the inode).
  const baseKey = statKey(file);
  const deltaKey = statKey(deltaFile);
  const memo = statKeysMemo?.file === file && baseKey !== null && statKeysMemo.baseKey === baseKey ? statKeysMemo : null;
  if (memo && memo.deltaKey === deltaKey) return memo;
  const base = memo ? memo.base : readStatBase(file);
  const keys = withStatDelta(base, deltaFile);
  statKeysMemo = baseKey ? { file, baseKey, deltaKey, base, keys } : null;
  return { keys, baseKey, deltaKey };
}

/** Reads the stat keys ahead of a listing in this thread (see warmParseCache). */
export function warmStatKeys(cacheDir: string): void {
  statKeysOf(statKeysFile(cacheDir), statKeysDeltaFile(cacheDir));
}

/**
 * Writes a stat keys file (atomically, not flushed: keys lost in a crash only make the next listing read
 * every file): the head's members, then `keys`. Returns the inode written, which tells whether the file
 * in place afterwards is this one.
 */
function writeStatFile(file: string, head: Record<string, unknown>, keys: Iterable<[string, string]>): bigint {
  const each = function* (): Generator<[string, string]> {
    for (const [rel, k] of keys) yield [rel, JSON.stringify(k)];
  };
  const members: [string, string | Iterable<string>][] = [...Object.entries(head).map(([k, v]): [string, string] => [k, JSON.stringify(v)]), ['keys', objectPieces(each())]];
  let ino = -1n;
  stageFile(
    file,
    (fd) => {
      writeJsonPieces(fd, objectPieces(members));
      ino = fs.fstatSync(fd, { bigint: true }).ino;
    },
    { flush: false },
  ).commit();
  return ino;
}

/**
 * Writes the stat keys a save keeps, as a delta over the base that was read (`set`, `removed`; `size`:
 * how many keys that makes), or as a new base when the delta would no longer be small or no base with
 * an id was read; then removes the delta (a reader in between finds it naming the old base, and ignores
 * it). Remembers what it wrote for the thread's next load only while the files in place are the ones
 * read and written (their inodes): a file another process put there since is read.
 */
function writeStatKeys(file: string, deltaFile: string, was: StatKeysRead, set: Map<string, string>, removed: Set<string>, size: number): StatKeysRead {
  const { id, base } = was.keys;
  if (id && deltaFits(set.size + removed.size, size)) {
    const ino = writeStatFile(deltaFile, { version: STAT_VERSION, base: id, removed: [...removed] }, set);
    const keys: StatKeys = { id, base, set, removed };
    const deltaKey = statKey(deltaFile);
    const baseKey = was.baseKey !== null && statKey(file) === was.baseKey ? was.baseKey : null;
    statKeysMemo = baseKey !== null && deltaKey?.endsWith(`:${ino}`) ? { file, baseKey, deltaKey, base: { id, keys: base }, keys } : null;
    return { keys, baseKey, deltaKey };
  }
  const all = new Map<string, string>();
  for (const [rel, k] of base) if (!removed.has(rel)) all.set(rel, set.get(rel) ?? k);
  for (const [rel, k] of set) if (!base.has(rel)) all.set(rel, k);
  const newId = newBaseId();
  const ino = writeStatFile(file, { version: STAT_VERSION, id: newId }, all);
  fs.rmSync(deltaFile, { force: true });
  const keys: StatKeys = { ...NO_STAT_KEYS, id: newId, base: all };
  const written = statKey(file);
  const baseKey = written?.endsWith(`:${ino}`) ? written : null;
  const deltaKey = statKey(deltaFile);
  statKeysMemo = baseKey !== null && deltaKey === null ? { file, baseKey, deltaKey, base: { id: newId, keys: all }, keys } : null;
  return { keys, baseKey, deltaKey };
}

/**
 * The stat keys of a cache folder, as one load uses them: read when first asked for (a load from another
 * load's listing asks for none), written at its save with the keys of the files it saw (`touched`; with
 * `within`, every key outside that folder too), each while it names the bytes the load used (`seenSha`).
 */
export function openStatKeys(cacheDir: string) {
  const file = statKeysFile(cacheDir);
  const deltaFile = statKeysDeltaFile(cacheDir);
  /** The files' keys (shared with other loads of this thread: not modified), and the keys this load set. */
  let read: StatKeysRead | null = null;
  const added = new Map<string, string>();
  const recorded = (rel: string): string | undefined => {
    read ??= statKeysOf(file, deltaFile);
    return added.get(rel) ?? recordedKey(read.keys, rel);
  };
  const shaOf = (key: string) => key.slice(key.indexOf(' ') + 1);
  return {
    /** The SHA-256 recorded with this stat key, if the file's recorded key is this one. */
    sha(rel: string, stat: string): string | undefined {
      const k = recorded(rel);
      return k !== undefined && k.length === stat.length + 65 && k.startsWith(stat) && k[stat.length] === ' ' ? shaOf(k) : undefined;
    },
    set(rel: string, stat: string, sha: string): void {
      const key = `${stat} ${sha}`;
      if (recorded(rel) !== key) added.set(rel, key);
    },
    save(touched: ReadonlySet<string>, seenSha: (rel: string) => string | undefined, within: string | undefined): void {
      if (!read) return; // none read, none set
      const was = read.keys;
      // Kept: a key outside `within`, or of a file this load saw, unless it names other bytes than the load
      // used (the SHA-256 after the key's space, compared in place).
      const keeps = (rel: string, k: string) => {
        if (within !== undefined && !rel.startsWith(within)) return true;
        if (!touched.has(rel)) return false;
        const sha = seenSha(rel);
        return sha === undefined || (k.endsWith(sha) && k[k.length - sha.length - 1] === ' ');
      };
      // The keys kept, as a delta over the base read: those set other than the base's, the base's files
      // not kept, and how many keys that makes; `dropped`: a key read is not kept.
      const set = new Map<string, string>();
      const removed = new Set<string>();
      let size = 0;
      let dropped = false;
      const anyRemoved = was.removed.size > 0;
      for (const [rel, k] of was.base) {
        const before = was.set.get(rel) ?? (anyRemoved && was.removed.has(rel) ? undefined : k);
        const now = added.get(rel) ?? before;
        if (now !== undefined && keeps(rel, now)) {
          size++;
          if (now !== k) set.set(rel, now);
        } else {
          removed.add(rel);
          if (before !== undefined && !added.has(rel)) dropped = true;
        }
      }
      for (const [rel, k] of was.set) {
        if (was.base.has(rel) || added.has(rel)) continue;
        if (keeps(rel, k)) {
          set.set(rel, k);
          size++;
        } else dropped = true;
      }
      for (const [rel, k] of added) {
        if (was.base.has(rel) || !keeps(rel, k)) continue;
        set.set(rel, k);
        size++;
      }
      if (added.size === 0 && !dropped) return;
      fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
      read = writeStatKeys(file, deltaFile, read, set, removed, size);
      added.clear();
    },
  };
}

/** Forgets the stat keys this thread read (forgetParseCacheBases): the next load here reads them again. */
export function forgetStatKeys(): void {
  statKeysMemo = null;
}
