// Loads content/ into a validated Snapshot. Every problem is collected and reported at once, each with
// the file and the field, so an editor fixes a broken commit in one pass.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import matter from 'gray-matter';
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
import { DigestShapeError, SITE_LINK, linkUrls, parseDigest, parseMarkdown } from './markdown.ts';

export class ContentError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`content is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  ${problems.join('\n  ')}`);
    this.problems = problems;
  }
}

interface RawFile {
  rel: string;
  text: string;
}

function listFiles(root: string, dir: string, ext: string): RawFile[] {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  const out: RawFile[] = [];
  for (const entry of fs.readdirSync(abs, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(ext) || entry.name.startsWith('.')) continue;
    const full = path.join(entry.parentPath, entry.name);
    out.push({ rel: path.relative(root, full).split(path.sep).join('/'), text: fs.readFileSync(full, 'utf8') });
  }
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

export function loadSnapshot(contentDir: string): Snapshot {
  const problems: string[] = [];
  const hash = createHash('sha256');

  function front<S extends z.ZodType>(file: RawFile, schema: S): { data: z.infer<S>; body: string } | null {
    hash.update(file.rel).update('\0').update(file.text).update('\0');
    let parsed: matter.GrayMatterFile<string>;
    try {
      // Fresh options object: gray-matter caches by content otherwise, and we want no shared state.
      parsed = matter(file.text, {});
    } catch (err) {
      problems.push(`${file.rel}: front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
      return null;
    }
    const result = schema.safeParse(parsed.data);
    if (!result.success) {
      for (const issue of result.error.issues) {
        problems.push(`${file.rel}: ${issue.path.join('.') || '(front matter)'}: ${issue.message}`);
      }
      return null;
    }
    return { data: result.data, body: parsed.content.replace(/^\s*\n/, '').trimEnd() };
  }

  const baseName = (rel: string, ext: string) => path.posix.basename(rel, ext);

  // Channels
  const channels: Channel[] = [];
  for (const file of listFiles(contentDir, 'channels', '.md')) {
    const r = front(file, ChannelFront);
    if (!r) continue;
    if (r.data.channel_id !== baseName(file.rel, '.md')) {
      problems.push(`${file.rel}: channel_id: must equal the file name`);
      continue;
    }
    channels.push({ ...r.data, body: r.body });
  }
  const channelsById = new Map(channels.map((c) => [c.channel_id, c]));

  // Videos
  const videos: Video[] = [];
  for (const file of listFiles(contentDir, 'videos', '.md')) {
    const r = front(file, VideoFront);
    if (!r) continue;
    if (r.data.video_id !== baseName(file.rel, '.md')) {
      problems.push(`${file.rel}: video_id: must equal the file name`);
      continue;
    }
    if (!channelsById.has(r.data.channel)) problems.push(`${file.rel}: channel: unknown channel "${r.data.channel}"`);
    videos.push({ ...r.data, summary: r.data.summary.trim(), transcript: r.body });
  }
  videos.sort((a, b) => (a.date !== b.date ? (a.date < b.date ? 1 : -1) : a.video_id < b.video_id ? -1 : 1));
  const videosById = new Map(videos.map((v) => [v.video_id, v]));
  const videosByChannel = new Map<string, Video[]>(channels.map((c) => [c.channel_id, []]));
  for (const v of videos) videosByChannel.get(v.channel)?.push(v);

  // Essays: essays/<slug>/<lang>.md
  const essayParts = new Map<string, Partial<Record<Lang, EssayTranslation>>>();
  const essayBodies: { rel: string; body: string }[] = [];
  for (const file of listFiles(contentDir, 'essays', '.md')) {
    const parts = file.rel.split('/');
    const lang = baseName(file.rel, '.md');
    if (parts.length !== 3 || !(LANGUAGES as readonly string[]).includes(lang)) {
      problems.push(`${file.rel}: essays live at essays/<slug>/<lang>.md with lang one of ${LANGUAGES.join(', ')}`);
      continue;
    }
    const slug = parts[1];
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug)) {
      problems.push(`${file.rel}: slug: the folder name must be lower-case kebab-case`);
      continue;
    }
    const r = front(file, EssayFront);
    if (!r) continue;
    if (r.data.video && !videosById.has(r.data.video)) problems.push(`${file.rel}: video: unknown video "${r.data.video}"`);
    const entry = essayParts.get(slug) ?? {};
    entry[lang as Lang] = { ...r.data, lang: lang as Lang, body: r.body };
    essayParts.set(slug, entry);
    essayBodies.push({ rel: file.rel, body: r.body });
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
  for (const file of listFiles(contentDir, 'digests', '.md')) {
    const r = front(file, DigestFront);
    if (!r) continue;
    if (r.data.date !== baseName(file.rel, '.md')) {
      problems.push(`${file.rel}: date: must equal the file name`);
      continue;
    }
    try {
      const digest = parseDigest(r.data.date, r.body);
      for (const item of digest.items) {
        for (const s of item.sources) {
          if (!videosById.has(s.video_id)) problems.push(`${file.rel}: item ${item.number}: unknown video "${s.video_id}"`);
        }
      }
      digests.push(digest);
    } catch (err) {
      if (!(err instanceof DigestShapeError)) throw err;
      problems.push(`${file.rel}: body: ${err.message}`);
    }
  }
  digests.sort((a, b) => (a.date < b.date ? 1 : -1));
  const digestsByDate = new Map(digests.map((d) => [d.date, d]));

  // Knowledge concepts
  const concepts: Concept[] = [];
  for (const file of listFiles(contentDir, 'knowledge', '.md')) {
    const slug = baseName(file.rel, '.md');
    if (file.rel.split('/').length !== 2 || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug)) {
      problems.push(`${file.rel}: knowledge concepts live at knowledge/<slug>.md with a kebab-case slug`);
      continue;
    }
    const r = front(file, ConceptFront);
    if (!r) continue;
    concepts.push({ ...r.data, slug, body: r.body });
  }
  concepts.sort((a, b) => a.title.localeCompare(b.title, 'en') || (a.slug < b.slug ? -1 : 1));
  const conceptsBySlug = new Map(concepts.map((c) => [c.slug, c]));

  // Personas: personas/<id>/persona.md and personas/<id>/modelfiles/<mode>.<lang>.modelfile
  const personas: Persona[] = [];
  const modelfiles = listFiles(contentDir, 'personas', '.modelfile');
  for (const file of listFiles(contentDir, 'personas', '.md')) {
    const parts = file.rel.split('/');
    if (parts.length !== 3 || parts[2] !== 'persona.md') {
      problems.push(`${file.rel}: personas live at personas/<persona_id>/persona.md`);
      continue;
    }
    const personaId = parts[1];
    const r = front(file, PersonaFront);
    if (!r) continue;
    const files = new Map<string, string>();
    for (const mf of modelfiles) {
      const m = new RegExp(`^personas/${personaId}/modelfiles/([a-z0-9-]+)\\.([a-z]{2})\\.modelfile$`).exec(mf.rel);
      if (m) files.set(`${m[1]}/${m[2]}`, mf.text);
    }
    for (const mode of r.data.modes) {
      for (const lang of r.data.languages) {
        const text = files.get(`${mode}/${lang}`);
        if (text === undefined) problems.push(`${file.rel}: modes: missing modelfiles/${mode}.${lang}.modelfile`);
        else if (!/^FROM\s+\S+/m.test(text) || !/^SYSTEM\s/m.test(text)) {
          problems.push(`personas/${personaId}/modelfiles/${mode}.${lang}.modelfile: needs a FROM line and a SYSTEM prompt`);
        }
      }
    }
    personas.push({ ...r.data, persona_id: personaId, body: r.body, modelfiles: files });
  }
  for (const mf of modelfiles) hash.update(mf.rel).update('\0').update(mf.text).update('\0');
  personas.sort((a, b) => (a.persona_id < b.persona_id ? -1 : 1));
  const personasById = new Map(personas.map((p) => [p.persona_id, p]));

  // Skills
  const skills: Skill[] = [];
  for (const file of listFiles(contentDir, 'skills', '.md')) {
    const r = front(file, SkillFront);
    if (!r) continue;
    if (r.data.name !== baseName(file.rel, '.md')) {
      problems.push(`${file.rel}: name: must equal the file name`);
      continue;
    }
    skills.push({ ...r.data, body: r.body, source: file.text });
  }
  const skillsByName = new Map(skills.map((s) => [s.name, s]));

  // Cross-references that need every collection loaded.
  const exists = (kind: string, id: string): boolean =>
    kind === 'videos' ? videosById.has(id)
    : kind === 'essays' ? essaysBySlug.has(id)
    : kind === 'knowledge' ? conceptsBySlug.has(id)
    : kind === 'digests' ? digestsByDate.has(id)
    : kind === 'personas' ? personasById.has(id)
    : false;
  const checkLinks = (rel: string, body: string) => {
    for (const url of linkUrls(parseMarkdown(body))) {
      const m = SITE_LINK.exec(url);
      if (m && !exists(m[1], m[2])) problems.push(`${rel}: body: link ${url} points at nothing`);
    }
  };
  for (const c of concepts) {
    const rel = `knowledge/${c.slug}.md`;
    for (const s of c.sources) {
      if (s.type === 'video' && !videosById.has(s.id)) problems.push(`${rel}: sources: unknown video "${s.id}"`);
      if (s.type === 'essay' && !essaysBySlug.has(s.id)) problems.push(`${rel}: sources: unknown essay "${s.id}"`);
      if (s.type === 'digest' && !digestsByDate.has(s.id)) problems.push(`${rel}: sources: unknown digest "${s.id}"`);
    }
    for (const r of c.related) {
      if (!conceptsBySlug.has(r)) problems.push(`${rel}: related: unknown concept "${r}"`);
      if (r === c.slug) problems.push(`${rel}: related: a concept cannot relate to itself`);
    }
    checkLinks(rel, c.body);
  }
  for (const e of essayBodies) checkLinks(e.rel, e.body);

  if (problems.length > 0) throw new ContentError(problems);
  return {
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
  };
}
