// Knowledge concept files written by the server (drafts from POST /api/sources/knowledge, and applied
// concept_stub proposals): rendered in content/README.md's format, checked the way loadSnapshot checks
// them before they touch content/, and written atomically so a reader never sees half a file.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import matter from 'gray-matter';
import yaml from 'js-yaml';
import { ConceptFront, Slug, Tag } from './schema.ts';
import type { Snapshot } from './model.ts';
import { SITE_LINK, markdownLinks } from './markdown.ts';

export type ConceptFrontIn = {
  title: string;
  summary: string;
  tags: string[];
  draft: boolean;
  sources: ConceptFront['sources'];
  related: string[];
};

/** A YAML scalar: plain when it is a slug-like token, else JSON's double-quoted form (valid YAML). */
const scalar = (v: string) => (Slug.safeParse(v).success && !/^\d/.test(v) && !['true', 'false', 'null', 'yes', 'no', 'on', 'off'].includes(v) ? v : JSON.stringify(v));

export function renderConceptFile(front: ConceptFrontIn, body: string): string {
  const lines = [
    '---',
    `title: ${JSON.stringify(front.title)}`,
    `summary: ${JSON.stringify(front.summary)}`,
    `tags: [${front.tags.map((t) => (Tag.safeParse(t).success ? t : JSON.stringify(t))).join(', ')}]`,
    `draft: ${front.draft}`,
    'sources:',
  ];
  for (const s of front.sources) {
    lines.push(`  - type: ${s.type}`);
    if (s.type === 'web_page') lines.push(`    url: ${JSON.stringify(s.url)}`, `    title: ${JSON.stringify(s.title)}`);
    else lines.push(`    id: ${JSON.stringify(s.id)}`);
  }
  lines.push(`related: [${front.related.map(scalar).join(', ')}]`, '---', body.trim(), '');
  return lines.join('\n');
}

/** The loader's YAML settings: core schema, so dates stay strings. */
const MATTER_OPTIONS = { engines: { yaml: (text: string) => yaml.load(text, { schema: yaml.CORE_SCHEMA }) as object } };

/**
 * The problems loadSnapshot would report for this concept file (front matter schema, sources, related
 * concepts, site links in the body), against the current snapshot and the files in `knowledgeDir`.
 */
export function conceptFileProblems(text: string, slug: string, snapshot: Snapshot, knowledgeDir: string): string[] {
  const problems: string[] = [];
  if (!Slug.safeParse(slug).success) problems.push(`slug "${slug}" is not kebab-case`);
  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(text, MATTER_OPTIONS);
  } catch (err) {
    return [`front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}`];
  }
  const r = ConceptFront.safeParse(parsed.data);
  if (!r.success) return r.error.issues.map((i) => `${i.path.join('.') || '(front matter)'}: ${i.message}`);
  const conceptExists = (s: string) => snapshot.conceptsBySlug.has(s) || fs.existsSync(path.join(knowledgeDir, `${s}.md`));
  const exists: Record<string, (id: string) => boolean> = {
    videos: (id) => snapshot.videosById.has(id),
    essays: (id) => snapshot.essaysBySlug.has(id),
    digests: (id) => snapshot.digestsByDate.has(id),
    knowledge: (id) => id === slug || conceptExists(id),
    personas: (id) => snapshot.personasById.has(id),
  };
  for (const s of r.data.sources) {
    if (s.type === 'video' && !exists.videos(s.id)) problems.push(`sources: unknown video "${s.id}"`);
    if (s.type === 'essay' && !exists.essays(s.id)) problems.push(`sources: unknown essay "${s.id}"`);
    if (s.type === 'digest' && !exists.digests(s.id)) problems.push(`sources: unknown digest "${s.id}"`);
  }
  for (const rel of r.data.related) {
    if (rel === slug) problems.push('related: a concept cannot relate to itself');
    else if (!conceptExists(rel)) problems.push(`related: unknown concept "${rel}"`);
  }
  for (const url of markdownLinks(parsed.content)) {
    const m = SITE_LINK.exec(url);
    if (m && !exists[m[1]](m[2])) problems.push(`body: link ${url} points at nothing`);
  }
  return problems;
}

/** The `draft: true` line of a front matter block (any spacing, optional comment). */
export const DRAFT_TRUE = /^draft:[ \t]*true[ \t]*(#.*)?$/m;

/** A concept file split at the line that closes its front matter: `rest` starts with that `\n---`. */
export function splitConceptFile(text: string): { front: string; rest: string } {
  const end = text.indexOf('\n---', 3);
  return end > 0 ? { front: text.slice(0, end), rest: text.slice(end) } : { front: '', rest: text };
}

/** The Markdown body of a concept file (after its front matter), trimmed. */
export const conceptBody = (text: string) => splitConceptFile(text).rest.replace(/^\n---[^\n]*(\n|$)/, '').trim();

export const isDraftFile = (text: string) => DRAFT_TRUE.test(splitConceptFile(text).front);

/**
 * Whether the concept `slug` exists: its file is there, or the loaded snapshot has it published. A draft
 * the snapshot still holds but whose file was removed (its proposal rejected) leaves the slug free.
 */
export function conceptTaken(snapshot: Snapshot, knowledgeDir: string, slug: string): boolean {
  return fs.existsSync(path.join(knowledgeDir, `${slug}.md`)) || snapshot.conceptsBySlug.get(slug)?.draft === false;
}

/**
 * Removes `file` when it is a draft concept; a published one (or none) is left alone. The file is first
 * renamed aside (atomic; the loader skips dot-files) and checked again there, so a file published between
 * the check and the removal is put back instead of deleted. Returns whether a draft was removed.
 */
export function removeDraftFile(file: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (!isDraftFile(text)) return false;
  const aside = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.removed`);
  try {
    fs.renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (isDraftFile(fs.readFileSync(aside, 'utf8'))) {
    fs.unlinkSync(aside);
    return true;
  }
  // Published meanwhile: back where it was, never over a file written since (link fails with EEXIST then).
  fs.linkSync(aside, file);
  fs.unlinkSync(aside);
  return false;
}

/** Replaces links to site pages that do not exist with their text, so generated prose cannot break the build. */
export function dropDeadSiteLinks(markdown: string, snapshot: Snapshot): string {
  const known: Record<string, (id: string) => boolean> = {
    videos: (id) => snapshot.videosById.has(id),
    essays: (id) => snapshot.essaysBySlug.has(id),
    digests: (id) => snapshot.digestsByDate.has(id),
    knowledge: (id) => snapshot.conceptsBySlug.has(id),
    personas: (id) => snapshot.personasById.has(id),
  };
  return markdown.replace(/\[([^[\]]*)\]\((\/[^)\s[\]]*)\)/g, (all, text: string, url: string) => {
    const m = SITE_LINK.exec(url);
    return m && !known[m[1]](m[2]) ? text : all;
  });
}

/**
 * Writes `text` to `file` through a hidden temp file in the same folder (the loader skips dot-files) and
 * an atomic rename. With `exclusive`, an existing file is never replaced: link(2) fails instead (EEXIST).
 */
export function writeFileAtomic(file: string, text: string, opts: { exclusive?: boolean } = {}): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'wx', 0o644);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    if (opts.exclusive) {
      fs.linkSync(tmp, file);
      fs.unlinkSync(tmp);
    } else {
      fs.renameSync(tmp, file);
    }
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
