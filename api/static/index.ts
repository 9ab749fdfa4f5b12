// Serves the prerendered site from memory. Every file in dist/client is read when the server starts and
// again when a new build lands (without blocking the event loop: requests are answered meanwhile), with its
// content type, a strong ETag and cache headers precomputed, and answered straight from the Node request
// listener, before Hono, for GET/HEAD requests without a query string. Requests with a query string go to
// the dynamic routes, which call the same read model.
import fs from 'node:fs';
import { promisify } from 'node:util';
import { setImmediate } from 'node:timers/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contentTypeForFile, urlPathForDistFile } from '../../src/lib/representation.ts';
import { compressible, negotiateEncoding, variantOf } from './compression.ts';
import { alternateLinks, twinHeaders, twinPath } from './negotiation.ts';

export interface StaticEntry {
  body: Buffer;
  contentType: string;
  etag: string;
  headers: string[];
}

export interface StaticSite {
  files: Map<string, StaticEntry[]>;
  fileCount: number;
  bytes: number;
}

/** A strong ETag over the bytes; the dynamic routes use the same one, so a CDN can revalidate either. */
export function etagFor(body: string | Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** Cache policy: hashed build assets are immutable; the liveness probe is never cached; the rest briefly. */
export function cacheControlFor(urlPath: string): string {
  if (urlPath.startsWith('/_astro/')) return 'public, max-age=31536000, immutable';
  if (urlPath === '/api/health') return 'no-store';
  return 'public, max-age=60, s-maxage=300, stale-while-revalidate=3600';
}

/**
 * The content security policy of a prerendered page: scripts and styles from this origin only, the page's
 * own inline scripts by hash (the graph's), inline styles only on a page that has them, never framed.
 * The server's own pages (api/web) use the same policy without the inline allowances.
 */
export function readPageCsp(html: string): string {
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    const attrs = m[1];
    if (/\bsrc\s*=/i.test(attrs)) continue;
    const type = /\btype\s*=\s*["']?([^"'\s>]+)/i.exec(attrs)?.[1].toLowerCase();
    // Data blocks (JSON) are not run, so the policy need not allow them.
    if (type && !['module', 'text/javascript', 'application/javascript'].includes(type)) continue;
    hashes.push(`'sha256-${createHash('sha256').update(m[2]).digest('base64')}'`);
  }
  const inlineStyles = /<style\b|\sstyle\s*=|style=\\?["']/i.test(html);
  return [
    "default-src 'none'",
    `script-src 'self'${hashes.map((h) => ` ${h}`).join('')}`,
    `style-src 'self'${inlineStyles ? " 'unsafe-inline'" : ''}`,
    "img-src 'self' https: data:",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/**
 * Headers every anonymous read carries (X-Content-Type-Options: nosniff and, with an https BASE_URL,
 * Strict-Transport-Security come from the server's listener, for every response). HTML also gets its
 * content security policy and is never framed.
 */
export function readHeaders(urlPath: string, contentType: string, etag: string, negotiated: boolean, body?: string | Buffer): Record<string, string> {
  // A body that may be sent compressed varies by Accept-Encoding too (see compression.ts).
  const encoded = body !== undefined && compressible(contentType, Buffer.byteLength(body));
  const vary = [...(negotiated ? ['Accept'] : []), ...(encoded ? ['Accept-Encoding'] : [])].join(', ');
  return {
    'Content-Type': contentType,
    ETag: etag,
    'Cache-Control': cacheControlFor(urlPath),
    'Access-Control-Allow-Origin': '*',
    ...(vary ? { Vary: vary } : {}),
    ...(contentType.startsWith('text/html') && body !== undefined ? { 'Content-Security-Policy': readPageCsp(body.toString()), 'X-Frame-Options': 'DENY' } : {}),
  };
}

/**
 * Which representation of a path with several (only /api today: Markdown prose and a JSON summary) a
 * client gets: browsers and JSON clients get JSON, agents and plain fetchers the prose.
 */
export function prefersJson(accept: string | undefined): boolean {
  return !!accept && /application\/json|text\/html/.test(accept);
}

function pickEntry(entries: StaticEntry[], accept: string | undefined): StaticEntry {
  if (entries.length === 1) return entries[0];
  const json = entries.find((e) => e.contentType.startsWith('application/json'));
  const other = entries.find((e) => !e.contentType.startsWith('application/json'));
  return (prefersJson(accept) ? json : other) ?? entries[0];
}

// The callback readFile, promisified: fs.promises.readFile costs about twice as much per small file
// (nodejs/node#37583, #52046), and a build holds tens of thousands of them.
const readFile = promisify(fs.readFile);

/** A file of dist/client as served: its URL path and representation. */
async function readEntry(clientDir: string, rel: string): Promise<{ urlPath: string; entry: StaticEntry }> {
  const body = await readFile(path.join(clientDir, rel));
  return { urlPath: urlPathForDistFile(rel), entry: { body, contentType: contentTypeForFile(rel), etag: etagFor(body), headers: [] } };
}

/** Files read at once: enough to keep the disk and the thread pool busy, few enough to leave file handles. */
const READ_CONCURRENCY = 32;

/**
 * For long loops over a whole build: resolves at once, or after letting the event loop run (requests in
 * between) when the loop has worked for 10 ms since it last did.
 */
function eventLoopTurns(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < 10) return;
    await setImmediate();
    since = performance.now();
  };
}

/** readEntry for each file, READ_CONCURRENCY at a time, in the order given. */
async function readEntries(clientDir: string, rels: readonly string[]): Promise<{ urlPath: string; entry: StaticEntry }[]> {
  const out: { urlPath: string; entry: StaticEntry }[] = new Array(rels.length);
  let next = 0;
  const reader = async () => {
    while (next < rels.length) {
      const i = next++;
      out[i] = await readEntry(clientDir, rels[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, rels.length) }, reader));
  return out;
}

/** A file the incremental build is still writing (src/lib/fs-atomic.ts names them so); never served. */
const TEMP_FILE = /(^|\/)\.[^/]+\.\d+\.[a-z0-9]+\.tmp$/;

/**
 * Header arrays are built once all representations of a path are known (Vary: Accept where several). A
 * page names its Markdown and JSON twins in `Link` and varies by Accept, which can ask for them.
 */
function finishPath(urlPath: string, list: StaticEntry[]): void {
  list.sort((a, b) => (a.contentType < b.contentType ? -1 : 1));
  const links = list.some((e) => e.contentType.startsWith('text/html')) ? alternateLinks(urlPath) : null;
  for (const e of list) {
    const page = links !== null && e.contentType.startsWith('text/html');
    const h = readHeaders(urlPath, e.contentType, e.etag, list.length > 1 || page, e.body);
    e.headers = [...Object.entries(h).flat(), ...(page ? ['Link', links] : []), 'Content-Length', String(e.body.length)];
  }
}

function totals(files: Map<string, StaticEntry[]>): { fileCount: number; bytes: number } {
  let fileCount = 0;
  let bytes = 0;
  for (const list of files.values()) {
    fileCount += list.length;
    for (const e of list) bytes += e.body.length;
  }
  return { fileCount, bytes };
}

export function emptyStaticSite(): StaticSite {
  return { files: new Map(), fileCount: 0, bytes: 0 };
}

/** The files of dist/client to serve, relative with forward slashes; none when there is no such folder. */
async function listClientFiles(clientDir: string): Promise<string[]> {
  let found: fs.Dirent[];
  try {
    found = await fs.promises.readdir(clientDir, { withFileTypes: true, recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const rels: string[] = [];
  const turn = eventLoopTurns();
  for (const e of found) {
    await turn();
    if (!e.isFile()) continue;
    const rel = path.relative(clientDir, path.join(e.parentPath, e.name)).split(path.sep).join('/');
    if (!TEMP_FILE.test(rel)) rels.push(rel);
  }
  return rels;
}

/** Every file of dist/client, read without blocking the event loop (a build at 10k videos has tens of thousands). */
export async function loadStaticSite(clientDir: string): Promise<StaticSite> {
  const files = new Map<string, StaticEntry[]>();
  for (const { urlPath, entry } of await readEntries(clientDir, await listClientFiles(clientDir))) {
    const list = files.get(urlPath) ?? [];
    list.push(entry);
    files.set(urlPath, list);
  }
  // The headers of a large build (each page's CSP) take a while: requests are answered in between.
  const turn = eventLoopTurns();
  for (const [urlPath, list] of files) {
    await turn();
    finishPath(urlPath, list);
  }
  return { files, ...totals(files) };
}

/**
 * The site after an incremental build: the same entries, but for the files it wrote (read again) and
 * removed. Returns a new StaticSite; the one being served is not touched, so a request sees either the
 * old or the new bytes of a document, never a mix.
 */
export async function patchStaticSite(site: StaticSite, clientDir: string, written: readonly string[], removed: readonly string[]): Promise<StaticSite> {
  // Read first: the new map is built only from bytes already in memory.
  const read = await readEntries(clientDir, written);
  const files = new Map(site.files);
  const touched = new Set<string>();
  const drop = (rel: string) => {
    const urlPath = urlPathForDistFile(rel);
    const contentType = contentTypeForFile(rel);
    const list = (files.get(urlPath) ?? []).filter((e) => e.contentType !== contentType);
    if (list.length) files.set(urlPath, list);
    else files.delete(urlPath);
    touched.add(urlPath);
  };
  for (const rel of removed) drop(rel);
  written.forEach((rel, i) => {
    drop(rel);
    const { urlPath, entry } = read[i];
    files.set(urlPath, [...(files.get(urlPath) ?? []), entry]);
  });
  // Entries are shared with the old site: give touched paths fresh entry objects before new headers.
  for (const urlPath of touched) {
    const list = files.get(urlPath);
    if (list) {
      const fresh = list.map((e) => ({ ...e }));
      finishPath(urlPath, fresh);
      files.set(urlPath, fresh);
    }
  }
  return { files, ...totals(files) };
}

const variantHeaders = new WeakMap<object, string[]>();

/**
 * The representation to send for an Accept-Encoding: the entry itself, or its compressed variant (made on
 * first request and kept) with its own ETag, Content-Encoding and length. Headers stay flat arrays, built
 * once, for the listener's fast path.
 */
export function encodedEntry(entry: StaticEntry, acceptEncoding: string | undefined): { headers: string[]; body: Buffer; etag: string } {
  const enc = negotiateEncoding(acceptEncoding);
  const variant = enc && variantOf(entry, { body: entry.body, etag: entry.etag, contentType: entry.contentType }, enc);
  if (!enc || !variant) return { headers: entry.headers, body: entry.body, etag: entry.etag };
  let headers = variantHeaders.get(variant);
  if (!headers) {
    headers = [];
    for (let i = 0; i < entry.headers.length - 2; i += 2) {
      const name = entry.headers[i];
      headers.push(name, name === 'ETag' ? variant.etag : entry.headers[i + 1]);
    }
    headers.push('Content-Encoding', enc, 'Content-Length', String(variant.body.length));
    variantHeaders.set(variant, headers);
  }
  return { headers, body: variant.body, etag: variant.etag };
}

/**
 * If-None-Match's weak comparison, where an encoding's variant ("…-br", "…-gz") stands for the same content
 * as the identity ETag: a cache revalidating its brotli copy of unchanged bytes gets its 304.
 */
function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  const content = (t: string) => t.trim().replace(/^W\//, '').replace(/-(?:br|gz)"$/, '"');
  const mine = content(etag);
  return ifNoneMatch.split(',').some((t) => content(t) === mine);
}

/**
 * A Node request listener prefix: answers from memory and returns true, or returns false to let the
 * framework handle the request.
 * @example const serveStatic = createStaticHandler(() => site); (req, res) => serveStatic(req, res) || hono(req, res)
 */
export function createStaticHandler(getSite: () => StaticSite) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const url = req.url;
    if (!url || url.includes('?')) return false;
    const site = getSite();
    let entries = site.files.get(url);
    if (!entries && url.includes('%')) {
      try {
        entries = site.files.get(decodeURI(url));
      } catch {
        return false;
      }
    }
    if (!entries) return false;
    let entry = pickEntry(entries, req.headers.accept);
    let location: string | null = null;
    if (entry.contentType.startsWith('text/html')) {
      // A page asked for as JSON or Markdown: its twin, from memory too; a twin only the dynamic routes
      // answer (a query string) is a redirect.
      const twin = twinPath(url, req.headers.accept);
      const twinEntry = twin === null ? undefined : site.files.get(twin)?.[0];
      if (twin !== null && !twinEntry) {
        res.writeHead(303, ['Location', twin, 'Vary', 'Accept', 'Cache-Control', 'no-cache']);
        res.end();
        return true;
      }
      if (twinEntry) [entry, location] = [twinEntry, twin];
    }
    const encoded = encodedEntry(entry, req.headers['accept-encoding']);
    const { body, etag } = encoded;
    const headers = location === null ? encoded.headers : twinHeaders(encoded.headers, location);
    const inm = req.headers['if-none-match'];
    if (inm && etagMatches(inm, etag)) {
      res.writeHead(304, headers.slice(0, -2));
      res.end();
      return true;
    }
    res.writeHead(200, headers);
    res.end(method === 'HEAD' ? undefined : body);
    return true;
  };
}

export { etagMatches };
