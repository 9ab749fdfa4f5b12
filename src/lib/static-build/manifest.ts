// dist/site-manifest.json: what a dist/ folder holds and what it was rendered from, so the incremental build
// can tell which files to rewrite. `pages` is each page's model fingerprint (src/lib/pages) and its file;
// `resources` the files written from the read model; `file_count` how many files dist/client holds. (Format
// 1 also recorded every file's hash; the build now compares the few files it recomputes with dist/'s bytes.)
// `renderer` hashes the code and assets that render pages: when it changes, only a full build is safe.
// `inputs` keys each item's documents by the content files they read (inputs.ts); `pieces` says where each
// item's piece lies in /llms-full.txt (pieces.ts).
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../fs-atomic.ts';
import { readJsonFile, stringifyAscii } from '../json-file.ts';
import type { KeyRecord } from './moved-keys.ts';
import type { PieceSpans } from './pieces.ts';

export const SITE_MANIFEST = 'site-manifest.json';
export const SITE_MANIFEST_FORMAT = 2;
/** Formats this code reads: 1 has a `files` record it ignores (code that needs it reads format 1 only). */
const READABLE_FORMATS = new Set([1, SITE_MANIFEST_FORMAT]);

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

export function readSiteManifest(distDir: string): SiteManifest | null {
  try {
    const m = readJsonFile(path.join(distDir, SITE_MANIFEST)) as SiteManifest;
    if (!READABLE_FORMATS.has(m.format)) return null;
    delete (m as { files?: unknown }).files;
    return m;
  } catch {
    return null;
  }
}

export function writeSiteManifest(distDir: string, m: SiteManifest): void {
  writeFileAtomic(path.join(distDir, SITE_MANIFEST), stringifyAscii(m));
}

/** Every file under dir, relative, with forward slashes. */
export function listTree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}
