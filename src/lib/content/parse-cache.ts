// The content loader's parse cache: what parsing one file gave (its front matter checked against the
// schema, a digest's items, the links of a Markdown body), kept per file under DATA_DIR and keyed by the
// file's path and the SHA-256 of its bytes. A job that finds nothing new re-reads and hashes each file
// (cheap) but parses none (most of a load: Markdown and YAML); an edited file has another hash and is
// parsed again, a deleted one leaves the cache when it is next saved. The cache only ever returns what
// parsing the same bytes returned, so a cached load equals an uncached one.
import fs from 'node:fs';
import path from 'node:path';

/** Bumped when what is cached, or how it is computed, changes: an old cache is then ignored. */
const CACHE_VERSION = 1;

interface Entry {
  sha: string;
  values: Record<string, unknown>;
}

export interface ParseCache {
  /** The cached value of `kind` for this file's bytes, or `compute()`'s, remembered. */
  memo<T>(rel: string, sha: string, kind: string, compute: () => T): T;
  /** Writes the cache (atomically) when it changed, keeping only the files this load saw. */
  save(): void;
  /** Parses this load did not need to do / had to do (for tests and benchmarks). */
  readonly stats: { hits: number; misses: number };
}

/** The cache file of a data directory's content cache. */
export function parseCacheFile(cacheDir: string): string {
  return path.join(cacheDir, 'content-parse.json');
}

export function openParseCache(cacheDir: string): ParseCache {
  const file = parseCacheFile(cacheDir);
  let entries = new Map<string, Entry>();
  try {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: number; entries?: Record<string, Entry> };
    if (raw.version === CACHE_VERSION && raw.entries && typeof raw.entries === 'object') entries = new Map(Object.entries(raw.entries));
  } catch {
    // missing or unreadable: start empty, and the next save replaces it
  }
  const seen = new Map<string, Entry>();
  let changed = false;
  const stats = { hits: 0, misses: 0 };
  return {
    stats,
    memo<T>(rel: string, sha: string, kind: string, compute: () => T): T {
      let entry = seen.get(rel);
      if (!entry || entry.sha !== sha) {
        const old = entries.get(rel);
        entry = old && old.sha === sha ? old : { sha, values: {} };
        seen.set(rel, entry);
      }
      if (kind in entry.values) {
        stats.hits++;
        return entry.values[kind] as T;
      }
      stats.misses++;
      changed = true;
      const value = compute();
      // Through JSON now, so a value read from the cache later is exactly what this load used.
      entry.values[kind] = JSON.parse(JSON.stringify(value ?? null));
      return entry.values[kind] as T;
    },
    save() {
      if (!changed && seen.size === entries.size) return;
      fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify({ version: CACHE_VERSION, entries: Object.fromEntries(seen) }));
      fs.renameSync(tmp, file);
      entries = new Map(seen);
      changed = false;
    },
  };
}

/** Where the server, the build and the pipeline keep the parse cache: `$DATA_DIR/cache`. */
export function contentCacheDir(dataDir: string): string {
  return path.join(dataDir, 'cache');
}
