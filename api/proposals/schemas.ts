// How a proposal is asked for and shown: the request and response schemas behind validation, the 422s and
// /openapi.json. What a proposal may say, per kind, is the data layer's (src/lib/data/proposals/payloads.ts).
import { z } from '@hono/zod-openapi';
import { DECISION_ACTIONS, HttpUrl, PAYLOAD_SCHEMAS, PROPOSAL_KINDS, PROPOSAL_STATUSES } from '../../src/lib/data/proposals/payloads.ts';

export { DECISION_ACTIONS, PAYLOAD_SCHEMAS, PROPOSAL_KINDS, PROPOSAL_STATUSES, type DecisionAction, type Payload, type ProposalKind, type ProposalStatus } from '../../src/lib/data/proposals/payloads.ts';

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
