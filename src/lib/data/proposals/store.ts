// Proposals: creation (by people through the API and by the pipeline, through the same plain
// function), community flags with the auto-reject threshold, and moderator decisions. Every write is one
// transaction with its audit events and the author's notification, so none is ever half-done. A flag and a
// decision read the proposal to decide, so they run under the write lock from the start.
import { createHash } from 'node:crypto';
import type { Db } from '../db/index.ts';
import type { AuditActor, AuditLog } from '../audit/index.ts';
import type { Notifications } from '../notifications/index.ts';
import { randomId } from '../secrets.ts';
import { PAYLOAD_SCHEMAS, type DecisionAction, type ProposalKind, type ProposalStatus } from './payloads.ts';
import { STATUS_BUCKETS, allowedActions, nextStatus } from './transitions.ts';

export interface ApplyResult {
  content_changed: boolean;
  files: string[];
  note: string;
}

/** A planned change to content/ (api/proposals/apply.ts): `commit()` writes the files, last inside the decision's transaction. */
export interface ApplyPlan {
  result: ApplyResult;
  commit(): void;
}

/** A flag or decision refused for a reason the caller can act on; `status` is what the API answers. */
export class ProposalRefused extends Error {
  readonly status: 403 | 404 | 409;
  readonly hint?: string;
  constructor(status: 403 | 404 | 409, message: string, hint?: string) {
    super(message);
    this.status = status;
    this.hint = hint;
  }
}

export interface ProposalRow {
  id: string;
  kind: ProposalKind;
  status: ProposalStatus;
  title: string;
  target_type: string | null;
  target_id: string | null;
  payload: string;
  evidence: string;
  confidence: number;
  source: 'user' | 'pipeline';
  created_by: string | null;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
  decision_note: string | null;
  superseded_by: string | null;
  applied_at: string | null;
  applied_by: string | null;
  apply_result: string | null;
}

export interface FlagRow {
  proposal_id: string;
  reason: string | null;
  created_at: string;
}

/** A proposal the pipeline or the API files. `payload` is validated against its kind's schema here. */
export interface ProposalInput {
  kind: ProposalKind;
  title: string;
  payload: unknown;
  /** Supporting facts (rationale, links, model scores…); `community_flags` is reserved and dropped. */
  evidence?: Record<string, unknown>;
  /** 0..1; pending proposals are listed by it, highest first. Default 0.5. */
  confidence?: number;
  source: 'user' | 'pipeline';
  /** The proposing user; null for the pipeline. */
  createdBy?: string | null;
}

/** The input broke a rule of its kind (the API validates first; the pipeline gets this). */
export class ProposalInputError extends Error {}

const now = () => new Date().toISOString();
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function targetOf(kind: ProposalKind, payload: Record<string, unknown>): { type: string; id: string } {
  switch (kind) {
    case 'link_add':
      return { type: 'knowledge', id: payload.concept as string };
    case 'tag_correction':
      return payload.target as { type: string; id: string };
    case 'concept_stub':
      return { type: 'knowledge', id: payload.slug as string };
    case 'essay_promotion':
      return { type: 'post', id: payload.post_id as string };
  }
}

/**
 * Files a proposal and appends `proposal.create`, in one transaction (a savepoint when the caller is
 * already in one). This is the pipeline's entry point as well as the API's.
 * @example await createProposal(db, audit, { kind: 'concept_stub', title: 'Agent evaluation', payload, confidence: 0.8, source: 'pipeline' })
 */
export async function createProposal(db: Db, audit: AuditLog, input: ProposalInput): Promise<ProposalRow> {
  const schema = PAYLOAD_SCHEMAS[input.kind];
  if (!schema) throw new ProposalInputError(`unknown proposal kind ${String(input.kind)}`);
  const parsed = schema.safeParse(input.payload);
  if (!parsed.success) throw new ProposalInputError(`invalid ${input.kind} payload: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ')}`);
  const title = input.title.trim();
  if (!title || title.length > 200) throw new ProposalInputError('title must be 1..200 characters');
  const confidence = input.confidence ?? 0.5;
  if (!(confidence >= 0 && confidence <= 1)) throw new ProposalInputError('confidence must be within 0..1');
  if (input.source === 'user' && !input.createdBy) throw new ProposalInputError('a user proposal needs createdBy');
  const payload = parsed.data as Record<string, unknown>;
  const { community_flags: _reserved, ...evidence } = input.evidence ?? {};
  const target = targetOf(input.kind, payload);
  return db.transaction(async () => {
    const id = randomId('prp');
    const payloadJson = JSON.stringify(payload);
    const row = (await db
      .prepare<unknown[], ProposalRow>(
        `INSERT INTO proposals (id, kind, status, title, target_type, target_id, payload, evidence, confidence, source, created_by, created_at)
       VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(id, input.kind, title, target.type, target.id, payloadJson, JSON.stringify(evidence), confidence, input.source, input.createdBy ?? null, now()))!;
    const actor: AuditActor = input.createdBy ? { userId: input.createdBy } : 'pipeline';
    await audit.append({
      kind: 'proposal.create',
      subjectType: 'proposal',
      subjectId: id,
      actor,
      data: { kind: input.kind, source: input.source, target_type: target.type, target_id: target.id, confidence, payload_sha256: sha256(payloadJson) },
    });
    return row;
  });
}

export function getProposal(db: Db, id: string): Promise<ProposalRow | undefined> {
  return db.prepare<[string], ProposalRow>('SELECT * FROM proposals WHERE id = ?').get(id);
}

export async function flagsOf(db: Db, ids: string[]): Promise<Map<string, FlagRow[]>> {
  const out = new Map<string, FlagRow[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = await db
    .prepare<string[], FlagRow>(`SELECT proposal_id, reason, created_at FROM proposal_flags WHERE proposal_id IN (${ids.map(() => '?').join(',')}) ORDER BY created_at, rowid`)
    .all(...ids);
  for (const r of rows) out.get(r.proposal_id)!.push(r);
  return out;
}

export async function listProposals(db: Db, q: { status: 'pending' | 'decided' | 'all'; kind?: ProposalKind; limit: number; offset: number }): Promise<{ total: number; rows: ProposalRow[] }> {
  const where: string[] = [];
  const args: unknown[] = [];
  const statuses = STATUS_BUCKETS[q.status];
  if (statuses) {
    where.push(`status IN (${statuses.map(() => '?').join(',')})`);
    args.push(...statuses);
  }
  if (q.kind) {
    where.push('kind = ?');
    args.push(q.kind);
  }
  const sql = `FROM proposals ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
  // Pending: most confident first, then newest. Decided: most recently decided first. All: newest first.
  const order = q.status === 'pending' ? 'confidence DESC, created_at DESC, id DESC' : q.status === 'decided' ? 'decided_at DESC, id DESC' : 'created_at DESC, id DESC';
  const [total, rows] = await Promise.all([
    db.prepare<unknown[], number>(`SELECT COUNT(*) ${sql}`).pluck().get(...args),
    db.prepare<unknown[], ProposalRow>(`SELECT * ${sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...args, q.limit, q.offset),
  ]);
  return { total: total!, rows };
}

export interface ProposalDeps {
  db: Db;
  audit: AuditLog;
  notifications: Notifications;
  autoRejectFlagThreshold: number;
  /**
   * What rejecting or superseding a proposal does to content/ (apply.ts planDiscard: a concept_stub's draft
   * file is removed); its commit runs last inside the decision's transaction. None: content is left alone.
   */
  planDiscard?: (p: ProposalRow) => ApplyPlan | null;
}

const notifyAuthor = async (deps: ProposalDeps, p: ProposalRow, verb: string, actorId?: string, body?: string) => {
  if (p.created_by) {
    await deps.notifications.notify({ userId: p.created_by, kind: 'proposal_decision', title: `Your proposal “${p.title}” was ${verb}`, body, link: `/api/proposals/${p.id}`, actorId, subjectType: 'proposal', subjectId: p.id });
  }
};

/**
 * One community flag. 404 unknown, 403 for the proposer's own proposal, 409 when not pending or already
 * flagged by this user (nothing changes).
 * At the threshold the proposal is rejected with decided_by null, nothing applied, the author told.
 */
export async function flagProposal(deps: ProposalDeps, proposalId: string, userId: string, reason: string | null) {
  const { db, audit } = deps;
  return db.transaction(async () => {
    const p = await getProposal(db, proposalId);
    if (!p) throw new ProposalRefused(404, 'Proposal not found', 'GET /api/proposals lists the pending proposals with their proposal_id.');
    // Flags are other people's objections; a proposer flagging their own would count towards its rejection.
    if (p.created_by === userId) {
      throw new ProposalRefused(403, 'You cannot flag your own proposal', 'Flags are for objecting to other people\'s proposals. If yours is wrong, file a corrected one (POST /api/proposals); a moderator decides the old one.');
    }
    if (await db.prepare('SELECT 1 FROM proposal_flags WHERE proposal_id = ? AND user_id = ?').get(proposalId, userId)) {
      throw new ProposalRefused(409, 'You have already flagged this proposal', 'One flag per person: yours is counted in evidence.community_flags. Nothing to retry.');
    }
    if (p.status !== 'pending') {
      throw new ProposalRefused(409, `This proposal is already ${p.status}; only pending proposals can be flagged`, 'Nothing to retry: only pending proposals take flags (GET /api/proposals?status=pending).');
    }
    const t = now();
    await db.prepare('INSERT INTO proposal_flags (proposal_id, user_id, reason, created_at) VALUES (?, ?, ?, ?)').run(proposalId, userId, reason, t);
    const flags = (await db.prepare<[string], number>('SELECT COUNT(*) FROM proposal_flags WHERE proposal_id = ?').pluck().get(proposalId))!;
    await audit.append({ kind: 'proposal.flag', subjectType: 'proposal', subjectId: proposalId, actor: { userId }, anonymous: true, data: { flags, reason_sha256: reason ? sha256(reason) : null } });
    let status: ProposalStatus = 'pending';
    if (flags >= deps.autoRejectFlagThreshold) {
      status = 'rejected';
      const note = `Rejected automatically: ${flags} community flags reached the threshold of ${deps.autoRejectFlagThreshold}`;
      const discard = deps.planDiscard?.(p) ?? null;
      await db.prepare("UPDATE proposals SET status = 'rejected', decided_at = ?, decided_by = NULL, decision_note = ? WHERE id = ?").run(t, note, proposalId);
      await audit.append({
        kind: 'proposal.auto_reject',
        subjectType: 'proposal',
        subjectId: proposalId,
        actor: 'system',
        data: { from: 'pending', to: 'rejected', flags, threshold: deps.autoRejectFlagThreshold, ...(discard ? { files_removed: discard.result.files } : {}) },
      });
      await notifyAuthor(deps, p, 'rejected by community flags', undefined, note);
      // Files last: if the removal throws, the flag and the rejection roll back with it.
      discard?.commit();
    }
    return { proposal_id: proposalId, flags, threshold: deps.autoRejectFlagThreshold, status, decided_by: null };
  }, { lock: true });
}

const VERB: Record<DecisionAction, string> = { accept: 'accepted', reject: 'rejected', apply: 'applied', supersede: 'superseded' };

/**
 * A moderator decision along TRANSITIONS; 409 for any other move. `plan` (apply only) is computed by the
 * caller and its files are written last, inside this transaction: a failed write rolls the decision back.
 */
export async function decideProposal(
  deps: ProposalDeps,
  input: { proposalId: string; moderatorId: string; action: DecisionAction; note?: string; supersededBy?: string },
  planApply?: (p: ProposalRow) => Promise<ApplyPlan>,
): Promise<ProposalRow> {
  const { db, audit } = deps;
  return db.transaction(async () => {
    const p = await getProposal(db, input.proposalId);
    if (!p) throw new ProposalRefused(404, 'Proposal not found');
    const to = nextStatus(p.status, input.action);
    if (!to) {
      const allowed = allowedActions(p.status);
      throw new ProposalRefused(409, `Cannot ${input.action} a proposal that is ${p.status}${allowed.length ? `; allowed: ${allowed.join(', ')}` : '; it is final'}`);
    }
    if (input.supersededBy !== undefined) {
      const other = await getProposal(db, input.supersededBy);
      if (!other || other.id === p.id) throw new ProposalRefused(404, `superseded_by: no other proposal ${input.supersededBy}`);
      if (other.status === 'rejected' || other.status === 'superseded') throw new ProposalRefused(409, `superseded_by: ${other.id} is ${other.status} and cannot replace anything`);
    }
    const t = now();
    const note = input.note ?? null;
    let applied: ApplyResult | null = null;
    let plan: ApplyPlan | undefined;
    const discard = to === 'rejected' || to === 'superseded' ? (deps.planDiscard?.(p) ?? null) : null;
    if (input.action === 'apply') {
      plan = await planApply?.(p);
      applied = plan?.result ?? { content_changed: false, files: [], note: 'Recorded as applied.' };
      await db.prepare("UPDATE proposals SET status = 'applied', applied_at = ?, applied_by = ?, apply_result = ?, decided_at = ?, decision_note = COALESCE(?, decision_note) WHERE id = ?").run(
        t, input.moderatorId, JSON.stringify(applied), t, note, p.id,
      );
    } else {
      await db.prepare('UPDATE proposals SET status = ?, decided_at = ?, decided_by = ?, decision_note = ?, superseded_by = ? WHERE id = ?').run(
        to, t, input.moderatorId, note, input.supersededBy ?? null, p.id,
      );
    }
    await audit.append({
      kind: `proposal.${input.action}`,
      subjectType: 'proposal',
      subjectId: p.id,
      actor: { userId: input.moderatorId },
      data: {
        from: p.status,
        to,
        ...(input.supersededBy ? { superseded_by: input.supersededBy } : {}),
        ...(applied ? { content_changed: applied.content_changed, files: applied.files } : {}),
        ...(discard ? { files_removed: discard.result.files } : {}),
      },
    });
    await notifyAuthor(deps, p, VERB[input.action], input.moderatorId, note ?? undefined);
    // Files last: if the write throws, the transaction (status, audit event, notification) rolls back.
    plan?.commit();
    discard?.commit();
    return (await getProposal(db, p.id))!;
  }, { lock: true });
}

/** A published post as essay_promotion copies it into the essays: its fields and its essay's latest text. */
export interface PromotedPost {
  slug: string;
  title: string;
  summary: string;
  tags: string[];
  published_at: string;
  body: string;
}

/** The published post `postId`, as essay_promotion copies it (one statement), or undefined when it is not. */
export async function promotedPost(db: Db, postId: string): Promise<PromotedPost | undefined> {
  const post = await db
    .prepare<[string], { slug: string; title: string; summary: string; tags: string; published_at: string; body: string | null }>(
      `SELECT p.slug, p.title, p.summary, p.tags, p.published_at,
         (SELECT r.body FROM post_essay_revisions r WHERE r.post_id = p.id ORDER BY r.revision DESC LIMIT 1) AS body
       FROM posts p WHERE p.id = ? AND p.status = 'published' AND p.deleted_at IS NULL`,
    )
    .get(postId);
  if (!post) return undefined;
  return { ...post, tags: JSON.parse(post.tags) as string[], body: post.body ?? '' };
}
