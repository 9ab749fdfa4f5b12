// Loads content/ into a validated Snapshot. Every problem is collected and reported at once, each with
// the file and the field, so an editor fixes a broken commit in one pass. The files are listed here, and a
// load made of the same files as the last one returns its snapshot; assemble.ts builds a snapshot from them.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ChannelFront, VideoFront } from './schema.ts';
import type { Channel, Snapshot, Video } from './model.ts';
import { ChangedWhileLoading, listFiles, walk, type RawFile, type VideoListing } from './files.ts';
import { openParseCache, type ParseCache } from './parse-cache.ts';
import { assemble, byDateThenId, parseFront, videoOf, type Listed, type Listing, type Problem } from './assemble.ts';

export class ContentError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`content is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  ${problems.join('\n  ')}`);
    this.problems = problems;
  }
}

export interface LoadOptions {
  /**
   * A folder for the parse cache (the pipeline's is `$DATA_DIR/cache`): files whose bytes were parsed
   * before are not parsed again. The snapshot is the same with or without it.
   */
  cacheDir?: string;
  /**
   * A file that fails validation does not fail the load: it is reported in the snapshot's `invalid`, and
   * the snapshot holds the file's last published version instead (kept in the parse cache: the version a
   * lenient load last published as it was), or leaves it out when there is none. What the server, `npm
   * start` and the pipeline load: content an editor gets wrong never takes the site down. Without it the
   * load throws a ContentError listing every problem (`npm run build`, the content checks).
   */
  lenient?: boolean;
}

/**
 * What ingesting needs, without loading the rest: the channels (checked as loadSnapshot checks them, in
 * the same order) and the ids of the video files present. A few hundred files instead of the whole corpus.
 */
export function loadChannels(contentDir: string, opts: Pick<LoadOptions, 'lenient'> = {}): { channels: Channel[]; channelsById: Map<string, Channel>; videoIds: Set<string>; problems: string[] } {
  const problems: string[] = [];
  const channels: Channel[] = [];
  for (const file of listFiles(contentDir, 'channels', '.md', null)) {
    const r = parseFront(file, ChannelFront);
    if ('problems' in r) {
      problems.push(...r.problems);
      continue;
    }
    if (r.data.channel_id !== path.posix.basename(file.rel, '.md')) {
      problems.push(`${file.rel}: channel_id: must equal the file name`);
      continue;
    }
    channels.push({ ...r.data, body: r.body });
  }
  // Lenient: a channel file that fails is skipped (its feed is not read this time), and reported.
  if (problems.length > 0 && !opts.lenient) throw new ContentError(problems);
  const videos = path.join(contentDir, 'videos');
  const videoIds = new Set(fs.existsSync(videos) ? walk(videos, '.md').map((f) => path.basename(f, '.md')) : []);
  return { channels, channelsById: new Map(channels.map((c) => [c.channel_id, c])), videoIds, problems };
}

/**
 * The videos alone, each checked as loadSnapshot checks it (not against the channels or anything else):
 * what summarising needs, without assembling the rest of the corpus. Saves the parse cache for the videos
 * only (every other file's entry is kept as it is): on a fresh corpus the first job to load, summarise,
 * parses every video file, and the next load (the digest's, the index's) should not parse them again.
 */
export function loadVideos(contentDir: string, opts: LoadOptions = {}): Video[] {
  return loadVideosListed(contentDir, opts).videos;
}

/** Which of the listed video files a load of the videos loads, and how (loadVideosListed's `select`). */
export interface VideoSelection {
  /** True for a file to load; the others are listed only (neither read nor parsed). */
  load: (file: RawFile) => boolean;
  /** false: parsed from the files, the parse cache's parses not read at all (a few files out of many). */
  viaCache: boolean;
}

/** loadVideos, the listing it loaded them from (for loadSnapshot's `videos`), and by path each file it loaded: its video, or null when it failed validation. */
export function loadVideosListed(
  contentDir: string,
  opts: LoadOptions & {
    /** Chooses, once the files are listed, which to load (default: all, through the parse cache). */
    select?: (files: readonly RawFile[]) => VideoSelection;
  } = {},
): { videos: Video[]; listing: VideoListing; loaded: ReadonlyMap<string, Video | null> } {
  const once = (cache: ParseCache | null) => {
    const problems: string[] = [];
    const videos: Video[] = [];
    const loaded = new Map<string, Video | null>();
    const files = listFiles(contentDir, 'videos', '.md', cache);
    const { load, viaCache } = opts.select?.(files) ?? { load: () => true, viaCache: true };
    const front = (f: RawFile) => (cache && viaCache ? cache.memo(f.rel, f.sha, 'front', () => parseFront(f, VideoFront)) : parseFront(f, VideoFront));
    for (const file of files) {
      if (!load(file)) continue;
      const v = videoOf(file, front);
      loaded.set(file.rel, 'problems' in v ? null : v);
      if ('problems' in v) problems.push(...v.problems);
      else videos.push(v);
    }
    // Lenient: a video file that fails is left out (the whole load reports it).
    if (problems.length > 0 && !opts.lenient) throw new ContentError(problems);
    cache?.save({ within: 'videos/' });
    return { videos: videos.sort(byDateThenId), listing: { contentDir, files }, loaded };
  };
  try {
    return once(opts.cacheDir ? openParseCache(opts.cacheDir) : null);
  } catch (err) {
    if (!(err instanceof ChangedWhileLoading)) throw err;
    return once(opts.cacheDir ? openParseCache(opts.cacheDir, { statKeys: false }) : null);
  }
}

/**
 * The last snapshot this process loaded with a parse cache, and the files it was made from (each file's
 * path and SHA-256, in listing order). A load that lists the same files with the same hashes returns it
 * as it is: the jobs of one run's chain (update-index, then rebuild-site) and a server reloading after a
 * build that changed no content then pay the stat walk only (~1.5 s at 100k videos, not ~7 s). Snapshots
 * are never modified after their load, which is what makes sharing one sound (and the per-snapshot indexes
 * of the read model, kept in WeakMaps, carry over with it). One is kept, not one per folder.
 */
let lastLoad: { contentDir: string; cacheDir: string; listing: string; snapshot: Snapshot } | null = null;

/** Forgets the snapshot kept by the last load (tests that compare a fresh load with a kept one). */
export function forgetLastSnapshot(): void {
  lastLoad = null;
}

export function loadSnapshot(
  contentDir: string,
  opts: LoadOptions & {
    /** The video files as an earlier load in this process listed them (and the files written since): videos/ is not walked again. */
    videos?: VideoListing;
    /** Called once the files are listed, before they are assembled (the tests change a file there). */
    onListed?: () => void;
  } = {},
): Snapshot {
  const reuse = opts.cacheDir ? { contentDir: path.resolve(contentDir), cacheDir: path.resolve(opts.cacheDir) } : null;
  const same = (dir: string) => path.resolve(dir) === path.resolve(contentDir);
  const videos = opts.videos && same(opts.videos.contentDir) ? opts.videos.files : undefined;
  const cache = (statKeys?: boolean): ParseCache | null => (opts.cacheDir ? openParseCache(opts.cacheDir, { statKeys }) : null);
  try {
    return load(contentDir, cache(), reuse, { videos, onListed: opts.onListed }, opts.lenient);
  } catch (err) {
    if (!(err instanceof ChangedWhileLoading)) throw err;
    // A file changed under the load: again, listing and reading (and hashing) every file.
    return load(contentDir, cache(false), reuse, {}, opts.lenient);
  }
}

/** Whether a previous version's parses are all a load needs to assemble its item without the file's bytes. */
function usableVersion(rel: string, values: Record<string, unknown>): boolean {
  if (rel.endsWith('.modelfile')) return 'text' in values;
  const needs = ['front', ...(rel.startsWith('digests/') ? ['digest'] : []), ...(rel.startsWith('essays/') || rel.startsWith('knowledge/') ? ['links'] : []), ...(rel.startsWith('skills/') ? ['text'] : [])];
  if (!needs.every((k) => k in values)) return false;
  const front = values.front as object | null;
  const digest = values.digest as object | null | undefined;
  return !!front && !('problems' in front) && (digest === undefined || (!!digest && !('error' in digest)));
}

/** Every file of the content folder, listed once; a lenient load assembles from it as often as it takes. */
function listContent(contentDir: string, cache: ParseCache | null, listedVideos?: readonly RawFile[]): Listing {
  return {
    channels: listFiles(contentDir, 'channels', '.md', cache),
    videos: listedVideos ?? listFiles(contentDir, 'videos', '.md', cache),
    essays: listFiles(contentDir, 'essays', '.md', cache),
    digests: listFiles(contentDir, 'digests', '.md', cache),
    knowledge: listFiles(contentDir, 'knowledge', '.md', cache),
    personas: listFiles(contentDir, 'personas', '.md', cache),
    modelfiles: listFiles(contentDir, 'personas', '.modelfile', cache),
    skills: listFiles(contentDir, 'skills', '.md', cache),
  };
}

/**
 * Every file's path and hash, as listed: the same listing as the last load's means the same snapshot. A file
 * the stat key could not vouch for (changed within the racy window) was read and hashed by the listing.
 */
function listingHash(files: Listing): string {
  const h = createHash('sha256');
  for (const [kind, list] of Object.entries(files)) {
    h.update(kind).update('\0');
    for (const f of list) h.update(f.rel).update('\0').update(f.sha).update('\0');
  }
  return h.digest('hex');
}

/** What a load may be handed: the videos listed before; and who to tell once it has listed. */
interface Given {
  videos?: readonly RawFile[];
  onListed?: () => void;
}

function load(contentDir: string, cache: ParseCache | null, reuse: { contentDir: string; cacheDir: string } | null, given: Given, lenient = false): Snapshot {
  const files = listContent(contentDir, cache, given.videos);
  given.onListed?.();
  let listing = '';
  if (reuse) {
    listing = listingHash(files);
    // Kept only while the parse cache holds every file's parse too: a cache lost or replaced meanwhile is
    // made again by a whole load, as without a kept snapshot. A strict load never takes a lenient one's
    // snapshot that left files out.
    const same = lastLoad && lastLoad.listing === listing && lastLoad.contentDir === reuse.contentDir && lastLoad.cacheDir === reuse.cacheDir;
    // A file whose stat key vouched for it is kept at the save without reading the parses; any other must
    // have its parse in the cache.
    const kept = (f: RawFile) => (f.vouched ? (cache!.keep(f.rel), true) : cache!.knows(f.rel, f.sha));
    if (same && (lenient || lastLoad!.snapshot.invalid.length === 0) && cache && Object.values(files).every((list) => list.every(kept))) {
      cache.save(); // the stat keys of files read this time, so the next load need not read them
      return lastLoad!.snapshot;
    }
  }
  let snapshot: Snapshot;
  let used = files;
  if (!lenient) {
    const r = assemble(files, cache);
    // What was parsed is kept whether or not the content is valid: fixing one file re-parses that file only.
    if (r.problems.length > 0) {
      cache?.save();
      throw new ContentError(r.problems.map((p) => p.line));
    }
    snapshot = r.snapshot;
  } else ({ snapshot, used } = assembleLenient(files, cache));
  // The files published as they are become the versions a later bad edit of them falls back to.
  if (cache) for (const list of Object.values(used)) for (const f of list) if (!f.previous) cache.published(f.rel, f.sha);
  cache?.save();
  if (reuse) lastLoad = { ...reuse, listing, snapshot };
  return snapshot;
}

/**
 * A lenient load's snapshot, and the listing it was assembled from. A file that fails is replaced by its
 * last published version (the parse cache keeps it) when the file changed since; one without another
 * version whose only problems are references to items that are not there (it cites a video that was
 * deleted) is published without them; any other is left out. Then the rest is assembled again (what is
 * left out is missing to those that cite it), until nothing fails: what failed is reported in the
 * snapshot's `invalid`, everything else is published.
 */
function assembleLenient(files: Listing, cache: ParseCache | null): { snapshot: Snapshot; used: Listing } {
  const replaced = new Map<string, Listed | null>();
  const withoutMissing = new Set<string>();
  const reasons = new Map<string, string[]>();
  const byRel = new Map(Object.values(files).flatMap((list) => list.map((f) => [f.rel, f] as const)));
  for (;;) {
    const used = Object.fromEntries(
      Object.entries(files).map(([kind, list]) => [kind, replaced.size ? list.flatMap((f) => (replaced.has(f.rel) ? (replaced.get(f.rel) ? [replaced.get(f.rel)!] : []) : [f])) : list]),
    ) as Listing;
    const r = assemble(used, cache, withoutMissing);
    if (r.problems.length === 0) {
      r.snapshot.invalid = [...reasons.keys()]
        .sort()
        .map((path) => ({ path, reasons: reasons.get(path)!, served: replaced.get(path) ? 'previous' : replaced.has(path) ? 'none' : 'current' }));
      return { snapshot: r.snapshot, used };
    }
    for (const [file, { why, dangling }] of failingFiles(r.problems)) {
      if (!reasons.has(file)) reasons.set(file, why);
      const now = replaced.get(file);
      const previous = now === undefined && byRel.has(file) ? previousOf(byRel.get(file)!, cache) : null;
      if (previous) replaced.set(file, previous);
      else if (dangling && !withoutMissing.has(file) && now !== null) withoutMissing.add(file);
      else if (now !== null) replaced.set(file, null);
      else throw new ContentError(r.problems.map((p) => p.line)); // a file left out reports nothing: never reached
    }
  }
}

/** The problems of one assembly by file: the reasons, and whether every one is a reference to a missing item. */
function failingFiles(problems: readonly Problem[]): Map<string, { why: string[]; dangling: boolean }> {
  const failing = new Map<string, { why: string[]; dangling: boolean }>();
  for (const p of problems) {
    const reason = p.line.startsWith(`${p.file}: `) ? p.line.slice(p.file.length + 2) : p.line;
    const f = failing.get(p.file) ?? { why: [], dangling: true };
    f.why.push(reason);
    f.dangling &&= p.dangling === true;
    failing.set(p.file, f);
  }
  return failing;
}

/** The last published version of a file that fails, when the parse cache keeps one the assembly can use, as a file to assemble from. */
function previousOf(file: Listed, cache: ParseCache | null): Listed | null {
  const v = cache?.previousVersion(file.rel);
  if (!v || v.sha === file.sha || !usableVersion(file.rel, v.values)) return null;
  return {
    rel: file.rel,
    sha: v.sha,
    previous: v.values,
    get text(): string {
      throw new Error(`${file.rel}: the previous version's bytes are not kept`);
    },
  };
}
