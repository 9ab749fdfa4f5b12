// Applying the proposals that edit content files: a tag_correction changes an item's `tags`, a link_add
// adds a source or a related concept to a concept's front matter, an essay_promotion writes a published
// post's essay to essays/<slug>/<lang>.md. Front matter is rewritten as the pipeline writes a summary
// (pipeline/lib/video-files.ts), and files are replaced atomically, so the content watcher publishes the
// change like any other, and an editor sees it in `git status` and commits it. Each plan checks that what
// it writes still loads; its commit refuses (409) a file someone changed after the plan read it.
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { createFileAtomic, writeFileAtomic } from '../../src/lib/fs-atomic.ts';
import { ConceptFront, EssayFront, VideoFront } from '../../src/lib/content/schema.ts';
import { SITE_LINK, markdownLinks } from '../../src/lib/content/markdown.ts';
import type { Snapshot } from '../../src/lib/content/model.ts';
import { readContentFile, renderFrontMatter, withFrontMatter } from '../../pipeline/lib/video-files.ts';
import { conceptFileProblems } from '../../src/lib/content/concept-file.ts';
import type { Payload } from '../../src/lib/data/proposals/payloads.ts';
import type { PromotedPost } from '../../src/lib/data/proposals/store.ts';
import { ApiError } from '../errors/index.ts';

/** One file an apply writes: its content/-relative path, the text it had when planned (null: new), the new text. */
export interface FileEdit {
  rel: string;
  before: string | null;
  text: string;
}

export interface EditPlan {
  edits: FileEdit[];
  note: string;
}

export interface EditContext {
  contentDir: string;
  snapshot: Snapshot;
  /** The published post essay_promotion names, or undefined when it is not (any more). */
  post?: (postId: string) => Promise<PromotedPost | undefined>;
}

const LIVE = 'The content watcher publishes it; commit the file like any pipeline change.';
const refuse = (why: string): never => {
  throw new ApiError(409, `Cannot apply: ${why}`, {}, 'Fix the content file or the proposal\'s target, then apply again, or reject the proposal.');
};
const problemsOf = (r: z.ZodSafeParseResult<unknown>) => (r.success ? [] : r.error.issues.map((i) => `${i.path.join('.') || '(front matter)'}: ${i.message}`));

/** The files a tagged item lives in: one for a video or concept, one per language for an essay. */
function taggedFiles(target: { type: string; id: string }, contentDir: string): string[] {
  if (target.type === 'video') return [`videos/${target.id}.md`];
  if (target.type === 'knowledge') return [`knowledge/${target.id}.md`];
  return ['en', 'sl'].map((l) => `essays/${target.id}/${l}.md`).filter((rel) => fs.existsSync(path.join(contentDir, rel)));
}

export function planTagCorrection(p: Payload<'tag_correction'>, ctx: EditContext): EditPlan {
  const schema = p.target.type === 'video' ? VideoFront : p.target.type === 'essay' ? EssayFront : ConceptFront;
  const rels = taggedFiles(p.target, ctx.contentDir);
  if (rels.length === 0 || !fs.existsSync(path.join(ctx.contentDir, rels[0]))) refuse(`the ${p.target.type} ${p.target.id} has no file in the content folder`);
  const edits: FileEdit[] = [];
  const changes: string[] = [];
  for (const rel of rels) {
    const file = path.join(ctx.contentDir, rel);
    const before = fs.readFileSync(file, 'utf8');
    const { data } = readContentFile(file);
    const tags = Array.isArray(data.tags) ? (data.tags as string[]) : [];
    const next = [...tags.filter((t) => !p.remove.includes(t)), ...p.add.filter((t) => !tags.includes(t))];
    if (next.join() === tags.join()) continue;
    const problems = problemsOf(schema.safeParse({ ...data, tags: next }));
    if (problems.length) refuse(`${rel} would not load (${problems.join('; ')})`);
    edits.push({ rel, before, text: withFrontMatter(file, { tags: next }) });
    changes.push(`${rel}: [${tags.join(', ')}] → [${next.join(', ')}]`);
  }
  if (edits.length === 0) return { edits, note: `The tags are already as proposed in ${rels.join(', ')}; nothing to change.` };
  return { edits, note: `Changed the tags of ${changes.join('; ')}. ${LIVE}` };
}

export function planLinkAdd(p: Payload<'link_add'>, ctx: EditContext): EditPlan {
  const rel = `knowledge/${p.concept}.md`;
  const file = path.join(ctx.contentDir, rel);
  if (!fs.existsSync(file)) refuse(`${rel} is not in the content folder`);
  const before = fs.readFileSync(file, 'utf8');
  const { data } = readContentFile(file);
  const link = p.link;
  let changes: Record<string, unknown>;
  let what: string;
  if (link.type === 'knowledge') {
    const related = Array.isArray(data.related) ? (data.related as string[]) : [];
    if (related.includes(link.id)) return { edits: [], note: `${rel} already relates to ${link.id}; nothing to change.` };
    changes = { related: [...related, link.id] };
    what = `the related concept ${link.id}`;
  } else {
    const sources = Array.isArray(data.sources) ? (data.sources as Record<string, unknown>[]) : [];
    const same = (s: Record<string, unknown>) => s.type === link.type && (link.type === 'web_page' ? s.url === link.url : s.id === link.id);
    const name = link.type === 'web_page' ? link.url : `${link.type} ${link.id}`;
    if (sources.some(same)) return { edits: [], note: `${rel} already cites ${name}; nothing to change.` };
    changes = { sources: [...sources, link] };
    what = `the source ${name}`;
  }
  const text = withFrontMatter(file, changes);
  const problems = conceptFileProblems(text, p.concept, ctx.snapshot, path.join(ctx.contentDir, 'knowledge'));
  if (problems.length) refuse(`${rel} would not load (${problems.join('; ')})`);
  return { edits: [{ rel, before, text }], note: `Added ${what} to ${rel}. ${LIVE}` };
}

export async function planEssayPromotion(p: Payload<'essay_promotion'>, ctx: EditContext): Promise<EditPlan> {
  const post = await ctx.post?.(p.post_id);
  if (!post) return refuse(`the post ${p.post_id} is not published (any more)`);
  const rel = `essays/${post.slug}/${p.lang}.md`;
  if (ctx.snapshot.essaysBySlug.has(post.slug) || fs.existsSync(path.join(ctx.contentDir, 'essays', post.slug))) refuse(`an essay essays/${post.slug} exists already`);
  const front = { title: post.title, date: post.published_at.slice(0, 10), description: post.summary.trim() || post.title, tags: post.tags.slice(0, 12), featured: false };
  const problems = problemsOf(EssayFront.safeParse(front));
  for (const url of markdownLinks(post.body)) {
    const m = SITE_LINK.exec(url);
    const known = { videos: ctx.snapshot.videosById, essays: ctx.snapshot.essaysBySlug, knowledge: ctx.snapshot.conceptsBySlug, digests: ctx.snapshot.digestsByDate, personas: ctx.snapshot.personasById };
    if (m && !known[m[1] as keyof typeof known].has(m[2])) problems.push(`body: link ${url} points at nothing`);
  }
  if (problems.length) refuse(`${rel} would not load (${problems.join('; ')})`);
  return { edits: [{ rel, before: null, text: renderFrontMatter(front, post.body) }], note: `Wrote ${rel} from the post “${post.title}”. ${LIVE}` };
}

/** Writes the planned files, each atomically; 409 (nothing more written) when one changed since it was planned. */
export function commitEdits(contentDir: string, edits: readonly FileEdit[]): void {
  for (const e of edits) {
    const file = path.join(contentDir, e.rel);
    const now = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
    if (now !== e.before) refuse(`${e.rel} changed while the proposal was applied; apply again to use the new file`);
  }
  for (const e of edits) {
    if (e.before === null) {
      if (!createFileAtomic(path.join(contentDir, e.rel), e.text)) refuse(`${e.rel} appeared while the proposal was applied`);
    } else writeFileAtomic(path.join(contentDir, e.rel), e.text);
  }
}
