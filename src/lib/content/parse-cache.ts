// The content loader's parse cache: what parsing one file gave (its front matter checked against the
// schema, a digest's items, the links of a Markdown body), kept per file under DATA_DIR and keyed by the
// file's path and the SHA-256 of its bytes. A job that finds nothing new parses no file (most of a load:
// Markdown and YAML) and reads none whose stat key (size, mtime, ctime, inode) is the one recorded when
// its bytes were hashed; an edited file has another key (a write always moves ctime, which no one can set
// back) and another hash, and is read and parsed again; a deleted one leaves the cache when it is next
// saved. The cache only ever returns what parsing the same bytes returned, so a cached load equals an
// uncached one.
//
// The stat keys live in files of their own (stat-keys.ts: content-stat.json, ~32 MB at 100k videos, and
// its delta), read when a listing first asks for one (once per thread while both files are the same: a
// chain's summarise and update-index share them); the parses (content-parse.json and its delta, ~365 MB)
// are read when a parse is first asked for. Listing content/ needs only the first: summarise, which keeps
// its own record of the videos (pipeline/lib/summarise-record.ts), may read no parse.
import fs from 'node:fs';
import path from 'node:path';
import { stageFile } from '../fs-atomic.ts';
import { deltaFits, newBaseId, objectPieces, readJsonFile, writeJsonPieces } from '../json-file.ts';
import { forgetStatKeys, openStatKeys, statKey, warmStatKeys } from './stat-keys.ts';

/** Bumped when what is cached, or how it is computed, changes: an old cache is then ignored. */
const CACHE_VERSION = 4;

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
  forgetStatKeys();
  return files;
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
 * Reads the cache's base and the stat keys ahead of a load in this thread (a pipeline chain's rebuild-site
 * thread, while summarise runs in the chain's), so that the load reads only the deltas written since,
 * unless a base was replaced.
 */
export function warmParseCache(cacheDir: string): void {
  readCache(parseCacheFile(cacheDir), parseCacheDeltaFile(cacheDir));
  warmStatKeys(cacheDir);
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
