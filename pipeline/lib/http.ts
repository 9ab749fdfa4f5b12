// Fetching for jobs: a time limit per attempt, retries with exponential backoff on network errors and
// 5xx, and conditional requests (ETag / Last-Modified remembered in var/pipeline/http-cache.json) so an
// unchanged feed costs a 304.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../src/lib/fs-atomic.ts';

export interface FetchOptions {
  timeoutMs?: number;
  retries?: number;
  backoffMs?: number;
  maxBytes?: number;
}

export class FetchError extends Error {}

interface CacheEntry {
  etag?: string;
  last_modified?: string;
}

export class HttpCache {
  private readonly file: string;
  private entries: Record<string, CacheEntry>;
  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'pipeline', 'http-cache.json');
    try {
      this.entries = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch {
      this.entries = {};
    }
  }
  get(url: string): CacheEntry | undefined {
    return this.entries[url];
  }
  set(url: string, e: CacheEntry): void {
    this.entries[url] = e;
  }
  save(): void {
    writeFileAtomic(this.file, JSON.stringify(this.entries, null, 2) + '\n');
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * GETs a URL; returns null for 304 Not Modified. The validators of a 200 are only remembered by the
 * caller (`commit`) once the body was processed, so a failed run asks for the full body again.
 */
export async function fetchText(url: string, cache: HttpCache | null, opts: FetchOptions = {}): Promise<{ body: string; commit: () => void } | null> {
  const { timeoutMs = 10_000, retries = 3, backoffMs = 500, maxBytes = 5 * 1024 * 1024 } = opts;
  const known = cache?.get(url);
  let lastError = '';
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) await sleep(backoffMs * 2 ** (attempt - 1));
    try {
      const headers: Record<string, string> = { 'User-Agent': 'ai-transformation-kb-pipeline/1 (+feed ingest)' };
      if (known?.etag) headers['If-None-Match'] = known.etag;
      if (known?.last_modified) headers['If-Modified-Since'] = known.last_modified;
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
      if (res.status === 304) return null;
      if (res.status >= 500) {
        lastError = `HTTP ${res.status}`;
        await res.body?.cancel();
        continue;
      }
      if (!res.ok) throw new FetchError(`HTTP ${res.status}`);
      const buf = Buffer.from(await res.arrayBuffer());
      if (buf.length > maxBytes) throw new FetchError(`response larger than ${maxBytes} bytes`);
      const etag = res.headers.get('etag') ?? undefined;
      const lastModified = res.headers.get('last-modified') ?? undefined;
      return {
        body: buf.toString('utf8'),
        commit: () => {
          if (cache && (etag || lastModified)) cache.set(url, { etag, last_modified: lastModified });
        },
      };
    } catch (err) {
      if (err instanceof FetchError) throw err;
      const e = err as Error;
      lastError = e.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : (e.cause as Error | undefined)?.message ?? e.message;
    }
  }
  throw new FetchError(`${lastError} (after ${retries + 1} attempts)`);
}
