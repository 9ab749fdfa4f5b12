// What a proposal may say, per kind, and how one is shown: the zod schemas behind validation, the 422s
// and /openapi.json. Payloads reuse the content schema's types (slugs, tags, concept sources).
import { z } from '@hono/zod-openapi';
import { ConceptSource, Lang, Slug, Tag, VideoId, IsoDate } from '../../src/lib/content/schema.ts';

export const PROPOSAL_KINDS = ['link_add', 'tag_correction', 'concept_stub', 'essay_promotion'] as const;
export type ProposalKind = (typeof PROPOSAL_KINDS)[number];
export const PROPOSAL_STATUSES = ['pending', 'accepted', 'rejected', 'applied', 'superseded'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];
export const DECISION_ACTIONS = ['accept', 'reject', 'apply', 'supersede'] as const;
export type DecisionAction = (typeof DECISION_ACTIONS)[number];

const HttpUrl = z.url({ protocol: /^https?$/, message: 'expected an http(s) URL' }).max(2048);

/** What link_add adds to a concept: a source it cites, or a related concept. */
const ConceptLink = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('video'), id: VideoId }),
  z.strictObject({ type: z.literal('essay'), id: Slug }),
  z.strictObject({ type: z.literal('digest'), id: IsoDate }),
  z.strictObject({ type: z.literal('knowledge'), id: Slug }),
  z.strictObject({ type: z.literal('web_page'), url: HttpUrl, title: z.string().trim().min(1).max(300) }),
]);

const TaggedTarget = z.strictObject({ type: z.enum(['video', 'essay', 'knowledge']), id: z.string().min(1).max(200) });

export const PAYLOAD_SCHEMAS = {
  /** Add a source (video, essay, digest, web page) or a related concept to a knowledge concept. */
  link_add: z.strictObject({ concept: Slug, link: ConceptLink }).openapi('LinkAddPayload'),
  /** Add and/or remove tags of a video, essay or concept. */
  tag_correction: z
    .strictObject({ target: TaggedTarget, add: z.array(Tag).max(12).default([]), remove: z.array(Tag).max(12).default([]) })
    .refine((p) => p.add.length + p.remove.length > 0, { message: 'add or remove at least one tag', path: ['add'] })
    .refine((p) => !p.add.some((t) => p.remove.includes(t)), { message: 'a tag cannot be both added and removed', path: ['remove'] })
    .openapi('TagCorrectionPayload'),
  /** A new knowledge concept: the draft file (when one was written) or everything needed to write it. */
  concept_stub: z
    .strictObject({
      slug: Slug,
      title: z.string().trim().min(1).max(200),
      summary: z.string().trim().min(1).max(1000),
      tags: z.array(Tag).max(12).default([]),
      sources: z.array(ConceptSource).min(1, 'a concept needs at least one source').max(30),
      body: z.string().max(50_000).default(''),
      /** content/-relative path of a draft already written (POST /api/sources/knowledge, the pipeline). */
      file: z.string().regex(/^knowledge\/[a-z0-9]+(?:-[a-z0-9]+)*\.md$/).optional(),
      /** sha256 of that file as filed: apply refuses (409) a file that changed since, as nobody reviewed it. */
      file_sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
    })
    .openapi('ConceptStubPayload'),
  /** Promote a published post's essay into the curated essays. */
  essay_promotion: z.strictObject({ post_id: z.string().min(1).max(100), lang: Lang.default('en') }).openapi('EssayPromotionPayload'),
} as const;

export type Payload<K extends ProposalKind> = z.output<(typeof PAYLOAD_SCHEMAS)[K]>;

/** Evidence a user may attach; `community_flags` is the service's own and cannot be supplied. */
const UserEvidence = z
  .strictObject({ rationale: z.string().max(2000).optional(), links: z.array(HttpUrl).max(10).optional() })
  .openapi('ProposalEvidenceIn');

const Title = z.string().trim().min(1).max(200);
export const ProposalCreate = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('link_add'), title: Title, payload: PAYLOAD_SCHEMAS.link_add, evidence: UserEvidence.optional() }),
    z.strictObject({ kind: z.literal('tag_correction'), title: Title, payload: PAYLOAD_SCHEMAS.tag_correction, evidence: UserEvidence.optional() }),
    z.strictObject({ kind: z.literal('concept_stub'), title: Title, payload: PAYLOAD_SCHEMAS.concept_stub.omit({ file: true, file_sha256: true }), evidence: UserEvidence.optional() }),
    z.strictObject({ kind: z.literal('essay_promotion'), title: Title, payload: PAYLOAD_SCHEMAS.essay_promotion, evidence: UserEvidence.optional() }),
  ])
  .openapi('ProposalCreate');
export type ProposalCreate = z.output<typeof ProposalCreate>;

export const ProposalFlagIn = z
  .strictObject({ reason: z.string().trim().max(500).optional() })
  .openapi('ProposalFlagIn', { description: 'Optional. Why the proposal should not be applied; shown publicly without who flagged.' });

export const ProposalFlagOut = z
  .object({
    proposal_id: z.string(),
    flags: z.number().int().describe('Community flags on the proposal, this one included'),
    threshold: z.number().int().describe('Flags that reject a pending proposal (AUTO_REJECT_FLAG_THRESHOLD)'),
    status: z.enum(PROPOSAL_STATUSES),
    decided_by: z.string().nullable().describe('null: not decided, or rejected by community flags'),
  })
  .openapi('ProposalFlagOut');

export const ProposalDecisionIn = z
  .strictObject({
    action: z.enum(DECISION_ACTIONS),
    note: z.string().trim().max(1000).optional(),
    superseded_by: z.string().min(1).max(100).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.action === 'supersede' && !b.superseded_by) ctx.addIssue({ code: 'custom', path: ['superseded_by'], message: 'superseded_by is required to supersede a proposal' });
    if (b.action !== 'supersede' && b.superseded_by) ctx.addIssue({ code: 'custom', path: ['superseded_by'], message: 'superseded_by only goes with action supersede' });
  })
  .openapi('ProposalDecisionIn', {
    description:
      'A moderator decision. Allowed transitions: accept pending→accepted; reject pending|accepted→rejected; apply accepted→applied; supersede pending|accepted→superseded (superseded_by names the proposal that replaces it). rejected, applied and superseded are final; anything else is 409.',
  });

export const CommunityFlags = z
  .object({
    count: z.number().int(),
    threshold: z.number().int(),
    flags: z.array(z.object({ reason: z.string().nullable(), created_at: z.string() })).describe('Oldest first; who flagged is never shown'),
  })
  .openapi('CommunityFlags');

export const ApplyResult = z
  .object({
    content_changed: z.boolean().describe('Whether applying changed files in content/'),
    files: z.array(z.string()).describe('content/-relative paths written'),
    note: z.string(),
  })
  .openapi('ApplyResult');

export const PublicProposal = z
  .object({
    proposal_id: z.string(),
    kind: z.enum(PROPOSAL_KINDS),
    status: z.enum(PROPOSAL_STATUSES),
    title: z.string(),
    target: z.object({ type: z.string(), id: z.string() }).nullable(),
    payload: z.record(z.string(), z.unknown()),
    confidence: z.number().min(0).max(1),
    evidence: z.object({ community_flags: CommunityFlags }).catchall(z.unknown()),
    source: z.enum(['user', 'pipeline']),
    created_by: z.string().nullable().describe('User id of the proposer; null for the pipeline'),
    decided_by: z.string().nullable().describe('User id of the deciding moderator; null while pending and when rejected by community flags'),
    decision_note: z.string().nullable(),
    superseded_by: z.string().nullable(),
    created_at: z.string(),
    decided_at: z.string().nullable().describe('When the proposal reached its current decided status'),
    applied_at: z.string().nullable(),
    applied: ApplyResult.nullable(),
  })
  .openapi('PublicProposal');

export const PublicProposalList = z
  .object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), items: z.array(PublicProposal) })
  .openapi('PublicProposalList');
