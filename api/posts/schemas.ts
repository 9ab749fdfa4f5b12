// The shapes of the post endpoints (api/posts/routes.ts): what they take and answer, as OpenAPI schemas.
import { z } from '@hono/zod-openapi';
import { IF_MATCH_DESCRIPTION } from '../validation/if-match.ts';
import { UserPublicOut } from '../auth/routes.ts';

const Tag = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lower-case kebab-case').max(64);
export const PostOut = z
  .object({
    post_id: z.string(),
    slug: z.string(),
    title: z.string(),
    summary: z.string(),
    tags: z.array(z.string()),
    lang: z.enum(['en', 'sl']),
    status: z.enum(['draft', 'submitted', 'published', 'rejected']),
    author: UserPublicOut,
    co_admins: z.array(z.string()),
    votes: z.number().int(),
    essay_revision: z.number().int(),
    essay_etag: z.string().openapi({ description: 'The ETag of the essay\'s current version: the If-Match of the next PUT /api/posts/{post_id}/essay.' }),
    etag: z.string().openapi({ description: 'The strong ETag of this version of the post (also the ETag header): send it as If-Match with PATCH or DELETE. Votes and co-admins do not change it.' }),
    url: z.string(),
    api_url: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    submitted_at: z.string().nullable(),
    published_at: z.string().nullable(),
  })
  .openapi('PostOut');
export const PostList = z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), items: z.array(PostOut) }).openapi('PostList');
export const PostCreate = z
  .strictObject({
    title: z.string().trim().min(3).max(200),
    summary: z.string().trim().max(1000).default(''),
    tags: z.array(Tag).max(10).default([]),
    lang: z.enum(['en', 'sl']).default('en'),
    body: z.string().max(100_000).optional().openapi({ description: 'The first version of the post essay (Markdown).' }),
  })
  .openapi('PostCreate');
export const PostUpdate = z
  .strictObject({ title: z.string().trim().min(3).max(200).optional(), summary: z.string().trim().max(1000).optional(), tags: z.array(Tag).max(10).optional(), lang: z.enum(['en', 'sl']).optional() })
  .openapi('PostUpdate');
export const EssayOut = z
  .object({ post_id: z.string(), revision: z.number().int(), body: z.string(), etag: z.string(), updated_at: z.string().nullable(), updated_by: z.string().nullable() })
  .openapi('EssayOut');
export const EssayPutBody = z.strictObject({ body: z.string().max(100_000) }).openapi('EssayPutBody');
export const AdminsOut = z.object({ post_id: z.string(), author: UserPublicOut, admins: z.array(UserPublicOut) }).openapi('AdminsOut');
export const GrantCoAdminBody = z.strictObject({ user_id: z.string().min(1).max(100) }).openapi('GrantCoAdminBody');
export const VoteOut = z.object({ post_id: z.string(), votes: z.number().int(), voted: z.boolean() }).openapi('VoteOut');
export const ReviewBody = z.strictObject({ action: z.enum(['publish', 'reject']), note: z.string().max(1000).optional() }).openapi('PostReviewBody');
export const postIdParam = z.object({ post_id: z.string().max(100) });
// The spec's GET /api/posts/{slug} and the other methods' /api/posts/{post_id} are one URL: documented as one
// path (two templates differing only in the name are ambiguous, OpenAPI 3.1 §4.8.8), whose GET takes either.
export const postIdOrSlugParam = z.object({ post_id: z.string().max(200).openapi({ description: 'The post id (pst_…) or its slug.' }) });
export const ifMatchHeader = z.object({ 'if-match': z.string().max(200).optional().openapi({ description: IF_MATCH_DESCRIPTION }) });
export const Stale = z.object({ detail: z.string(), hint: z.string(), current: PostOut }).openapi('PostChanged');
