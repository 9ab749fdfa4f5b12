// The content loader's parse cache: what parsing one file gave (its front matter checked against the
// schema, a digest's items, the links of a Markdown body), kept per file under DATA_DIR and keyed by the
// file's path and the SHA-256 of its bytes. A job that finds nothing new parses no file (most of a load:
// Markdown and YAML) and reads none whose stat key (size, mtime, ctime, inode) is the one recorded when
// its bytes were hashed; an edited file has another key (a write always moves ctime, which no one can set
// back) and another hash, and is read and parsed again; a deleted one leaves the cache when it is next
// saved. The cache only ever returns what parsing the same bytes returned, so a cached load equals an
// uncached one.
//
// The stat keys live in files of their own (content-stat.json, ~32 MB at 100k videos, and its delta), read
// when a listing first asks for one (once per thread while both files are the same: a chain's summarise and
// update-index share them); the parses (content-parse.json and its delta, ~365 MB) are read when a parse
// is first asked for. Listing content/ needs only the first: a pipeline chain's update-index hands its
// listing to rebuild-site's thread before it reads the parses, and summarise, which keeps its own record of
// the videos (pipeline/lib/summarise-record.ts), may read none.
import fs from 'node:fs';
import path from 'node:path';
import { stageFile } from '../fs-atomic.ts';
import { deltaFits, newBaseId, objectPieces, readJsonFile, writeJsonPieces } from '../json-file.ts';

/** Bumped when what is cached, or how it is computed, changes: an old cache is then ignored. */
const CACHE_VERSION = 4;

/** Bumped when the stat keys files' form changes (3: a base with an id, and a delta over it). */
const STAT_VERSION = 3;

/** The version before: one file, no id, still read as a base (the next save that changes a key writes a base). */
const STAT_VERSION_NO_ID = 2;

/** A cache file's JSON: the head's fields, then each entry (by file) under `entries`. */
type CacheFile = { version: number; id?: string; base?: string; removed?: string[]; entries: Record<string, Entry> };

interface Entry {
  sha: string;
  values: Record<string, unknown>;
  /** A lenient load published these bytes as they are (they were valid with everything else then). */
  ok?: true;
  /**
   * The last version of this file a lenient load published, while these bytes are not (yet) known valid:
   * its hash and its parses, which that load serves in place of a file an editor got wrong.
   */
  good?: PreviousVersion;
}

/** A file's last published version: its SHA-256 and what parsing it gave (`front`, and `digest`, `links`, `text` where the kind has them). */
export interface PreviousVersion {
  sha: string;
  values: Record<string, unknown>;
}

export interface ParseCache {
  /** The cached value of `kind` for this file's bytes, or `compute()`'s, remembered. */
  memo<T>(rel: string, sha: string, kind: string, compute: () => T): T;
  /** The SHA-256 of the file's bytes when its stat key is the one recorded with them, else undefined. */
  shaByStat(rel: string, stat: string): string | undefined;
  /** Records the stat key the file had before its bytes (with this SHA-256) were read, if it was older than the racy window then. */
  noteStat(rel: string, sha: string, stat: string): void;
  /** True when the cache holds this file's parse for these bytes (its front matter's, at least); the entry is then kept at the next save, like every file this load saw. */
  knows(rel: string, sha: string): boolean;
  /**
   * A file of this load that another load of this process listed (summarise's videos, handed on): its entry
   * and stat key are kept at the next save, as those of the files this load listed itself are.
   */
  keep(rel: string): void;
  /**
   * The last version of the file a lenient load published (marked by `published`): these very bytes when they
   * were, else the version before them that was. Undefined when none is known (a new file, a lost cache).
   */
  previousVersion(rel: string): PreviousVersion | undefined;
  /** A lenient load published the file's bytes (this SHA-256) as they are: they become its previous version for a later bad edit. */
  published(rel: string, sha: string): void;
  /**
   * Writes the cache (atomically) when it changed, keeping only the files this load saw; with `within`
   * (a folder, "videos/"), only the files of that folder are the ones it saw: every other file's entry is
   * kept as it is (a load of the videos alone, which saw nothing else).
   */
  save(opts?: { within?: string }): void;
  /** Parses this load did not need to do / had to do (for tests and benchmarks). */
  readonly stats: { hits: number; misses: number };
}

/** The cache file of a data directory's content cache (the base; see parseCacheDeltaFile). */
export function parseCacheFile(cacheDir: string): string {
  return path.join(cacheDir, 'content-parse.json');
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
 * The entries added or changed since the base was written, and the files gone since: a save that changed a
 * few files writes this small file, not the base (at 100k videos the base is ~380 MB of JSON). Past a
 * tenth of the entries (at least 1,000) the next save writes the base again and removes the delta.
 */
export function parseCacheDeltaFile(cacheDir: string): string {
  return path.join(cacheDir, 'content-parse.delta.json');
}

/**
 * Writes a cache file through a temporary file and a rename, entry by entry and in ASCII (json-file.ts:
 * it reads back ~2x faster). Not flushed to disk: a cache lost in a crash is rebuilt by the next load.
 */
function writeCacheFile(file: string, head: Omit<CacheFile, 'entries'>, entries: Iterable<[string, Entry]>): void {
  const each = function* (): Generator<[string, string]> {
    for (const [rel, entry] of entries) yield [rel, JSON.stringify(entry)];
  };
  const members: [string, string | Iterable<string>][] = [...Object.entries(head).map(([k, v]): [string, string] => [k, JSON.stringify(v)]), ['entries', objectPieces(each())]];
  stageFile(file, (fd) => writeJsonPieces(fd, objectPieces(members)), { flush: false }).commit();
}

/**
 * The base last read in this process, by file, with the stat key the file had then: a process
 * that loads again (the server on every rebuild, a pipeline run's chained jobs) does not read and parse the
 * base again while the file is the same one (at 100k videos that is 355 MB of JSON, 2–4 s). Entries are
 * shared between loads of one process; what a load adds to one (a parse of the same bytes) is true for
 * every later load too.
 */
const baseMemo = new Map<string, { key: string; id: string; entries: Map<string, Entry> }>();

/**
 * Forgets the bases this thread read, and the stat keys: a thread done loading for now gives their memory
 * back (a pipeline chain's thread once update-index is done, while rebuild-site's thread works on). The
 * next load here reads them again. Returns how many files' entries were forgotten.
 */
export function forgetParseCacheBases(): number {
  let files = 0;
  for (const base of baseMemo.values()) files += base.entries.size;
  baseMemo.clear();
  statKeysMemo = null;
  return files;
}

/** A file's stat key (size, mtime, ctime, inode), or null when it is not there: a write moves ctime, which no one can set back. */
export function statKey(file: string): string | null {
  try {
    const st = fs.statSync(file, { bigint: true });
    return `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`;
  } catch {
    return null;
  }
}

/** A cache as a load opens it: the base's entries with the delta applied, the base's id (a delta applies to the base it names) and files, and the files whose entry the delta holds. */
interface CacheContents {
  entries: Map<string, Entry>;
  baseId: string;
  baseRels: Set<string>;
  deltaRels: Set<string>;
}

/** Reads the base (the one this process last read when the file is the same) and the delta written over it. */
function readCache(file: string, deltaFile: string): CacheContents {
  let entries = new Map<string, Entry>();
  let baseId = '';
  let baseRels = new Set<string>();
  const deltaRels = new Set<string>();
  const key = statKey(file);
  const known = baseMemo.get(file);
  if (key && known?.key === key) {
    entries = new Map(known.entries);
    baseId = known.id;
    baseRels = new Set(entries.keys());
  } else {
    baseMemo.delete(file);
    try {
      const raw = readJsonFile(file) as Partial<CacheFile>;
      if (raw.version === CACHE_VERSION && typeof raw.id === 'string' && raw.entries && typeof raw.entries === 'object') {
        entries = new Map(Object.entries(raw.entries));
        baseId = raw.id;
        baseRels = new Set(entries.keys());
        // The stat key taken before the read: a file replaced since has another (a rename moves the inode).
        if (key) baseMemo.set(file, { key, id: baseId, entries: new Map(entries) });
      }
    } catch {
      // missing or unreadable: start empty, and the next save replaces it
    }
  }
  if (baseId) {
    try {
      const raw = readJsonFile(deltaFile) as Partial<CacheFile>;
      if (raw.version === CACHE_VERSION && raw.base === baseId && raw.entries && Array.isArray(raw.removed)) {
        for (const rel of raw.removed) entries.delete(rel);
        for (const [rel, entry] of Object.entries(raw.entries)) {
          entries.set(rel, entry);
          deltaRels.add(rel);
        }
      }
    } catch {
      // no delta (or one of another base): the base alone
    }
  }
  return { entries, baseId, baseRels, deltaRels };
}

/**
 * Reads the cache's base ahead of a load in this thread (a pipeline chain's rebuild-site thread, while the
 * jobs before it run), so that the load reads only the delta written since, unless the base was replaced.
 */
export function warmParseCache(cacheDir: string): void {
  readCache(parseCacheFile(cacheDir), parseCacheDeltaFile(cacheDir));
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
 * keys the base and the delta had then (null: no delta): a pipeline chain's summarise and update-index
 * read them once between them, not once each (~32 MB of JSON at 100k videos, ~1 s on update-index's way to
 * the listing rebuild-site's thread waits for). Used while both files are those; with the same base and
 * another delta (another process's or thread's save, such as a pipeline run's seen by the server), only
 * the delta is read.
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
function openStatKeys(cacheDir: string) {
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

/**
 * Writes the parses a save keeps (`kept`; `dirty`: those created or changed since `was` was read or written):
 * the delta of what changed over the base, or a new base once the delta would no longer be small.
 */
function writeParses(cacheDir: string, was: CacheContents, kept: Map<string, Entry>, dirty: ReadonlySet<string>): CacheContents {
  const file = parseCacheFile(cacheDir);
  const deltaFile = parseCacheDeltaFile(cacheDir);
  fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const inDelta = [...kept.keys()].filter((rel) => dirty.has(rel) || was.deltaRels.has(rel) || !was.baseRels.has(rel));
  const removed = [...was.baseRels].filter((rel) => !kept.has(rel));
  if (!was.baseId || !deltaFits(inDelta.length + removed.length, kept.size)) {
    const baseId = newBaseId();
    writeCacheFile(file, { version: CACHE_VERSION, id: baseId }, kept);
    fs.rmSync(deltaFile, { force: true });
    // Not remembered here: another process may replace the file between this rename and any stat of
    // it, so the next open reads what is really there (a new base is written rarely).
    return { entries: new Map(kept), baseId, baseRels: new Set(kept.keys()), deltaRels: new Set() };
  }
  writeCacheFile(deltaFile, { version: CACHE_VERSION, base: was.baseId, removed }, inDelta.map((rel) => [rel, kept.get(rel)!]));
  return { ...was, entries: new Map(kept), deltaRels: new Set(inDelta) };
}

/**
 * Opens the parse cache of a folder (see the top of this file); the load that opened it saves it. The stat
 * keys are read when a listing first asks for one (once per thread while the file is the same), the parses
 * when one is first asked for (a listing asks for none). Nothing is read here.
 */
export function openParseCache(cacheDir: string, opts: { /** false: no stat key vouches for a file (every file is read). */ statKeys?: boolean } = {}): ParseCache {
  const keys = openStatKeys(cacheDir);
  /** The files this load listed or parsed: their stat keys are kept at the next save. */
  const touched = new Set<string>();
  // The base's entries, id and files, and the files whose entry the delta holds (a save writes the delta
  // against them): read when first needed.
  let contents: CacheContents | null = null;
  const read = (): CacheContents => {
    contents ??= readCache(parseCacheFile(cacheDir), parseCacheDeltaFile(cacheDir));
    return contents;
  };
  const seen = new Map<string, Entry>();
  /** Files whose entry this load created or changed. */
  const dirty = new Set<string>();
  const stats = { hits: 0, misses: 0 };
  const entryFor = (rel: string, sha: string): Entry => {
    let entry = seen.get(rel);
    if (!entry || entry.sha !== sha) {
      const old = read().entries.get(rel);
      if (old && old.sha === sha) entry = old;
      else {
        entry = { sha, values: {} };
        // The version before these bytes, if it was published: what a lenient load serves while these are bad.
        const prior = seen.get(rel) ?? old;
        const good = prior && (prior.ok ? { sha: prior.sha, values: prior.values } : prior.good);
        if (good) entry.good = good;
        dirty.add(rel);
      }
      seen.set(rel, entry);
      touched.add(rel);
    }
    return entry;
  };
  const known = (rel: string): Entry | undefined => seen.get(rel) ?? read().entries.get(rel);
  return {
    stats,
    shaByStat(rel: string, stat: string): string | undefined {
      if (opts.statKeys === false) return undefined;
      const sha = keys.sha(rel, stat);
      if (sha === undefined) return undefined;
      touched.add(rel); // kept at the next save, like every file this load saw
      return sha;
    },
    noteStat(rel: string, sha: string, stat: string): void {
      touched.add(rel);
      keys.set(rel, stat, sha);
    },
    knows(rel: string, sha: string): boolean {
      const entry = known(rel);
      if (entry?.sha !== sha || !('front' in entry.values)) return false;
      seen.set(rel, entry);
      touched.add(rel);
      return true;
    },
    keep(rel: string): void {
      touched.add(rel);
    },
    previousVersion(rel: string): PreviousVersion | undefined {
      const entry = known(rel);
      if (!entry) return undefined;
      return entry.ok ? { sha: entry.sha, values: entry.values } : entry.good;
    },
    published(rel: string, sha: string): void {
      const entry = seen.get(rel);
      if (!entry || entry.sha !== sha || (entry.ok && !entry.good)) return;
      entry.ok = true;
      delete entry.good;
      dirty.add(rel);
    },
    memo<T>(rel: string, sha: string, kind: string, compute: () => T): T {
      const entry = entryFor(rel, sha);
      if (kind in entry.values) {
        stats.hits++;
        return entry.values[kind] as T;
      }
      stats.misses++;
      dirty.add(rel);
      const value = compute();
      // Through JSON now, so a value read from the cache later is exactly what this load used.
      entry.values[kind] = JSON.parse(JSON.stringify(value ?? null));
      return entry.values[kind] as T;
    },
    save(saveOpts = {}) {
      const within = saveOpts.within;
      keys.save(touched, (rel) => seen.get(rel)?.sha, within);
      // The parses: not read, nothing to write (a load that listed and kept its last snapshot).
      if (!contents) return;
      const { entries } = contents;
      // What the cache holds after this save: the files this load saw, and with `within` every entry outside it.
      const kept = new Map(seen);
      for (const rel of touched) if (!kept.has(rel) && entries.has(rel)) kept.set(rel, entries.get(rel)!);
      if (within !== undefined) for (const [rel, entry] of entries) if (!rel.startsWith(within) && !kept.has(rel)) kept.set(rel, entry);
      if (dirty.size === 0 && kept.size === entries.size) return;
      contents = writeParses(cacheDir, contents, kept, dirty);
      dirty.clear();
    },
  };
}

/** Where the server, the build and the pipeline keep the parse cache: `$DATA_DIR/cache`. */
export function contentCacheDir(dataDir: string): string {
  return path.join(dataDir, 'cache');
}
