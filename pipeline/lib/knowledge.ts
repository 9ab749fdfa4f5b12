// build-knowledge: knowledge derived from the sources. A recurring topic (a tag or a key phrase shared by
// several sources) that no concept covers yet becomes a draft concept — a definition drawn from its
// sources, the sources linked, related concepts named — filed as a concept_stub proposal with a
// confidence. It also proposes link_add (a video that fits a concept but is not among its sources) and
// tag_correction (a tag the text clearly talks about but the video lacks). Proposals go through the same
// data module the server uses, each with its audit event.
import fs from 'node:fs';
import path from 'node:path';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { contentCacheDir } from '../../src/lib/content/parse-cache.ts';
import type { Snapshot, Video } from '../../src/lib/content/model.ts';
import { databaseTarget, openDatabase, pgOptions, type Db } from '../../src/lib/data/db/index.ts';
import { auditOriginOptions, createAuditLog, type AuditLog } from '../../src/lib/data/audit/index.ts';
import { createProposal } from '../../src/lib/data/proposals/store.ts';
import { sha256 } from '../../src/lib/data/sources/store.ts';
import type { JobContext, JobResult } from './types.ts';
import { keywordTags, textRank } from './textrank.ts';
import { contentWords } from '../../src/lib/text/words.ts';
import { createFileAtomic } from '../../src/lib/fs-atomic.ts';
import { conceptFileProblems, renderConceptFile } from '../../src/lib/content/concept-file.ts';

export const MIN_SOURCES = 3;
const MAX_NEW_CONCEPTS = 5;
const MAX_LINK_PROPOSALS = 10;
const MAX_TAG_PROPOSALS = 10;

const slugify = (s: string) => s.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
const titleCase = (s: string) => s.replace(/-/g, ' ').replace(/\b\p{L}/gu, (c) => c.toUpperCase()).replace(/\bAi\b/g, 'AI').replace(/\bEu\b/g, 'EU').replace(/\bLlm/g, 'LLM');

/** Words that recur in titles without naming a topic. */
const GENERIC = new Set(['what', 'year', 'years', 'first', 'lesson', 'lesson', 'talk', 'case', 'guide', 'practice', 'real', 'really', 'actually', 'month', 'week', 'after', 'before', 'inside', 'without', 'matter', 'people', 'team', 'work']);

interface Topic {
  key: string;
  kind: 'tag' | 'phrase';
  videos: Video[];
}

/** A slug with plural endings dropped, so "open-weight-model" is seen as covered by "open-weight-models". */
const singular = (slug: string) => slug.split('-').map((w) => w.replace(/(?<=\w{3})s$/, '')).join('-');

/** Tags and two-word key phrases that at least MIN_SOURCES videos share and no concept covers. */
export function uncoveredTopics(snap: Snapshot): Topic[] {
  const coveredRaw = new Set<string>();
  for (const c of snap.concepts) {
    coveredRaw.add(c.slug);
    for (const t of c.tags) coveredRaw.add(t);
    coveredRaw.add(slugify(c.title));
  }
  const coveredSingular = new Set([...coveredRaw].map(singular));
  const covered = { has: (k: string) => coveredRaw.has(k) || coveredSingular.has(singular(k)) };
  const byTag = new Map<string, Video[]>();
  const byPhrase = new Map<string, Video[]>();
  const add = (m: Map<string, Video[]>, k: string, v: Video) => {
    const list = m.get(k);
    if (list) list.push(v);
    else m.set(k, [v]);
  };
  for (const v of snap.videos) {
    for (const t of v.tags) add(byTag, t, v);
    // Key phrases come from titles: what a talk is about, not how its summary happens to be worded.
    if (v.language !== 'en') continue;
    const words = contentWords(v.title, 'en').filter((w) => w.length >= 4 && !GENERIC.has(w));
    const phrases = new Set<string>();
    for (let i = 0; i + 1 < words.length; i++) if (words[i] !== words[i + 1]) phrases.add(`${words[i]}-${words[i + 1]}`);
    for (const p of phrases) add(byPhrase, p, v);
  }
  const topics: Topic[] = [];
  for (const [tag, videos] of byTag) if (videos.length >= MIN_SOURCES && !covered.has(tag)) topics.push({ key: tag, kind: 'tag', videos });
  for (const [phrase, videos] of byPhrase) {
    if (videos.length >= MIN_SOURCES && !covered.has(phrase) && !byTag.has(phrase)) topics.push({ key: phrase, kind: 'phrase', videos });
  }
  return topics.sort((a, b) => b.videos.length - a.videos.length || (a.key < b.key ? -1 : 1));
}

async function existingProposal(db: Db, kind: string, targetId: string, contains?: string): Promise<boolean> {
  const rows = await db.prepare<[string, string], { payload: string }>('SELECT payload FROM proposals WHERE kind = ? AND target_id = ?').all(kind, targetId);
  return rows.some((r) => contains === undefined || r.payload.includes(contains));
}

async function writeDraftConcept(ctx: JobContext, snap: Snapshot, db: Db, audit: AuditLog, topic: Topic): Promise<string | null> {
  const slug = slugify(topic.key);
  const file = path.join(ctx.contentDir, 'knowledge', `${slug}.md`);
  if (!slug || fs.existsSync(file) || (await existingProposal(db, 'concept_stub', slug))) return null;
  const sources = [...topic.videos].sort((a, b) => (a.date < b.date ? 1 : -1)).slice(0, 5);
  const definition = textRank(sources.map((v) => v.summary).filter(Boolean).join(' '), 'en', 2).join(' ') || sources[0].title;
  const tags = topic.kind === 'tag' ? [topic.key] : keywordTags(sources.map((v) => v.title).join('. '), [...new Set(snap.videos.flatMap((v) => v.tags))], 3);
  const related = snap.concepts.filter((c) => !c.draft && c.tags.some((t) => tags.includes(t))).slice(0, 3).map((c) => c.slug);
  const title = titleCase(topic.key);
  const summary = `${title}: a recurring topic across ${topic.videos.length} sources in the knowledge base.`;
  const body = `${definition}\n\n## Sources\n\n${sources.map((v) => `- [${v.title.replace(/([[\]\\])/g, '\\$1')}](/videos/${v.video_id})`).join('\n')}\n`;
  const front = { title, summary, tags, draft: true, sources: sources.map((v) => ({ type: 'video' as const, id: v.video_id })), related };
  // Checked the way the loader checks a concept (the same function the server's drafts go through), so
  // the build never meets a concept it would refuse; cheaper than reloading the whole content.
  const text = renderConceptFile(front, body);
  const problems = conceptFileProblems(text, slug, snap, path.join(ctx.contentDir, 'knowledge'));
  if (problems.length) throw new Error(`draft concept ${slug} did not validate: ${problems[0]}`);
  if (!createFileAtomic(file, text)) return null;
  await createProposal(db, audit, {
    kind: 'concept_stub',
    title: `New concept: ${title}`,
    // The file's hash binds a moderator's apply to exactly this draft (api/proposals/apply.ts).
    payload: { slug, title, summary, tags, sources: front.sources, body, file: `knowledge/${slug}.md`, file_sha256: sha256(text) },
    evidence: { rationale: `${topic.kind === 'tag' ? 'Tag' : 'Key phrase'} "${topic.key}" is shared by ${topic.videos.length} videos and no concept covers it.`, source_count: topic.videos.length },
    confidence: Math.min(0.95, 0.4 + 0.08 * topic.videos.length),
    source: 'pipeline',
  });
  return slug;
}

export async function buildKnowledge(ctx: JobContext): Promise<JobResult> {
  const snap = loadSnapshot(ctx.contentDir, { cacheDir: contentCacheDir(ctx.dataDir), lenient: true });
  const db = await openDatabase(databaseTarget(ctx.config), { ...pgOptions(ctx.config), applicationName: 'kb-pipeline' });
  const errors: string[] = [];
  let concepts = 0;
  let links = 0;
  let tagFixes = 0;
  try {
    const audit = await createAuditLog(db, {
      dataDir: ctx.dataDir,
      ...auditOriginOptions(ctx.config),
      checkpointEvery: ctx.config.audit.checkpointEvery,
      checkpointIntervalSeconds: ctx.config.audit.checkpointIntervalSeconds,
      signingKeyFile: ctx.config.audit.signingKeyFile,
    });
    for (const topic of uncoveredTopics(snap)) {
      if (concepts >= MAX_NEW_CONCEPTS) break;
      try {
        if (await writeDraftConcept(ctx, snap, db, audit, topic)) concepts++;
      } catch (err) {
        errors.push((err as Error).message);
      }
    }

    // link_add: a video sharing at least two of a published concept's tags that the concept does not cite.
    for (const c of snap.concepts.filter((x) => !x.draft && x.tags.length >= 2)) {
      if (links >= MAX_LINK_PROPOSALS) break;
      const cited = new Set(c.sources.flatMap((s) => (s.type === 'video' ? [s.id] : [])));
      const best = snap.videos
        .filter((v) => !cited.has(v.video_id) && v.summary)
        .map((v) => ({ v, overlap: v.tags.filter((t) => c.tags.includes(t)).length }))
        .filter((x) => x.overlap >= 2)
        .sort((a, b) => b.overlap - a.overlap || (a.v.date < b.v.date ? 1 : -1))[0];
      if (!best || (await existingProposal(db, 'link_add', c.slug, best.v.video_id))) continue;
      await createProposal(db, audit, {
        kind: 'link_add',
        title: `Cite “${best.v.title}” in ${c.title}`,
        payload: { concept: c.slug, link: { type: 'video', id: best.v.video_id } },
        evidence: { rationale: `The video shares ${best.overlap} of the concept's tags (${c.tags.filter((t) => best.v.tags.includes(t)).join(', ')}).` },
        confidence: Math.min(0.9, 0.3 + 0.2 * best.overlap),
        source: 'pipeline',
      });
      links++;
    }

    // tag_correction: tags the video's own text names at least twice but the video does not carry.
    const vocabulary = [...new Set(snap.videos.flatMap((v) => v.tags))];
    for (const v of snap.videos) {
      if (tagFixes >= MAX_TAG_PROPOSALS) break;
      const text = `${v.title}. ${v.summary} ${v.transcript}`;
      const strong = keywordTags(text, vocabulary, 6).filter((t) => !v.tags.includes(t) && (text.toLowerCase().split(t.replace(/-/g, ' ')).length - 1) >= 2);
      if (strong.length === 0 || v.tags.length >= 12 || (await existingProposal(db, 'tag_correction', v.video_id))) continue;
      await createProposal(db, audit, {
        kind: 'tag_correction',
        title: `Tag “${v.title}” with ${strong.join(', ')}`,
        payload: { target: { type: 'video', id: v.video_id }, add: strong.slice(0, 12 - v.tags.length), remove: [] },
        evidence: { rationale: `The video's text names ${strong.join(', ')} repeatedly.` },
        confidence: 0.5,
        source: 'pipeline',
      });
      tagFixes++;
    }
  } finally {
    await db.close();
  }
  ctx.log(`build-knowledge: ${concepts} draft concepts, ${links} link_add and ${tagFixes} tag_correction proposals`);
  return { counts: { draft_concepts: concepts, link_proposals: links, tag_proposals: tagFixes }, changed: concepts > 0, errors };
}
