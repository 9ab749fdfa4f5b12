// Assembles a Snapshot from a listing of content files, one step per kind (channels, videos, essays,
// digests, knowledge concepts, personas, skills), then the references that need every kind loaded and
// the back-references the reads use. load.ts lists the files and decides what to assemble from (a
// lenient load assembles again without the files that fail); every problem is collected here, each with
// the file and the field.
import path from 'node:path';
import { createHash, hash, type Hash } from 'node:crypto';
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
import type { RawFile } from './files.ts';
import type { ParseCache } from './parse-cache.ts';

/**
 * YAML's core schema: no timestamp type, so `date: 2026-13-45` stays a string and fails validation
 * instead of silently rolling over into 2027. (Passing options also turns off gray-matter's global cache.)
 */
const MATTER_OPTIONS = {
  engines: { yaml: (text: string) => yaml.load(text, { schema: yaml.CORE_SCHEMA }) as object },
};

/** A file's front matter checked against its schema, and its body; or the problems, each naming the file and field. */
export function parseFront<S extends z.ZodType>(file: RawFile, schema: S): { data: z.infer<S>; body: string } | { problems: string[] } {
  // Read outside the try: a file changed since it was listed throws ChangedWhileLoading, which starts the
  // load again, and is no YAML error of the file's.
  const text = file.text;
  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(text, MATTER_OPTIONS);
  } catch (err) {
    return { problems: [`${file.rel}: front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}`] };
  }
  const result = schema.safeParse(parsed.data);
  if (!result.success) return { problems: result.error.issues.map((issue) => `${file.rel}: ${issue.path.join('.') || '(front matter)'}: ${issue.message}`) };
  return { data: result.data, body: parsed.content.replace(/^\s*\n/, '').trimEnd() };
}

/** A video file checked as every load checks it: its front matter, and its id equal to its file name. */
export function videoOf(file: RawFile, front: (file: RawFile) => { data: z.infer<typeof VideoFront>; body: string } | { problems: string[] }): Video | { problems: string[] } {
  const r = front(file);
  if ('problems' in r) return r;
  if (r.data.video_id !== path.posix.basename(file.rel, '.md')) return { problems: [`${file.rel}: video_id: must equal the file name`] };
  return { ...r.data, summary: r.data.summary.trim(), transcript: r.body };
}

/** Newest first, then by id: the order of every video listing. */
export const byDateThenId = (a: Video, b: Video) => (a.date !== b.date ? (a.date < b.date ? 1 : -1) : a.video_id < b.video_id ? -1 : 1);

/** A file a load assembles from: as listed, or (a lenient load) the previous version of one that failed, its parses without its bytes. */
export type Listed = RawFile & { previous?: Record<string, unknown> };

/** The listing a load assembles from, by kind. */
export type Listing = Record<'channels' | 'videos' | 'essays' | 'digests' | 'knowledge' | 'personas' | 'modelfiles' | 'skills', readonly Listed[]>;

/** A problem a load found, with the file it names. */
export interface Problem {
  file: string;
  /** `<file>: <field>: <message>`, as ContentError lists it. */
  line: string;
  /** A reference to an item that is not there (a source, a related concept, a link): the file can be published without it. */
  dangling?: boolean;
}

type FrontOf = <S extends z.ZodType>(file: Listed, schema: S) => { data: z.infer<S>; body: string } | null;

/** The ids whose file exists, by kind. */
type Present = Record<'channels' | 'videos' | 'essays' | 'digests' | 'knowledge' | 'personas', Set<string>>;

/** What every step of one assembly shares: the listing, the problems found, the hashes and the parses. */
interface Assembly {
  files: Listing;
  problems: Problem[];
  /** A problem of the file `rel`. */
  problem: (rel: string, what: string) => void;
  /**
   * A reference to an item that is not there: a problem, unless the lenient load publishes this file without
   * its references to missing items (`withoutMissing`): then false, and the caller leaves the reference out.
   */
  missing: (rel: string, what: string) => boolean;
  /** The content hash: every file's path and SHA-256, in load order. */
  hash: Hash;
  /** What parsing this file's bytes gives: a previous version's kept parse, from the cache when it has it, or computed. */
  memo: <T>(file: Listed, kind: string, compute: () => T) => T;
  /** A file's front matter and body (its path and hash join the content hash), or null with its problems reported. */
  front: FrontOf;
  fileOf: Map<string, Listed>;
  itemHashes: Map<string, string>;
  /** A file's hash as the item's: marked when it is published without its references to missing items, which then move its key. */
  itemSha: (file: Listed) => string;
  present: Present;
}

const baseName = (rel: string, ext: string) => path.posix.basename(rel, ext);

/** What the steps of assembling one listing share (see Assembly). */
function startAssembly(files: Listing, cache: ParseCache | null, withoutMissing: ReadonlySet<string>): Assembly {
  const problems: Problem[] = [];
  const hash = createHash('sha256');
  const memo = <T>(file: Listed, kind: string, compute: () => T): T => {
    if (file.previous) {
      if (!(kind in file.previous)) throw new Error(`${file.rel}: the previous version has no ${kind}`); // usableVersion checked
      return file.previous[kind] as T;
    }
    return cache ? cache.memo(file.rel, file.sha, kind, compute) : compute();
  };
  const fileOf = new Map<string, Listed>();
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

  // Ids whose file exists, valid or not: references are checked against these, so one broken file is
  // reported once rather than again by everything that links to it.
  const idsIn = (list: readonly RawFile[], pick: (rel: string) => string) => new Set(list.map((f) => pick(f.rel)));
  const fileId = (r: string) => baseName(r, '.md');
  const folderId = (r: string) => r.split('/')[1];
  return {
    files,
    problems,
    problem: (rel, what) => void problems.push({ file: rel, line: `${rel}: ${what}` }),
    missing: (rel, what) => {
      if (withoutMissing.has(rel)) return false;
      problems.push({ file: rel, line: `${rel}: ${what}`, dangling: true });
      return true;
    },
    hash,
    memo,
    front,
    fileOf,
    itemHashes: new Map<string, string>(),
    itemSha,
    present: {
      channels: idsIn(files.channels, fileId),
      videos: idsIn(files.videos, fileId),
      essays: idsIn(files.essays, folderId),
      digests: idsIn(files.digests, fileId),
      knowledge: idsIn(files.knowledge, fileId),
      personas: idsIn(files.personas, folderId),
    },
  };
}

/** The snapshot of one listing, or the problems that keep it from being one (each naming its file). */
export function assemble(files: Listing, cache: ParseCache | null, withoutMissing: ReadonlySet<string> = new Set()): { snapshot: Snapshot; problems: Problem[] } {
  const a = startAssembly(files, cache, withoutMissing);
  // In this order: the content hash takes each file as its step reads it.
  const { channels, channelsById } = assembleChannels(a);
  const { videos, videosById, videosByChannel } = assembleVideos(a, channels);
  const { essays, essaysBySlug, essayBodies } = assembleEssays(a);
  const { digests, digestsByDate } = assembleDigests(a);
  const { concepts, conceptsBySlug } = assembleConcepts(a);
  const { personas, personasById } = assemblePersonas(a);
  const { skills, skillsByName } = assembleSkills(a);
  checkReferences(a, concepts, essayBodies);
  const snapshot: Snapshot = {
    ...backReferences(digests, concepts),
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
    contentHash: a.hash.digest('hex'),
    itemHashes: a.itemHashes,
    invalid: [],
  };
  return { snapshot, problems: a.problems };
}

/**
 * An item's hash (Snapshot.itemHashes) in 64 bits: a file's SHA-256 cut short, an essay's several files'
 * hashed again. What the builds record to tell next time whether the item changed (enough to tell builds apart).
 */
export function shortItemHash(sha: string): string {
  return sha.length === 64 ? sha.slice(0, 16) : hash('sha1', sha, 'base64url').slice(0, 16);
}

/** Channels: channels/<channel_id>.md. */
function assembleChannels({ files, front, problem, itemHashes }: Assembly) {
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
  return { channels, channelsById: new Map(channels.map((c) => [c.channel_id, c])) };
}

/** Videos: videos/…/<video_id>.md, each of a channel that exists; newest first. */
function assembleVideos({ files, front, problems, problem, present, itemHashes }: Assembly, channels: readonly Channel[]) {
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
  return { videos, videosById, videosByChannel };
}

/** Essays: essays/<slug>/<lang>.md, the translations of a slug one essay; and their bodies, whose links are checked last. */
function assembleEssays({ files, front, problem, missing, present, itemHashes, itemSha }: Assembly) {
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
  return { essays, essaysBySlug: new Map(essays.map((e) => [e.slug, e])), essayBodies };
}

/** Digests: digests/<date>.md, the body parsed into its items; newest first. */
function assembleDigests({ files, front, memo, problem, missing, present, itemHashes, itemSha }: Assembly) {
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
  return { digests, digestsByDate: new Map(digests.map((d) => [d.date, d])) };
}

/** Knowledge concepts: knowledge/<slug>.md, by title (their references are checked by checkReferences). */
function assembleConcepts({ files, front, problem, itemHashes, itemSha }: Assembly) {
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
  return { concepts, conceptsBySlug: new Map(concepts.map((c) => [c.slug, c])) };
}

/** Personas: personas/<id>/persona.md and personas/<id>/modelfiles/<mode>.<lang>.modelfile, one for each mode and language. */
function assemblePersonas({ files, front, memo, problem, hash, itemHashes }: Assembly) {
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
  return { personas, personasById: new Map(personas.map((p) => [p.persona_id, p])) };
}

/** Skills: skills/<name>.md, with the file's text as their source. */
function assembleSkills({ files, front, memo, problem }: Assembly) {
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
  return { skills, skillsByName: new Map(skills.map((s) => [s.name, s])) };
}

/** Cross-references that need every collection loaded: the concepts' sources and related concepts, and the links in concepts and essays. */
function checkReferences({ memo, fileOf, problem, missing, present }: Assembly, concepts: readonly Concept[], essayBodies: readonly { rel: string; body: string }[]): void {
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
}

/** Back-references, so a video read does not scan every digest and concept. */
function backReferences(digests: readonly Digest[], concepts: readonly Concept[]) {
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
  return { digestsByVideo, conceptsByVideo };
}
