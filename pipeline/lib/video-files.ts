// Video files as the pipeline writes them: the content format of content/README.md, front matter through
// js-yaml's core schema (the loader's), created atomically and never over an existing file.
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import matter from 'gray-matter';
import { createFileAtomic, writeFileAtomic } from '../../src/lib/fs-atomic.ts';

export interface NewVideo {
  video_id: string;
  title: string;
  date: string;
  channel: string;
  language: 'en' | 'sl';
  tags: string[];
  summary: string;
  thumbnail_url: string;
  url: string;
  highlight: boolean;
  transcript: string;
}

export function renderFrontMatter(data: Record<string, unknown>, body: string): string {
  const front = yaml.dump(data, { schema: yaml.CORE_SCHEMA, lineWidth: 110, quotingType: '"', noRefs: true, flowLevel: 1 });
  return `---\n${front}---\n${body ? `${body.trimEnd()}\n` : ''}`;
}

export function videoFile(v: NewVideo): string {
  const { transcript, ...front } = v;
  return renderFrontMatter(front, transcript);
}

/** Writes a new video; false when a file for this id exists (it is never overwritten). */
export function createVideo(contentDir: string, v: NewVideo): boolean {
  return createFileAtomic(path.join(contentDir, 'videos', `${v.video_id}.md`), videoFile(v));
}

const CORE = { engines: { yaml: (s: string) => yaml.load(s, { schema: yaml.CORE_SCHEMA }) as object } };

/** Reads a content file's front matter and body as the loader does. */
export function readContentFile(file: string): { data: Record<string, unknown>; body: string } {
  const parsed = matter(fs.readFileSync(file, 'utf8'), CORE);
  return { data: parsed.data as Record<string, unknown>, body: parsed.content.replace(/^\s*\n/, '') };
}

/** A content file's text with changed front-matter fields, keeping the order of the others and the body. */
export function withFrontMatter(file: string, changes: Record<string, unknown>): string {
  const { data, body } = readContentFile(file);
  return renderFrontMatter({ ...data, ...changes }, body);
}

/** Rewrites a content file with changed front-matter fields (withFrontMatter), atomically; returns the text written. */
export function updateFrontMatter(file: string, changes: Record<string, unknown>): string {
  const text = withFrontMatter(file, changes);
  writeFileAtomic(file, text);
  return text;
}
