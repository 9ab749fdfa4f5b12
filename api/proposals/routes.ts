// Proposal endpoints. Permission rules, one check per route: anyone reads; signed-in people propose and
// flag (once each, rate-limited); moderators decide (accept, reject, apply, supersede).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { addRoute } from '../validation/route.ts';
import { limitParam, offsetParam } from '../validation/index.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, HTTPValidationError } from '../openapi/schemas.ts';
import { requireRole, requireWriter } from '../auth/middleware.ts';
import { enforceRate } from '../rate-limit/index.ts';
import { CREATED_HEADERS, ETAG_HEADER } from '../validation/if-match.ts';
import type { CommunityDeps } from '../deps.ts';
import type { Snapshot } from '../../src/lib/content/model.ts';
import { conceptTaken } from '../../src/lib/content/concept-file.ts';
import {
  PROPOSAL_KINDS,
  ProposalCreate,
  ProposalDecisionIn,
  ProposalFlagIn,
  ProposalFlagOut,
  PublicProposal,
  PublicProposalList,
} from './schemas.ts';
import { createProposal, decideProposal, flagProposal, flagsOf, getProposal, listProposals, promotedPost, ProposalRefused, type ProposalDeps, type ProposalRow } from '../../src/lib/data/proposals/store.ts';
import { planApply, planDiscard } from './apply.ts';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const E = {
  401: json(ErrorDetail, 'Not authenticated'),
  404: json(ErrorDetail, 'Not found'),
  422: json(HTTPValidationError, 'Validation error'),
  429: json(ErrorDetail, 'Too many requests'),
};
const noStore = { 'Cache-Control': 'no-store' };
const idParams = z.object({ proposal_id: z.string().min(1).max(100) });

/** The public form of proposals: evidence carries the community flags (reasons and times, never who). */
export function publicProposals(rows: ProposalRow[], flags: Awaited<ReturnType<typeof flagsOf>>, threshold: number): z.infer<typeof PublicProposal>[] {
  return rows.map((r) => {
    const f = flags.get(r.id) ?? [];
    return {
      proposal_id: r.id,
      kind: r.kind,
      status: r.status,
      title: r.title,
      target: r.target_type && r.target_id ? { type: r.target_type, id: r.target_id } : null,
      payload: JSON.parse(r.payload) as Record<string, unknown>,
      confidence: r.confidence,
      evidence: { ...(JSON.parse(r.evidence) as Record<string, unknown>), community_flags: { count: f.length, threshold, flags: f.map((x) => ({ reason: x.reason, created_at: x.created_at })) } },
      source: r.source,
      created_by: r.created_by,
      decided_by: r.decided_by,
      decision_note: r.decision_note,
      superseded_by: r.superseded_by,
      created_at: r.created_at,
      decided_at: r.decided_at,
      applied_at: r.applied_at,
      applied: r.apply_result ? (JSON.parse(r.apply_result) as z.infer<typeof PublicProposal>['applied']) : null,
    };
  });
}

/**
 * A proposal's strong ETag: the version of the proposal itself (its content, status and decision), new
 * with every change of them. Community flags (their own resource) do not change it.
 */
export function proposalEtag(r: ProposalRow): string {
  const state = JSON.stringify([r.kind, r.status, r.title, r.target_type, r.target_id, r.payload, r.evidence, r.confidence, r.decided_at, r.decided_by, r.decision_note, r.superseded_by, r.applied_at, r.applied_by, r.apply_result]);
  return `"${r.id}.${createHash('sha256').update(state).digest('hex').slice(0, 16)}"`;
}

/** The targets a user proposal names must exist: 404 otherwise (as for comments on unknown items). */
async function checkTargets(body: ProposalCreate, snapshot: Snapshot, deps: CommunityDeps): Promise<void> {
  const s = snapshot;
  const has: Record<string, (id: string) => boolean> = {
    video: (id) => s.videosById.has(id),
    essay: (id) => s.essaysBySlug.has(id),
    digest: (id) => s.digestsByDate.has(id),
    knowledge: (id) => s.conceptsBySlug.has(id),
  };
  const need = (type: string, id: string) => {
    if (!has[type](id)) throw new ApiError(404, `No ${type} with id ${id}`);
  };
  switch (body.kind) {
    case 'link_add':
      need('knowledge', body.payload.concept);
      if (body.payload.link.type !== 'web_page') need(body.payload.link.type, body.payload.link.id);
      break;
    case 'tag_correction':
      need(body.payload.target.type, body.payload.target.id);
      break;
    case 'concept_stub': {
      const slug = body.payload.slug;
      if (conceptTaken(s, path.join(deps.config.contentDir, 'knowledge'), slug)) throw new ApiError(409, `A concept ${slug} already exists`);
      for (const src of body.payload.sources) if (src.type !== 'web_page') need(src.type, src.id);
      break;
    }
    case 'essay_promotion': {
      const post = await deps.db.prepare("SELECT 1 FROM posts WHERE id = ? AND status = 'published' AND deleted_at IS NULL").get(body.payload.post_id);
      if (!post) throw new ApiError(404, `No published post ${body.payload.post_id}`);
      break;
    }
  }
}

/** Registers the proposal routes: reading them, proposing and flagging, and the moderators' decision. */
export function registerProposalRoutes(app: OpenAPIHono, deps: CommunityDeps): void {
  registerProposalReadRoutes(app, deps);
  registerProposeRoutes(app, deps);
  registerDecisionRoute(app, deps);
}

/** What the proposal writes need: the database, audit log and notifications, the flag threshold, the discard plan. */
function proposalStore(deps: CommunityDeps): ProposalDeps {
  return {
    db: deps.db,
    audit: deps.audit,
    notifications: deps.notifications,
    autoRejectFlagThreshold: deps.config.autoRejectFlagThreshold,
    planDiscard: (r) => planDiscard(r.kind, JSON.parse(r.payload), deps.config.contentDir),
  };
}

/** One proposal as the API shows it, with its flags. */
const publicOne = async (deps: CommunityDeps, row: ProposalRow) => publicProposals([row], await flagsOf(deps.db, [row.id]), deps.config.autoRejectFlagThreshold)[0];

/** The store's refusals (unknown, your own, not pending, a move the lifecycle forbids) as the API's answers. */
async function refusalsAnswered<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof ProposalRefused) throw new ApiError(err.status, err.message, {}, err.hint);
    throw err;
  }
}

/** The list and one proposal, for anyone. */
function registerProposalReadRoutes(app: OpenAPIHono, deps: CommunityDeps): void {
  const threshold = deps.config.autoRejectFlagThreshold;
  const one = (row: ProposalRow) => publicOne(deps, row);
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/proposals',
      tags: ['proposals'],
      summary: 'Proposals against the knowledge canon; pending ones by confidence, highest first, then newest',
      request: {
        query: z.object({
          status: z.enum(['pending', 'decided', 'all']).default('pending').openapi({ description: 'pending; decided = accepted, rejected, applied, superseded; all' }),
          kind: z.union([z.enum(PROPOSAL_KINDS), z.literal('')]).optional().openapi({ type: 'string', enum: [...PROPOSAL_KINDS], description: 'Only this kind; empty or absent: every kind' }),
          limit: limitParam(100, 20),
          offset: offsetParam(),
        }),
      },
      responses: { 200: json(PublicProposalList, 'Proposals'), 422: E[422] },
    }),
    async (c, { query }) => {
      const { total, rows } = await listProposals(deps.db, { ...query, kind: query.kind || undefined });
      const items = publicProposals(rows, await flagsOf(deps.db, rows.map((r) => r.id)), threshold);
      return c.json({ total, limit: query.limit, offset: query.offset, items }, 200, noStore);
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/proposals/{proposal_id}',
      tags: ['proposals'],
      summary: 'One proposal',
      request: { params: idParams },
      responses: { 200: { ...json(PublicProposal, 'The proposal'), headers: ETAG_HEADER }, 404: E[404], 422: E[422] },
    }),
    async (c, { params }) => {
      const row = await getProposal(deps.db, params.proposal_id);
      if (!row) throw new ApiError(404, 'Proposal not found');
      return c.json(await one(row), 200, { ...noStore, ETag: proposalEtag(row) });
    },
  );

}

/** What signed-in people do: propose a change, and flag someone else's proposal. */
function registerProposeRoutes(app: OpenAPIHono, deps: CommunityDeps): void {
  const store = proposalStore(deps);
  const one = (row: ProposalRow) => publicOne(deps, row);
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/proposals',
      tags: ['proposals'],
      summary: 'Propose a change to the canon (link_add, tag_correction, concept_stub, essay_promotion)',
      description: 'Signed in. The payload schema depends on kind. User proposals start pending with confidence 0.5.',
      request: { body: { content: { 'application/json': { schema: ProposalCreate } }, required: true } },
      responses: { 201: { ...json(PublicProposal, 'Created'), headers: CREATED_HEADERS }, ...E, 409: json(ErrorDetail, 'The concept already exists') },
    }),
    async (c, { body }) => {
      const p = await requireWriter(c, deps.writeLimiter);
      await checkTargets(body, deps.content().snapshot, deps);
      const row = await createProposal(deps.db, deps.audit, { kind: body.kind, title: body.title, payload: body.payload, evidence: body.evidence, source: 'user', createdBy: p.user.id });
      return c.json(await one(row), 201, { ...noStore, ETag: proposalEtag(row), Location: `${deps.config.baseUrl}/api/proposals/${row.id}` });
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/proposals/{proposal_id}/flag',
      tags: ['proposals'],
      summary: 'Flag a pending proposal (once per user); enough flags reject it with decided_by null',
      request: { params: idParams, body: { content: { 'application/json': { schema: ProposalFlagIn.optional() } }, required: false } },
      responses: {
        200: json(ProposalFlagOut, 'Flagged'),
        ...E,
        403: json(ErrorDetail, 'Your own proposal: flags are for other people\'s'),
        409: json(ErrorDetail, 'Already flagged by this user, or the proposal is no longer pending'),
      },
    }),
    async (c, { params, body }) => {
      const p = await requireWriter(c, deps.writeLimiter);
      const reason = (body as { reason?: string } | undefined)?.reason || null;
      return c.json(await refusalsAnswered(() => flagProposal(store, params.proposal_id, p.user.id, reason)), 200, noStore);
    },
  );

}

/** The moderators' decision: accept, reject, apply or supersede. */
function registerDecisionRoute(app: OpenAPIHono, deps: CommunityDeps): void {
  const store = proposalStore(deps);
  const one = (row: ProposalRow) => publicOne(deps, row);
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/proposals/{proposal_id}/decision',
      tags: ['proposals'],
      summary: 'Decide a proposal (moderators): accept, reject, apply or supersede',
      description:
        'Transitions: accept pending→accepted; reject pending|accepted→rejected; apply accepted→applied; supersede pending|accepted→superseded (superseded_by required). rejected, applied and superseded are final; other moves are 409. Applying a concept_stub publishes its concept file (draft: false), only as reviewed: 409 when the draft file changed since the proposal was filed (its recorded file_sha256) or its body is not the proposal\'s. Applying a tag_correction rewrites the item\'s tags in its content file(s), a link_add adds the source or related concept to the concept\'s front matter, an essay_promotion writes the post\'s essay to essays/<slug>/<lang>.md; applied.files names the files written (the content watcher publishes them; editors commit them), and 409 when the result would not load. The apply is one audit event (proposal.apply, with the files) in the transaction that records it. Rejecting or superseding a concept_stub removes the draft file written for it (if still a draft), freeing its slug. The author is notified.',
      request: { params: idParams, body: { content: { 'application/json': { schema: ProposalDecisionIn } }, required: true } },
      responses: {
        200: json(PublicProposal, 'The proposal after the decision'),
        ...E,
        403: json(ErrorDetail, 'Not a moderator'),
        409: json(ErrorDetail, 'Transition not allowed from the current status'),
      },
    }),
    async (c, { params, body }) => {
      const p = requireRole(c, 'moderator');
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      const row = await refusalsAnswered(() =>
        decideProposal(
          store,
          { proposalId: params.proposal_id, moderatorId: p.user.id, action: body.action, note: body.note, supersededBy: body.superseded_by },
          (r) => planApply(r.kind, JSON.parse(r.payload), { contentDir: deps.config.contentDir, snapshot: deps.content().snapshot, post: (id) => promotedPost(deps.db, id) }),
        ),
      );
      return c.json(await one(row), 200, noStore);
    },
  );
}
