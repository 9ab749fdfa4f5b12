// The content loader's parse cache: what parsing one file gave (its front matter checked against the
// schema, a digest's items, the links of a Markdown body), kept per file under DATA_DIR and keyed by the
// file's path and the SHA-256 of its bytes. A job that finds nothing new parses no file (most of a load:
// Markdown and YAML) and reads none whose stat key (size, mtime, ctime, inode) is the one recorded when
// its bytes were hashed; an edited file has another key (a write always moves ctime, which no one can set
// back) and another hash, and is read and parsed again; a deleted one leaves the cache when it is next
// saved. The cache only ever returns what parsing the same bytes returned, so a cached load equals an
// uncached one.
//
// The stat keys live in a file of their own (content-stat.json, ~32 MB at 100k videos), read when a listing
// first asks for one (once per thread while the file is the same: a chain's summarise and update-index share
// it); the parses (content-parse.json and its delta, ~365 MB) are read when a parse is first asked for.
// Listing content/ needs only the first: a pipeline chain's update-index hands its listing to rebuild-site's
// thread before it reads the parses, and summarise, which keeps its own record of the videos
// (pipeline/lib/summarise-record.ts), may read none.
import fs from 'node:fs';
import path from 'node:path';
import { stageFile } from '../fs-atomic.ts';
import { deltaFits, newBaseId, objectPieces, readJsonFile, writeJsonPieces } from '../json-file.ts';

/** Bumped when what is cached, or how it is computed, changes: an old cache is then ignored. */
const CACHE_VERSION = 4;

/** Bumped when the stat keys file's form changes. */
const STAT_VERSION = 2;

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

/** The stat keys file: by file, the stat key it had before its bytes were read, and their SHA-256 (see the top of this file). */
export function statKeysFile(cacheDir: string): string {
  return path.join(cacheDir, 'content-stat.json');
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
 * The stat keys file's contents, by file: `<stat key> <SHA-256>` (missing, unreadable or of another version:
 * none). Kept as the file's strings, one per file (~212k at 100k videos), not split into objects: reading
 * them is a JSON.parse and a Map.
 */
function readStatKeys(file: string): Map<string, string> {
  try {
    const raw = readJsonFile(file) as { version?: number; keys?: Record<string, string> };
    if (raw.version === STAT_VERSION && raw.keys && typeof raw.keys === 'object') {
      // Entry by entry: Object.entries would first make a pair for each (~0.1 s more at 100k videos).
      const keys = new Map<string, string>();
      for (const rel in raw.keys) keys.set(rel, raw.keys[rel]);
      return keys;
    }
  } catch {
    // missing or unreadable: no file is vouched for, and the next save replaces it
  }
  return new Map();
}

/**
 * The stat keys file this thread last read or wrote, with the file's own stat key then: a pipeline chain's
 * summarise and update-index read it once between them, not once each (~32 MB of JSON at 100k videos, ~1 s
 * on update-index's way to the listing rebuild-site's thread waits for). Never modified: a load adds its
 * keys beside it and makes a new map at its save.
 */
let statKeysMemo: { file: string; key: string; keys: ReadonlyMap<string, string> } | null = null;

/** The stat keys file's contents, as this thread last read or wrote them while the file is that one. */
function statKeysOf(file: string): ReadonlyMap<string, string> {
  const key = statKey(file);
  if (key && statKeysMemo?.file === file && statKeysMemo.key === key) return statKeysMemo.keys;
  const keys = readStatKeys(file);
  // The stat key taken before the read: a file replaced since has another (a rename moves the inode).
  statKeysMemo = key ? { file, key, keys } : null;
  return keys;
}

/**
 * Writes the stat keys file (atomically, not flushed: keys lost in a crash only make the next listing read
 * every file) and remembers it, with its stat key once it is in place: kept only when the file there is
 * still the one written (its inode), so one another process put there since is read.
 */
function writeStatKeys(file: string, keys: ReadonlyMap<string, string>): void {
  const each = function* (): Generator<[string, string]> {
    for (const [rel, k] of keys) yield [rel, JSON.stringify(k)];
  };
  const members: [string, string | Iterable<string>][] = [
    ['version', String(STAT_VERSION)],
    ['keys', objectPieces(each())],
  ];
  let ino = -1n;
  stageFile(
    file,
    (fd) => {
      writeJsonPieces(fd, objectPieces(members));
      ino = fs.fstatSync(fd, { bigint: true }).ino;
    },
    { flush: false },
  ).commit();
  const key = statKey(file);
  statKeysMemo = key?.endsWith(`:${ino}`) ? { file, key, keys } : null;
}

/**
 * The stat keys of a cache folder, as one load uses them: read when first asked for (a load from another
 * load's listing asks for none), written at its save with the keys of the files it saw (`touched`; with
 * `within`, every key outside that folder too), each while it names the bytes the load used (`seenSha`).
 */
function openStatKeys(cacheDir: string) {
  const file = statKeysFile(cacheDir);
  /** The file's keys (shared with other loads of this thread: not modified), and the keys this load set. */
  let read: ReadonlyMap<string, string> | null = null;
  const added = new Map<string, string>();
  const recorded = (rel: string): string | undefined => {
    read ??= statKeysOf(file);
    return added.get(rel) ?? read.get(rel);
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
      const kept = new Map<string, string>();
      const keep = (rel: string, k: string) => {
        if ((within !== undefined && !rel.startsWith(within)) || (touched.has(rel) && (seenSha(rel) ?? shaOf(k)) === shaOf(k))) kept.set(rel, k);
      };
      for (const [rel, k] of read) if (!added.has(rel)) keep(rel, k);
      for (const [rel, k] of added) keep(rel, k);
      if (added.size === 0 && kept.size === read.size) return;
      fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
      writeStatKeys(file, kept);
      read = kept;
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
