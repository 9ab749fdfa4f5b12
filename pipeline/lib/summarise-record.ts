// What summarise needs to know of every video, kept between runs: whether it has a summary, and its tags
// (the vocabulary new videos are tagged from). Without it, summarise read the parse cache's parses of every
// video (~375 MB of JSON at 100k videos, 3.3 s, mostly transcripts) to learn that the 50 new ones lack a
// summary; a pipeline chain's later jobs wait for its listing meanwhile. The record is a file under
// $DATA_DIR/cache (summarise-videos.json, ~10 MB at 100k videos), each entry keyed by the file's path and
// the SHA-256 of its bytes: what it says of those bytes is what parsing them says, so an edited,
// added or removed file is seen by its hash (the listing's), and a lost record is made again.
import path from 'node:path';
import fs from 'node:fs';
import type { RawFile, VideoListing } from '../../src/lib/content/files.ts';
import { loadVideosListed } from '../../src/lib/content/load.ts';
import type { Video } from '../../src/lib/content/model.ts';
import { stageFile } from '../../src/lib/fs-atomic.ts';
import { readJsonFile, stringifyAscii } from '../../src/lib/json-file.ts';

/** Bumped when what the record keeps changes: an old record is then ignored (and made again). */
const RECORD_VERSION = 1;

/** What the record says of a video file's bytes: valid, with or without a summary, and its tags; or invalid. */
type Fact = { sha: string; summarised: boolean; tags: string[] } | { sha: string; invalid: true };

/** The record's file in a cache folder. */
export function summariseRecordFile(cacheDir: string): string {
  return path.join(cacheDir, 'summarise-videos.json');
}

/** The record (missing, unreadable or of another version: empty). On disk: `{ version, videos: { [path]: [sha, 0|1, tags] | [sha] } }`. */
function readRecord(file: string): Map<string, Fact> {
  const facts = new Map<string, Fact>();
  try {
    const raw = readJsonFile(file) as { version?: number; videos?: Record<string, [string, number?, string[]?]> };
    if (raw.version !== RECORD_VERSION || !raw.videos || typeof raw.videos !== 'object') return facts;
    for (const [rel, [sha, summarised, tags]] of Object.entries(raw.videos)) {
      facts.set(rel, summarised === undefined ? { sha, invalid: true } : { sha, summarised: summarised === 1, tags: tags ?? [] });
    }
  } catch {
    // missing or unreadable: every video is parsed, and the record written again
  }
  return facts;
}

function writeRecord(file: string, facts: ReadonlyMap<string, Fact>): void {
  const videos: Record<string, [string, number?, string[]?]> = {};
  for (const [rel, f] of facts) videos[rel] = 'invalid' in f ? [f.sha] : [f.sha, f.summarised ? 1 : 0, f.tags];
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Not flushed: a record lost in a crash is made again by the next run.
  stageFile(file, (fd) => fs.writeSync(fd, stringifyAscii({ version: RECORD_VERSION, videos })), { flush: false }).commit();
}

const factKey = (f: Fact | undefined) => (!f ? '' : 'invalid' in f ? f.sha : `${f.sha} ${f.summarised} ${f.tags.join(' ')}`);
const sameFacts = (a: ReadonlyMap<string, Fact>, b: ReadonlyMap<string, Fact>) => a.size === b.size && [...a].every(([rel, f]) => factKey(b.get(rel)) === factKey(f));

export interface ToSummarise {
  /** The valid videos without a summary, newest first (the order of every video listing). */
  todo: Video[];
  /** Every tag a valid video has, sorted. */
  vocabulary: string[];
  /** The video files as listed, with their hashes (loadSnapshot's `videos` for the next job of a chain). */
  listing: VideoListing;
}

/**
 * The videos to summarise and the tag vocabulary, from the record for every file whose bytes it knows and
 * from the file for the others. A video file that fails validation is left out (update-index reports it).
 * When the record knows most files, the others are parsed without the parse cache's parses, which are not
 * read at all; when it knows few (a first run, a lost record), through the parse cache as every load does,
 * so the load after this one parses none of them again.
 */
export function videosToSummarise(contentDir: string, cacheDir: string): ToSummarise {
  const recordFile = summariseRecordFile(cacheDir);
  const record = readRecord(recordFile);
  /** What the record says of the file's bytes, if it knows them. */
  const factOf = (f: RawFile): Fact | undefined => {
    const fact = record.get(f.rel);
    return fact?.sha === f.sha ? fact : undefined;
  };
  const waiting = (f: RawFile) => {
    const fact = factOf(f);
    return !fact || (!('invalid' in fact) && !fact.summarised);
  };
  const { videos, listing, loaded } = loadVideosListed(contentDir, {
    cacheDir,
    lenient: true,
    select: (files) => ({ load: waiting, viaCache: files.filter((f) => !factOf(f)).length * 10 > files.length }),
  });
  const facts = new Map<string, Fact>();
  for (const file of listing.files) {
    const v = loaded.get(file.rel);
    if (v) facts.set(file.rel, { sha: file.sha, summarised: v.summary !== '', tags: v.tags });
    else if (v === null) facts.set(file.rel, { sha: file.sha, invalid: true });
    else facts.set(file.rel, record.get(file.rel)!); // not loaded: the record knows these bytes
  }
  if (!sameFacts(facts, record)) writeRecord(recordFile, facts);
  const vocabulary = new Set<string>();
  for (const f of facts.values()) if (!('invalid' in f)) for (const t of f.tags) vocabulary.add(t);
  return { todo: videos.filter((v) => v.summary === ''), vocabulary: [...vocabulary].sort(), listing };
}
