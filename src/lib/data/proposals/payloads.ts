// What a proposal may say, per kind: the kinds, statuses and decisions, and each kind's payload schema,
// which the store checks for the pipeline and the API alike. Payloads reuse the content schema's types.
import { z } from '@hono/zod-openapi';
import { ConceptSource, Lang, Slug, Tag, VideoId, IsoDate } from '../../content/schema.ts';

export const PROPOSAL_KINDS = ['link_add', 'tag_correction', 'concept_stub', 'essay_promotion'] as const;
export type ProposalKind = (typeof PROPOSAL_KINDS)[number];
export const PROPOSAL_STATUSES = ['pending', 'accepted', 'rejected', 'applied', 'superseded'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];
export const DECISION_ACTIONS = ['accept', 'reject', 'apply', 'supersede'] as const;
export type DecisionAction = (typeof DECISION_ACTIONS)[number];

export const HttpUrl = z.url({ protocol: /^https?$/, message: 'expected an http(s) URL' }).max(2048);

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
