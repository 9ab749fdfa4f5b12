// What "apply" does to content/. A concept_stub is published for real: its draft file gets `draft: false`
// (or, proposed without a file, the file is written from the payload). The other kinds edit the files they
// name (content-edits.ts): a tag_correction the item's tags, a link_add the concept's sources or related
// concepts, an essay_promotion a new essays/<slug>/<lang>.md; `files` lists what was written.
// Apply publishes only the text moderators reviewed (the proposal's body, the draft file's recorded hash);
// a rejected or superseded concept_stub takes its draft file out of content/ (planDiscard).
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../errors/index.ts';
import { DRAFT_TRUE, conceptBody, conceptFileProblems, removeDraftFile, renderConceptFile, splitConceptFile, writeFileAtomic } from '../../src/lib/content/concept-file.ts';
import { sha256 } from '../../src/lib/data/sources/store.ts';
import type { Payload, ProposalKind } from '../../src/lib/data/proposals/payloads.ts';
import type { ApplyPlan } from '../../src/lib/data/proposals/store.ts';
import { commitEdits, planEssayPromotion, planLinkAdd, planTagCorrection, type EditContext, type EditPlan } from './content-edits.ts';

export type ApplyContext = EditContext;

const EDITS: Record<Exclude<ProposalKind, 'concept_stub'>, (payload: never, ctx: EditContext) => EditPlan | Promise<EditPlan>> = {
  link_add: planLinkAdd,
  tag_correction: planTagCorrection,
  essay_promotion: planEssayPromotion,
};

/**
 * Why the draft file is not the text moderators reviewed, or null when it is. With a recorded hash (drafts
 * from POST /api/sources/knowledge) the whole file must be unchanged; without one (the pipeline's drafts,
 * proposals filed before hashes were recorded, a stub whose slug someone else's draft took) its body must
 * be the proposal's body, which /moderation shows.
 */
function unreviewed(p: Payload<'concept_stub'>, current: string, rel: string): string | null {
  const again = 'Reject this proposal and draft the concept again, or review the file and propose it anew.';
  if (p.file_sha256) return sha256(current) === p.file_sha256 ? null : `Cannot apply: ${rel} changed since the proposal was filed, so it is not the draft that was reviewed. ${again}`;
  if (p.body.trim() && conceptBody(current) === p.body.trim()) return null;
  return `Cannot apply: the body of ${rel} is not the one in this proposal, so it was never reviewed. ${again}`;
}

/**
 * Plans applying a proposal; throws 409 when it cannot be applied as it stands (the file would not load),
 * before anything is written.
 */
export async function planApply(kind: ProposalKind, payload: unknown, ctx: ApplyContext): Promise<ApplyPlan> {
  if (kind !== 'concept_stub') {
    const plan = await EDITS[kind](payload as never, ctx);
    const files = plan.edits.map((e) => e.rel);
    return { result: { content_changed: files.length > 0, files, note: plan.note }, commit: () => commitEdits(ctx.contentDir, plan.edits) };
  }
  const p = payload as Payload<'concept_stub'>;
  const rel = `knowledge/${p.slug}.md`;
  const knowledgeDir = path.join(ctx.contentDir, 'knowledge');
  const file = path.join(ctx.contentDir, rel);
  let text: string;
  let note: string;
  if (fs.existsSync(file)) {
    const current = fs.readFileSync(file, 'utf8');
    const { front, rest } = splitConceptFile(current);
    if (!DRAFT_TRUE.test(front)) return { result: { content_changed: false, files: [], note: `${rel} is already published (not a draft); nothing to change.` }, commit: () => {} };
    const why = unreviewed(p, current, rel);
    if (why) throw new ApiError(409, why);
    // Written from the text just checked, so a change after this point cannot slip into what is published.
    text = front.replace(DRAFT_TRUE, 'draft: false') + rest;
    note = `Published ${rel}: draft: true became draft: false. Listed after the next build or restart.`;
  } else {
    text = renderConceptFile({ title: p.title, summary: p.summary, tags: p.tags, draft: false, sources: p.sources, related: [] }, p.body || p.summary);
    note = `Wrote ${rel} from the proposal. Listed after the next build or restart.`;
  }
  const problems = conceptFileProblems(text, p.slug, ctx.snapshot, knowledgeDir);
  if (problems.length) throw new ApiError(409, `Cannot apply: ${rel} would not load (${problems.join('; ')})`);
  return { result: { content_changed: true, files: [rel], note }, commit: () => writeFileAtomic(file, text) };
}

/**
 * Plans what rejecting or superseding a proposal does to content/: a concept_stub whose draft file was
 * written for it (payload.file) has that file removed if it is still a draft, so its slug is free again.
 * `commit()` runs last inside the decision's transaction, like an apply plan's.
 */
export function planDiscard(kind: ProposalKind, payload: unknown, contentDir: string): ApplyPlan | null {
  if (kind !== 'concept_stub') return null;
  const rel = (payload as Payload<'concept_stub'>).file;
  if (!rel) return null;
  const file = path.join(contentDir, rel);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  if (!DRAFT_TRUE.test(splitConceptFile(text).front)) return null;
  return {
    result: { content_changed: true, files: [rel], note: `Removed the draft ${rel}; its slug is free again.` },
    commit: () => void removeDraftFile(file),
  };
}
