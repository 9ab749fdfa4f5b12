// What "apply" does to content/. A concept_stub is published for real: its draft file gets `draft: false`
// (or, proposed without a file, the file is written from the payload). The other kinds edit files editors
// own (a concept's YAML sources, a video's tags, a new essay from a post) where a machine rewrite would
// drop their comments and formatting and bypass review, so applying them records the accepted change for
// the editors' commit and says so: `content_changed: false`. Never a silent pretence.
import fs from 'node:fs';
import path from 'node:path';
import type { Snapshot } from '../../src/lib/content/model.ts';
import { ApiError } from '../errors/index.ts';
import { conceptFileProblems, renderConceptFile, writeFileAtomic } from '../sources/concept-file.ts';
import type { Payload, ProposalKind } from './schemas.ts';

export interface ApplyResult {
  content_changed: boolean;
  files: string[];
  note: string;
}

export interface ApplyContext {
  contentDir: string;
  snapshot: Snapshot;
}

/** A planned change: `commit()` writes the files; it runs last inside the decision's transaction. */
export interface ApplyPlan {
  result: ApplyResult;
  commit(): void;
}

const RECORDED: Record<Exclude<ProposalKind, 'concept_stub'>, string> = {
  link_add: 'Recorded as applied; the link is added to the concept file by an editor commit (the server does not rewrite editor-owned YAML).',
  tag_correction: 'Recorded as applied; the tags are changed in the item file by an editor commit (the server does not rewrite editor-owned YAML).',
  essay_promotion: 'Recorded as applied; the essay is copied into content/essays by an editor commit (translation and editing are editorial work).',
};

/** Draft line of a front matter block: `draft: true` (any spacing, optional comment). */
const DRAFT_TRUE = /^draft:[ \t]*true[ \t]*(#.*)?$/m;

/**
 * Plans applying a proposal; throws 409 when it cannot be applied as it stands (the file would not load),
 * before anything is written.
 */
export function planApply(kind: ProposalKind, payload: unknown, ctx: ApplyContext): ApplyPlan {
  if (kind !== 'concept_stub') return { result: { content_changed: false, files: [], note: RECORDED[kind] }, commit: () => {} };
  const p = payload as Payload<'concept_stub'>;
  const rel = `knowledge/${p.slug}.md`;
  const knowledgeDir = path.join(ctx.contentDir, 'knowledge');
  const file = path.join(ctx.contentDir, rel);
  let text: string;
  let note: string;
  if (fs.existsSync(file)) {
    const current = fs.readFileSync(file, 'utf8');
    const end = current.indexOf('\n---', 3);
    const front = end > 0 ? current.slice(0, end) : '';
    if (!DRAFT_TRUE.test(front)) return { result: { content_changed: false, files: [], note: `${rel} is already published (not a draft); nothing to change.` }, commit: () => {} };
    text = front.replace(DRAFT_TRUE, 'draft: false') + current.slice(end);
    note = `Published ${rel}: draft: true became draft: false. Listed after the next build or restart.`;
  } else {
    text = renderConceptFile({ title: p.title, summary: p.summary, tags: p.tags, draft: false, sources: p.sources, related: [] }, p.body || p.summary);
    note = `Wrote ${rel} from the proposal. Listed after the next build or restart.`;
  }
  const problems = conceptFileProblems(text, p.slug, ctx.snapshot, knowledgeDir);
  if (problems.length) throw new ApiError(409, `Cannot apply: ${rel} would not load (${problems.join('; ')})`);
  return { result: { content_changed: true, files: [rel], note }, commit: () => writeFileAtomic(file, text) };
}
