// The content files a load reads, listed with the SHA-256 of their bytes: one walk of a folder, and with
// a parse cache a stat per file instead of a read when the file's stat key vouches for the hash it had
// (load.ts builds the snapshot from these; parse-cache.ts keeps the keys and the parses).
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { ParseCache } from './parse-cache.ts';

export interface RawFile {
  rel: string;
  /** The file's text: read when first asked for, if the stat key vouched for the hash. */
  readonly text: string;
  /** SHA-256 of the bytes: the parse cache's key. */
  sha: string;
  /** The stat key vouched for the hash (the file was not read to list it). */
  vouched?: boolean;
}

/** Listing order: by path. */
const byRel = (a: RawFile, b: RawFile): number => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0);

/** A file changed between its stat and a later read of its text: the load starts again, reading every file. */
export class ChangedWhileLoading extends Error {}

/** Within this long of a file's last change (mtime or ctime), its stat key does not vouch for its bytes. */
const RACY_NS = 2_000_000_000n;

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Every file under dir (not hidden) whose name ends with ext; one readdir per folder (cheaper than a recursive one). */
export function walk(dir: string, ext: string, out: string[] = []): string[] {
  // dir is normalised (path.join) and entries are plain names: concatenation is path.join without its cost.
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) walk(dir + path.sep + entry.name, ext, out);
    else if (entry.isFile() && entry.name.endsWith(ext) && !entry.name.startsWith('.')) out.push(dir + path.sep + entry.name);
  }
  return out;
}

/**
 * A file whose hash is known, its text read when first asked for: if its bytes no longer have that hash,
 * the load that asked starts again (ChangedWhileLoading).
 */
function fileWithHash(full: string, rel: string, sha: string, vouched: boolean): RawFile {
  let text: string | undefined;
  return {
    rel,
    sha,
    vouched,
    get text() {
      if (text === undefined) {
        const bytes = fs.readFileSync(full);
        if (sha256(bytes) !== sha) throw new ChangedWhileLoading(rel);
        text = bytes.toString('utf8');
      }
      return text;
    },
  };
}

/**
 * The files under dir with their hashes. With a parse cache, a file whose stat key (size, mtime, ctime,
 * inode: a write always moves ctime) is the one recorded when its bytes were hashed is not read, unless
 * its text is asked for (a parse the cache lacks); the stat is taken before the read, and a file changed
 * within the last two seconds (the "racy" window of git's index, for coarse timestamps) is always read.
 */
export function listFiles(root: string, dir: string, ext: string, cache: ParseCache | null): RawFile[] {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  const out: RawFile[] = [];
  const now = BigInt(Date.now()) * 1_000_000n;
  for (const full of walk(abs, ext)) {
    // dir + the rest of the path (cheaper than path.relative, ~0.3 s for 200k files).
    const rest = full.slice(abs.length);
    const rel = dir + (path.sep === '/' ? rest : rest.split(path.sep).join('/'));
    if (!cache) {
      const bytes = fs.readFileSync(full);
      out.push({ rel, text: bytes.toString('utf8'), sha: sha256(bytes) });
      continue;
    }
    const st = fs.statSync(full, { bigint: true });
    const key = `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`;
    const known = cache.shaByStat(rel, key);
    if (known) {
      out.push(fileWithHash(full, rel, known, true));
      continue;
    }
    const bytes = fs.readFileSync(full);
    const sha = sha256(bytes);
    const changed = st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs;
    if (changed < now - RACY_NS) cache.noteStat(rel, sha, key);
    out.push({ rel, text: bytes.toString('utf8'), sha });
  }
  return out.sort(byRel);
}

/**
 * The video files a load listed, each with the SHA-256 of its bytes (loadVideosListed), for a later load in
 * the same process (loadSnapshot's `videos`): in a pipeline chain summarise lists videos/, writes the
 * summaries, and update-index loads the whole corpus; handed the first listing with the files summarise
 * wrote put in (withWrites), the second load does not stat every video again (~1–2 s at 100k videos). A
 * video someone else changes between the two loads reaches the next run, whose walk sees its new stat key,
 * as a change made while no job runs does.
 */
export interface VideoListing {
  readonly contentDir: string;
  readonly files: readonly RawFile[];
}

/**
 * The listing with the files written since it was taken put in: `written` maps a file's path under the
 * content folder (`videos/<id>.md`) to the text written there.
 */
export function withWrites(listing: VideoListing, written: ReadonlyMap<string, string>): VideoListing {
  if (written.size === 0) return listing;
  const files = listing.files.filter((f) => !written.has(f.rel));
  for (const [rel, text] of written) files.push({ rel, text, sha: sha256(Buffer.from(text, 'utf8')) });
  return { contentDir: listing.contentDir, files: files.sort(byRel) };
}

/**
 * A video listing as plain data (each file's path, hash, and whether its stat key vouched for it), to hand
 * to another thread: a pipeline chain's summarise lists videos/ and rebuild-site's thread loads content/
 * from it for update-index and the site (pipeline/lib/site-thread.ts), without walking videos/ again.
 */
export interface PlainVideoListing {
  contentDir: string;
  files: { rel: string; sha: string; vouched: boolean }[];
}

export function plainVideoListing(listing: VideoListing): PlainVideoListing {
  return { contentDir: listing.contentDir, files: listing.files.map((f) => ({ rel: f.rel, sha: f.sha, vouched: f.vouched === true })) };
}

/** The listing again, each file read when its text is first asked for (and checked against its hash). */
export function videoListingFromPlain(plain: PlainVideoListing): VideoListing {
  return { contentDir: plain.contentDir, files: plain.files.map((f) => fileWithHash(path.join(plain.contentDir, f.rel), f.rel, f.sha, f.vouched)) };
}
