// Loads content/ into a validated Snapshot. Every problem is collected and reported at once, each with
// the file and the field, so an editor fixes a broken commit in one pass.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import matter from 'gray-matter';
import yaml from 'js-yaml';
import type { z } from 'zod';
import {
  ChannelFront,
  ConceptFront,
  DigestFront,
  EssayFront,
  LANGUAGES,
  PersonaFront,
  SkillFront,
  VideoFront,
  type Lang,
} from './schema.ts';
import type { Channel, Concept, Digest, Essay, EssayTranslation, Persona, Skill, Snapshot, Video } from './model.ts';
import { DigestShapeError, SITE_LINK, markdownLinks, parseDigest } from './markdown.ts';
import { ChangedWhileLoading, listFiles, walk, type RawFile, type VideoListing } from './files.ts';
import { openParseCache, type ParseCache } from './parse-cache.ts';

export class ContentError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`content is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  ${problems.join('\n  ')}`);
    this.problems = problems;
  }
}

/**
 * YAML's core schema: no timestamp type, so `date: 2026-13-45` stays a string and fails validation
 * instead of silently rolling over into 2027. (Passing options also turns off gray-matter's global cache.)
 */
const MATTER_OPTIONS = {
  engines: { yaml: (text: string) => yaml.load(text, { schema: yaml.CORE_SCHEMA }) as object },
};

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

/** A file's front matter checked against its schema, and its body; or the problems, each naming the file and field. */
function parseFront<S extends z.ZodType>(file: RawFile, schema: S): { data: z.infer<S>; body: string } | { problems: string[] } {
  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(file.text, MATTER_OPTIONS);
  } catch (err) {
    return { problems: [`${file.rel}: front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}`] };
  }
  const result = schema.safeParse(parsed.data);
  if (!result.success) return { problems: result.error.issues.map((issue) => `${file.rel}: ${issue.path.join('.') || '(front matter)'}: ${issue.message}`) };
  return { data: result.data, body: parsed.content.replace(/^\s*\n/, '').trimEnd() };
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

/** A video file checked as every load checks it: its front matter, and its id equal to its file name. */
function videoOf(file: RawFile, front: (file: RawFile) => { data: z.infer<typeof VideoFront>; body: string } | { problems: string[] }): Video | { problems: string[] } {
  const r = front(file);
  if ('problems' in r) return r;
  if (r.data.video_id !== path.posix.basename(file.rel, '.md')) return { problems: [`${file.rel}: video_id: must equal the file name`] };
  return { ...r.data, summary: r.data.summary.trim(), transcript: r.body };
}

/** Newest first, then by id: the order of every video listing. */
const byDateThenId = (a: Video, b: Video) => (a.date !== b.date ? (a.date < b.date ? 1 : -1) : a.video_id < b.video_id ? -1 : 1);

/**
 * The videos alone, each checked as loadSnapshot checks it (not against the channels or anything else):
 * what summarising needs, without assembling the rest of the corpus. Saves the parse cache for the videos
 * only (every other file's entry is kept as it is): on a fresh corpus the first job to load, summarise,
 * parses every video file, and the next load (the digest's, the index's) should not parse them again.
 */
export function loadVideos(contentDir: string, opts: LoadOptions = {}): Video[] {
  return loadVideosListed(contentDir, opts).videos;
}

/** loadVideos, and the listing it loaded them from (for loadSnapshot's `videos`). */
export function loadVideosListed(contentDir: string, opts: LoadOptions = {}): { videos: Video[]; listing: VideoListing } {
  const once = (cache: ParseCache | null) => {
    const problems: string[] = [];
    const videos: Video[] = [];
    const files = listFiles(contentDir, 'videos', '.md', cache);
    for (const file of files) {
      const v = videoOf(file, (f) => (cache ? cache.memo(f.rel, f.sha, 'front', () => parseFront(f, VideoFront)) : parseFront(f, VideoFront)));
      if ('problems' in v) problems.push(...v.problems);
      else videos.push(v);
    }
    // Lenient: a video file that fails is left out (the whole load reports it).
    if (problems.length > 0 && !opts.lenient) throw new ContentError(problems);
    cache?.save({ within: 'videos/' });
    return { videos: videos.sort(byDateThenId), listing: { contentDir, files } };
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
  } = {},
): Snapshot {
  const reuse = opts.cacheDir ? { contentDir: path.resolve(contentDir), cacheDir: path.resolve(opts.cacheDir) } : null;
  const videos = opts.videos && path.resolve(opts.videos.contentDir) === path.resolve(contentDir) ? opts.videos.files : undefined;
  try {
    return load(contentDir, opts.cacheDir ? openParseCache(opts.cacheDir) : null, reuse, videos, opts.lenient);
  } catch (err) {
    if (!(err instanceof ChangedWhileLoading)) throw err;
    // A file changed under the load: again, listing and reading (and hashing) every file.
    return load(contentDir, opts.cacheDir ? openParseCache(opts.cacheDir, { statKeys: false }) : null, reuse, undefined, opts.lenient);
  }
}

/** A file a load assembles from: as listed, or (a lenient load) the previous version of one that failed, its parses without its bytes. */
type Listed = RawFile & { previous?: Record<string, unknown> };

/** The listing a load assembles from, by kind. */
type Listing = Record<'channels' | 'videos' | 'essays' | 'digests' | 'knowledge' | 'personas' | 'modelfiles' | 'skills', readonly Listed[]>;

/** A problem a load found, with the file it names. */
interface Problem {
  file: string;
  /** `<file>: <field>: <message>`, as ContentError lists it. */
  line: string;
  /** A reference to an item that is not there (a source, a related concept, a link): the file can be published without it. */
  dangling?: boolean;
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

function load(contentDir: string, cache: ParseCache | null, reuse: { contentDir: string; cacheDir: string } | null, listedVideos?: readonly RawFile[], lenient = false): Snapshot {
  // Every file of the content folder, listed once; a lenient load assembles from it as often as it takes.
  const files: Listing = {
    channels: listFiles(contentDir, 'channels', '.md', cache),
    videos: listedVideos ?? listFiles(contentDir, 'videos', '.md', cache),
    essays: listFiles(contentDir, 'essays', '.md', cache),
    digests: listFiles(contentDir, 'digests', '.md', cache),
    knowledge: listFiles(contentDir, 'knowledge', '.md', cache),
    personas: listFiles(contentDir, 'personas', '.md', cache),
    modelfiles: listFiles(contentDir, 'personas', '.modelfile', cache),
    skills: listFiles(contentDir, 'skills', '.md', cache),
  };
  // Every file's path and hash, as listed: the same listing as the last load's means the same snapshot.
  // A file the stat key could not vouch for (changed within the racy window) was read and hashed above.
  let listing = '';
  if (reuse) {
    const h = createHash('sha256');
    for (const [kind, list] of Object.entries(files)) {
      h.update(kind).update('\0');
      for (const f of list) h.update(f.rel).update('\0').update(f.sha).update('\0');
    }
    listing = h.digest('hex');
    // Kept only while the parse cache holds every file's parse too: a cache lost or replaced meanwhile is
    // made again by a whole load, as without a kept snapshot. A strict load never takes a lenient one's
    // snapshot that left files out.
    const same = lastLoad && lastLoad.listing === listing && lastLoad.contentDir === reuse.contentDir && lastLoad.cacheDir === reuse.cacheDir;
    if (same && (lenient || lastLoad!.snapshot.invalid.length === 0) && cache && Object.values(files).every((list) => list.every((f) => f.vouched || cache.knows(f.rel, f.sha)))) {
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
  } else {
    // A file that fails is replaced by its last published version (the parse cache keeps it) when the file
    // changed since; one without another version whose only problems are references to items that are not
    // there (it cites a video that was deleted) is published without them; any other is left out. Then the
    // rest is assembled again (what is left out is missing to those that cite it), until nothing fails:
    // what failed is reported, everything else is published.
    const replaced = new Map<string, Listed | null>();
    const withoutMissing = new Set<string>();
    const reasons = new Map<string, string[]>();
    const previousOf = (file: Listed): Listed | null => {
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
    };
    const byRel = new Map(Object.values(files).flatMap((list) => list.map((f) => [f.rel, f] as const)));
    for (;;) {
      used = Object.fromEntries(
        Object.entries(files).map(([kind, list]) => [kind, replaced.size ? list.flatMap((f) => (replaced.has(f.rel) ? (replaced.get(f.rel) ? [replaced.get(f.rel)!] : []) : [f])) : list]),
      ) as Listing;
      const r = assemble(used, cache, withoutMissing);
      if (r.problems.length === 0) {
        snapshot = r.snapshot;
        break;
      }
      const failing = new Map<string, { why: string[]; dangling: boolean }>();
      for (const p of r.problems) {
        const reason = p.line.startsWith(`${p.file}: `) ? p.line.slice(p.file.length + 2) : p.line;
        const f = failing.get(p.file) ?? { why: [], dangling: true };
        f.why.push(reason);
        f.dangling &&= p.dangling === true;
        failing.set(p.file, f);
      }
      for (const [file, { why, dangling }] of failing) {
        if (!reasons.has(file)) reasons.set(file, why);
        const now = replaced.get(file);
        const previous = now === undefined && byRel.has(file) ? previousOf(byRel.get(file)!) : null;
        if (previous) replaced.set(file, previous);
        else if (dangling && !withoutMissing.has(file) && now !== null) withoutMissing.add(file);
        else if (now !== null) replaced.set(file, null);
        else throw new ContentError(r.problems.map((p) => p.line)); // a file left out reports nothing: never reached
      }
    }
    snapshot.invalid = [...reasons.keys()]
      .sort()
      .map((path) => ({ path, reasons: reasons.get(path)!, served: replaced.get(path) ? 'previous' : replaced.has(path) ? 'none' : 'current' }));
  }
  // The files published as they are become the versions a later bad edit of them falls back to.
  if (cache) for (const list of Object.values(used)) for (const f of list) if (!f.previous) cache.published(f.rel, f.sha);
  cache?.save();
  if (reuse) lastLoad = { ...reuse, listing, snapshot };
  return snapshot;
}

/** The snapshot of one listing, or the problems that keep it from being one (each naming its file). */
function assemble(files: Listing, cache: ParseCache | null, withoutMissing: ReadonlySet<string> = new Set()): { snapshot: Snapshot; problems: Problem[] } {
  const problems: Problem[] = [];
  const problem = (rel: string, what: string) => problems.push({ file: rel, line: `${rel}: ${what}` });
  /**
   * A reference to an item that is not there: a problem, unless the lenient load publishes this file without
   * its references to missing items (`withoutMissing`): then false, and the caller leaves the reference out.
   */
  const missing = (rel: string, what: string): boolean => {
    if (withoutMissing.has(rel)) return false;
    problems.push({ file: rel, line: `${rel}: ${what}`, dangling: true });
    return true;
  };
  /** The content hash: every file's path and SHA-256, in load order. */
  const hash = createHash('sha256');
  /** What parsing this file's bytes gives: a previous version's kept parse, from the cache when it has it, or computed. */
  const memo = <T>(file: Listed, kind: string, compute: () => T): T => {
    if (file.previous) {
      if (!(kind in file.previous)) throw new Error(`${file.rel}: the previous version has no ${kind}`); // usableVersion checked
      return file.previous[kind] as T;
    }
    return cache ? cache.memo(file.rel, file.sha, kind, compute) : compute();
  };
  const fileOf = new Map<string, Listed>();
  const itemHashes = new Map<string, string>();
  /** A file's hash as the item's: marked when it is published without its references to missing items, which then move its key. */
  const itemSha = (file: Listed) => (withoutMissing.has(file.rel) ? `${file.sha}-without-missing` : file.sha);

  function front<S extends z.ZodType>(file: Listed, schema: S): { data: z.infer<S>; body: string } | null {
    hash.update(file.rel).update('\0').update(itemSha(file)).update('\0');
    fileOf.set(file.rel, file);
    const r = memo(file, 'front', () => parseFront(file, schema));
    if ('problems' in r) {
      for (const line of r.problems) problems.push({ file: file.rel, line });
      return null;
    }
    return r;
  }

  const baseName = (rel: string, ext: string) => path.posix.basename(rel, ext);
  // Ids whose file exists, valid or not: references are checked against these, so one broken file is
  // reported once rather than again by everything that links to it.
  const idsIn = (list: readonly RawFile[], pick: (rel: string) => string) => new Set(list.map((f) => pick(f.rel)));
  const fileId = (r: string) => baseName(r, '.md');
  const folderId = (r: string) => r.split('/')[1];
  const present = {
    channels: idsIn(files.channels, fileId),
    videos: idsIn(files.videos, fileId),
    essays: idsIn(files.essays, folderId),
    digests: idsIn(files.digests, fileId),
    knowledge: idsIn(files.knowledge, fileId),
    personas: idsIn(files.personas, folderId),
  };

  // Channels
  const channels: Channel[] = [];
  for (const file of files.channels) {
    const r = front(file, ChannelFront);
    if (!r) continue;
    if (r.data.channel_id !== baseName(file.rel, '.md')) {
      problem(file.rel, 'channel_id: must equal the file name');
      continue;
    }
    channels.push({ ...r.data, body: r.body });
    itemHashes.set(`channel:${r.data.channel_id}`, file.sha);
  }
  const channelsById = new Map(channels.map((c) => [c.channel_id, c]));

  // Videos
  const videos: Video[] = [];
  for (const file of files.videos) {
    const v = videoOf(file, (f) => front(f, VideoFront) ?? { problems: [] });
    if ('problems' in v) {
      for (const line of v.problems) problems.push({ file: file.rel, line });
      continue;
    }
    if (!present.channels.has(v.channel)) problem(file.rel, `channel: unknown channel "${v.channel}"`);
    videos.push(v);
    itemHashes.set(`video:${v.video_id}`, file.sha);
  }
  videos.sort(byDateThenId);
  const videosById = new Map(videos.map((v) => [v.video_id, v]));
  const videosByChannel = new Map<string, Video[]>(channels.map((c) => [c.channel_id, []]));
  for (const v of videos) videosByChannel.get(v.channel)?.push(v);

  // Essays: essays/<slug>/<lang>.md
  const essayParts = new Map<string, Partial<Record<Lang, EssayTranslation>>>();
  const essayBodies: { rel: string; body: string }[] = [];
  for (const file of files.essays) {
    const parts = file.rel.split('/');
    const lang = baseName(file.rel, '.md');
    if (parts.length !== 3 || !(LANGUAGES as readonly string[]).includes(lang)) {
      problem(file.rel, `essays live at essays/<slug>/<lang>.md with lang one of ${LANGUAGES.join(', ')}`);
      continue;
    }
    const slug = parts[1];
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug)) {
      problem(file.rel, 'slug: the folder name must be lower-case kebab-case');
      continue;
    }
    const r = front(file, EssayFront);
    if (!r) continue;
    let data = r.data;
    if (data.video && !present.videos.has(data.video) && !missing(file.rel, `video: unknown video "${data.video}"`)) {
      const { video: _gone, ...rest } = data;
      data = rest;
    }
    const entry = essayParts.get(slug) ?? {};
    entry[lang as Lang] = { ...data, lang: lang as Lang, body: r.body };
    essayParts.set(slug, entry);
    essayBodies.push({ rel: file.rel, body: r.body });
    const known = itemHashes.get(`essay:${slug}`);
    itemHashes.set(`essay:${slug}`, known ? `${known},${itemSha(file)}` : itemSha(file));
  }
  const essays: Essay[] = [...essayParts].map(([slug, translations]) => {
    const languages = LANGUAGES.filter((l) => translations[l]);
    return { slug, primary: translations.en ? 'en' : languages[0], languages, translations };
  });
  const essayDate = (e: Essay) => e.translations[e.primary]!.date;
  essays.sort((a, b) => (essayDate(a) !== essayDate(b) ? (essayDate(a) < essayDate(b) ? 1 : -1) : a.slug < b.slug ? -1 : 1));
  const essaysBySlug = new Map(essays.map((e) => [e.slug, e]));

  // Digests
  const digests: Digest[] = [];
  for (const file of files.digests) {
    const r = front(file, DigestFront);
    if (!r) continue;
    if (r.data.date !== baseName(file.rel, '.md')) {
      problem(file.rel, 'date: must equal the file name');
      continue;
    }
    const parsed = memo(file, 'digest', (): { digest: Digest } | { error: string } => {
      try {
        return { digest: parseDigest(r.data.date, r.body) };
      } catch (err) {
        if (!(err instanceof DigestShapeError)) throw err;
        return { error: err.message };
      }
    });
    if ('error' in parsed) {
      problem(file.rel, `body: ${parsed.error}`);
      continue;
    }
    let digest = parsed.digest;
    let gone = false;
    for (const item of digest.items) {
      for (const s of item.sources) {
        if (!present.videos.has(s.video_id) && !missing(file.rel, `item ${item.number}: unknown video "${s.video_id}"`)) gone = true;
      }
    }
    // Published without its sources that are gone (a copy: the parse is the cache's).
    if (gone) digest = { ...digest, items: digest.items.map((i) => ({ ...i, sources: i.sources.filter((s) => present.videos.has(s.video_id)) })) };
    digests.push(digest);
    itemHashes.set(`digest:${digest.date}`, itemSha(file));
  }
  digests.sort((a, b) => (a.date < b.date ? 1 : -1));
  const digestsByDate = new Map(digests.map((d) => [d.date, d]));

  // Knowledge concepts
  const concepts: Concept[] = [];
  for (const file of files.knowledge) {
    const slug = baseName(file.rel, '.md');
    if (file.rel.split('/').length !== 2 || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug)) {
      problem(file.rel, 'knowledge concepts live at knowledge/<slug>.md with a kebab-case slug');
      continue;
    }
    const r = front(file, ConceptFront);
    if (!r) continue;
    concepts.push({ ...r.data, slug, body: r.body });
    itemHashes.set(`concept:${slug}`, itemSha(file));
  }
  concepts.sort((a, b) => a.title.localeCompare(b.title, 'en') || (a.slug < b.slug ? -1 : 1));
  const conceptsBySlug = new Map(concepts.map((c) => [c.slug, c]));

  // Personas: personas/<id>/persona.md and personas/<id>/modelfiles/<mode>.<lang>.modelfile
  const personas: Persona[] = [];
  const modelfiles = files.modelfiles;
  for (const file of files.personas) {
    const parts = file.rel.split('/');
    if (parts.length !== 3 || parts[2] !== 'persona.md') {
      problem(file.rel, 'personas live at personas/<persona_id>/persona.md');
      continue;
    }
    const personaId = parts[1];
    const r = front(file, PersonaFront);
    if (!r) continue;
    const files = new Map<string, string>();
    for (const mf of modelfiles) {
      const m = new RegExp(`^personas/${personaId}/modelfiles/([a-z0-9-]+)\\.([a-z]{2})\\.modelfile$`).exec(mf.rel);
      if (m) files.set(`${m[1]}/${m[2]}`, memo(mf, 'text', () => mf.text));
    }
    for (const mode of r.data.modes) {
      for (const lang of r.data.languages) {
        const text = files.get(`${mode}/${lang}`);
        if (text === undefined) problem(file.rel, `modes: missing modelfiles/${mode}.${lang}.modelfile`);
        else if (!/^FROM\s+\S+/m.test(text) || !/^SYSTEM\s/m.test(text)) {
          problem(`personas/${personaId}/modelfiles/${mode}.${lang}.modelfile`, 'needs a FROM line and a SYSTEM prompt');
        }
      }
    }
    personas.push({ ...r.data, persona_id: personaId, body: r.body, modelfiles: files });
    itemHashes.set(`persona:${personaId}`, file.sha);
  }
  for (const mf of modelfiles) hash.update(mf.rel).update('\0').update(mf.sha).update('\0');
  personas.sort((a, b) => (a.persona_id < b.persona_id ? -1 : 1));
  const personasById = new Map(personas.map((p) => [p.persona_id, p]));

  // Skills
  const skills: Skill[] = [];
  for (const file of files.skills) {
    const r = front(file, SkillFront);
    if (!r) continue;
    if (r.data.name !== baseName(file.rel, '.md')) {
      problem(file.rel, 'name: must equal the file name');
      continue;
    }
    skills.push({ ...r.data, body: r.body, source: memo(file, 'text', () => file.text) });
  }
  const skillsByName = new Map(skills.map((s) => [s.name, s]));

  // Cross-references that need every collection loaded.
  const exists = (kind: string, id: string): boolean => present[kind as keyof typeof present]?.has(id) ?? false;
  // A link to nothing is only a dead link in the text: published without the reference, it stays as written.
  const checkLinks = (rel: string, body: string) => {
    for (const url of memo(fileOf.get(rel)!, 'links', () => markdownLinks(body))) {
      const m = SITE_LINK.exec(url);
      if (m && !exists(m[1], m[2])) missing(rel, `body: link ${url} points at nothing`);
    }
  };
  const knownSource = (s: Concept['sources'][number]) =>
    (s.type !== 'video' || present.videos.has(s.id)) && (s.type !== 'essay' || present.essays.has(s.id)) && (s.type !== 'digest' || present.digests.has(s.id));
  for (const c of concepts) {
    const rel = `knowledge/${c.slug}.md`;
    let gone = false;
    for (const s of c.sources) if (!knownSource(s) && !missing(rel, `sources: unknown ${s.type} "${'id' in s ? s.id : ''}"`)) gone = true;
    for (const r of c.related) {
      if (!present.knowledge.has(r) && !missing(rel, `related: unknown concept "${r}"`)) gone = true;
      if (r === c.slug) problem(rel, 'related: a concept cannot relate to itself');
    }
    // Published without its references to what is gone (the concept object is this load's own).
    if (gone) Object.assign(c, { sources: c.sources.filter(knownSource), related: c.related.filter((r) => present.knowledge.has(r)) });
    checkLinks(rel, c.body);
  }
  for (const e of essayBodies) checkLinks(e.rel, e.body);

  // Back-references, so a video read does not scan every digest and concept.
  const digestsByVideo = new Map<string, Digest[]>();
  for (const d of digests) {
    for (const id of new Set(d.items.flatMap((i) => i.sources.map((s) => s.video_id)))) {
      digestsByVideo.set(id, [...(digestsByVideo.get(id) ?? []), d]);
    }
  }
  const conceptsByVideo = new Map<string, Concept[]>();
  for (const c of concepts) {
    if (c.draft) continue;
    for (const id of new Set(c.sources.flatMap((s) => (s.type === 'video' ? [s.id] : [])))) {
      conceptsByVideo.set(id, [...(conceptsByVideo.get(id) ?? []), c]);
    }
  }
  const snapshot: Snapshot = {
    digestsByVideo,
    conceptsByVideo,
    channels,
    channelsById,
    videos,
    videosById,
    videosByChannel,
    essays,
    essaysBySlug,
    digests,
    digestsByDate,
    concepts,
    conceptsBySlug,
    personas,
    personasById,
    skills,
    skillsByName,
    contentHash: hash.digest('hex'),
    itemHashes,
    invalid: [],
  };
  return { snapshot, problems };
}
