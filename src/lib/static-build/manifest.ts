// dist/site-manifest.json: what a dist/ folder holds and what it was rendered from, so the incremental build
// can tell which files to rewrite. `pages` is each page's model fingerprint (src/lib/pages) and its file;
// `resources` the files written from the read model; `file_count` how many files dist/client holds. (Format
// 1 also recorded every file's hash; the build now compares the few files it recomputes with dist/'s bytes.)
// `renderer` hashes the code and assets that render pages: when it changes, only a full build is safe.
// `inputs` keys each item's documents by the content files they read (inputs.ts); `pieces` says where each
// item's piece lies in /llms-full.txt (pieces.ts).
// Format 3 (2026-11-27) adds a delta: an incremental build writes beside the base (site-manifest.json, with an
// `id`) only what changed since it (site-manifest.delta.json, naming the base's id), not the whole record of
// every page, document and item again (79 MB at 100k videos, ~3 s a run). A delta that names another base
// is older than the base and is ignored. Format 3 because code that reads format 2 would read the base
// alone, without the delta, and believe dist/ holds what it held then.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../fs-atomic.ts';
import { applyChange, deltaFits, newBaseId, readJsonFile, recordChange, stringifyAscii, type RecordChange } from '../json-file.ts';
import type { KeyRecord } from './moved-keys.ts';
import type { PieceSpans } from './pieces.ts';

export const SITE_MANIFEST = 'site-manifest.json';
export const SITE_MANIFEST_DELTA = 'site-manifest.delta.json';
export const SITE_MANIFEST_FORMAT = 3;
/**
 * Formats this code reads: 1 has a `files` record it ignores (code that needs it reads format 1 only); 2 has
 * no delta.
 */
const READABLE_FORMATS = new Set([1, 2, SITE_MANIFEST_FORMAT]);

export interface SiteManifest {
  format: number;
  renderer: string;
  base_url: string;
  /** The site chrome every page shows (site name, origin). */
  chrome: string;
  generated_at: string;
  content_hash: string;
  pages: Record<string, { fp: string; file: string }>;
  resources: string[];
  /** How many files dist/client holds (absent in manifests before 2026-11-27: then counted). */
  file_count?: number;
  /** siteInputs() of the build: the input keys below hold only for the same site settings. */
  inputs_site?: string;
  /** Each item's input key (src/lib/static-build/inputs.ts), by group: `video:<id>`, `digest-page:<date>` … */
  inputs?: Record<string, string>;
  /** What the next build needs to tell which of those keys may have moved (moved-keys.ts). */
  key_record?: KeyRecord;
  /** Where each item's piece lies in the documents made of pieces (/llms-full.txt), by file (pieces.ts). */
  pieces?: Record<string, PieceSpans>;
}

export function fileHash(body: string | Uint8Array): string {
  return createHash('sha256').update(body).digest('base64url');
}

export function chromeKey(siteName: string, baseUrl: string): string {
  return fileHash(JSON.stringify([siteName, baseUrl]));
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let rendererCache: string | undefined;

/**
 * The hash of everything that turns a page model into bytes: the Astro pages, layouts and components, the
 * web helpers and the rest of src/, public/, the Astro configuration and the installed Astro version.
 */
export function rendererHash(): string {
  if (rendererCache) return rendererCache;
  const h = createHash('sha256');
  for (const dir of ['src', 'public']) {
    for (const rel of listTree(path.join(ROOT, dir)).sort()) {
      h.update(`${dir}/${rel}`).update('\0').update(fs.readFileSync(path.join(ROOT, dir, rel))).update('\0');
    }
  }
  for (const f of ['astro.config.mjs', 'node_modules/astro/package.json']) {
    const abs = path.join(ROOT, f);
    if (fs.existsSync(abs)) h.update(f).update('\0').update(fs.readFileSync(abs));
  }
  return (rendererCache = h.digest('base64url'));
}

/** A record of the manifest that a delta updates entry by entry (the other fields it holds whole). */
type Entries = Record<string, unknown>;
const RECORDS: { name: string; of: (m: SiteManifest) => Entries | undefined }[] = [
  { name: 'pages', of: (m) => m.pages },
  { name: 'inputs', of: (m) => m.inputs },
  { name: 'key_record.items', of: (m) => m.key_record?.items },
  { name: 'key_record.cites', of: (m) => m.key_record?.cites },
];
/** The fields a delta does not hold whole: RECORDS' and `resources` (a set, whose order is not kept). */
const SPLIT = new Set(['pages', 'inputs', 'key_record', 'resources']);

interface Delta {
  format: number;
  /** The id of the base this delta updates. */
  base: string;
  /** Every other field of the manifest, whole (`pieces`, `generated_at`, …). */
  head: Partial<SiteManifest>;
  records: Record<string, RecordChange<unknown>>;
  resources: { added: string[]; removed: string[] };
}

/** What readSiteManifest read a manifest from: the base's id and the delta applied, if any. */
const origins = new WeakMap<SiteManifest, { id: string; delta: Delta | null }>();

export function readSiteManifest(distDir: string): SiteManifest | null {
  let m: SiteManifest & { id?: string };
  try {
    m = readJsonFile(path.join(distDir, SITE_MANIFEST)) as SiteManifest;
    if (!READABLE_FORMATS.has(m.format)) return null;
  } catch {
    return null;
  }
  delete (m as { files?: unknown }).files;
  const id = typeof m.id === 'string' ? m.id : '';
  delete m.id;
  let delta: Delta | null = null;
  if (id) {
    let d: unknown;
    try {
      d = readJsonFile(path.join(distDir, SITE_MANIFEST_DELTA));
    } catch (err) {
      // None: the base alone. One that cannot be read may be this base's: the base alone would be a record
      // of an older dist/, so there is no manifest (the build is full).
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return null;
    }
    if (d !== undefined) {
      if (!isDelta(d)) return null;
      if (d.base === id) delta = d;
      // else: a delta of an earlier base, which a new base replaced; ignored
    }
  }
  if (delta) {
    Object.assign(m, delta.head);
    for (const { name, of } of RECORDS) {
      const entries = of(m);
      const change = delta.records[name];
      if (entries && change) applyChange(entries, change);
    }
    const gone = new Set(delta.resources.removed);
    m.resources = [...m.resources.filter((rel) => !gone.has(rel)), ...delta.resources.added];
  }
  origins.set(m, { id, delta });
  return m;
}

/** Whether a parsed delta file has the shape this code writes (anything else: no manifest, a full build). */
function isDelta(d: unknown): d is Delta {
  const o = d as Delta;
  const strings = (a: unknown) => Array.isArray(a) && a.every((x) => typeof x === 'string');
  const object = (x: unknown) => !!x && typeof x === 'object' && !Array.isArray(x);
  return (
    object(o) &&
    o.format === SITE_MANIFEST_FORMAT &&
    typeof o.base === 'string' &&
    object(o.head) &&
    object(o.records) &&
    Object.values(o.records).every((r) => object(r) && object(r.set) && strings(r.removed)) &&
    object(o.resources) &&
    strings(o.resources.added) &&
    strings(o.resources.removed)
  );
}

/**
 * Writes the manifest of dist/. Given `prev`, the manifest this build started from (readSiteManifest's),
 * only what changed since the base is written, as the delta, unless that has grown too large (deltaFits:
 * past 1,000 entries and a tenth of all); then, as without `prev`, a new base, and the delta goes.
 */
export function writeSiteManifest(distDir: string, m: SiteManifest, prev?: SiteManifest | null): void {
  const from = prev ? origins.get(prev) : undefined;
  const made = from?.id ? deltaOf(from.id, from.delta, prev!, m) : null;
  if (made) {
    const { delta, entries } = made;
    const size = Object.values(delta.records).reduce((n, r) => n + Object.keys(r.set).length + r.removed.length, 0) + delta.resources.added.length + delta.resources.removed.length;
    if (deltaFits(size, entries)) {
      writeFileAtomic(path.join(distDir, SITE_MANIFEST_DELTA), stringifyAscii(delta));
      return;
    }
  }
  writeFileAtomic(path.join(distDir, SITE_MANIFEST), stringifyAscii({ ...m, format: SITE_MANIFEST_FORMAT, id: newBaseId() }));
  // After the base: a reader between the two finds a delta naming the old base, and ignores it.
  fs.rmSync(path.join(distDir, SITE_MANIFEST_DELTA), { force: true });
}

/**
 * The delta from the base `id` to `m`: the one `prev` was read with (`had`), updated with what changed
 * from `prev` to `m`; and how many entries `m` has (its records' and documents). Null when a record is in
 * one and not the other (a new base is written then).
 */
function deltaOf(id: string, had: Delta | null, prev: SiteManifest, m: SiteManifest): { delta: Delta; entries: number } | null {
  let entries = m.resources.length;
  // A delta sets fields; it cannot take one away (a field of the base that `m` lacks), nor hold parts of
  // key_record other than its two records: then a new base.
  if (Object.keys(prev).some((k) => !(k in m))) return null;
  if (m.key_record && Object.keys(m.key_record).some((k) => k !== 'items' && k !== 'cites')) return null;
  const delta: Delta = { format: SITE_MANIFEST_FORMAT, base: id, head: {}, records: {}, resources: { added: [], removed: [] } };
  for (const [k, v] of Object.entries(m)) if (!SPLIT.has(k)) (delta.head as Record<string, unknown>)[k] = v;
  delta.head.format = SITE_MANIFEST_FORMAT;
  for (const { name, of } of RECORDS) {
    const before = of(prev);
    const after = of(m);
    if (!before !== !after) return null;
    if (!before || !after) continue;
    const r = recordChange(before, after, had?.records[name], same);
    entries += r.entries;
    delta.records[name] = r.change;
  }
  const added = new Set(had?.resources.added);
  const gone = new Set(had?.resources.removed);
  // What is left of the previous documents once this build's are taken out is what went.
  const was = new Set(prev.resources);
  // A file the delta had removed from the base's is the base's again; one it had added is only dropped.
  for (const rel of m.resources) {
    if (was.delete(rel)) continue;
    if (gone.has(rel)) gone.delete(rel);
    else added.add(rel);
  }
  for (const rel of was) {
    if (added.has(rel)) added.delete(rel);
    else gone.add(rel);
  }
  delta.resources = { added: [...added], removed: [...gone] };
  return { delta, entries };
}

/**
 * Whether two entries of a record are the same. They are flat: a string (inputs, items), an object of
 * strings (pages) or an array of strings (cites).
 */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || !a || !b) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  let n = 0;
  for (const k in a) {
    if ((a as Entries)[k] !== (b as Entries)[k]) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}

/** Every file under dir, relative, with forward slashes. */
export function listTree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}
