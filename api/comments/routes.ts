// Comment and reaction endpoints, including the GET-only creation path for sandboxes that cannot POST.
// Permission rules, each checked once per route: anyone reads; signed-in people write; the author edits;
// the author or a moderator deletes; moderators hide, unhide and see hidden comments.
import { createHash } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { addRoute } from '../validation/route.ts';
import { limitParam, offsetParam, queryBool } from '../validation/index.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, jsonContent as json, WriteErrors } from '../openapi/schemas.ts';
import { principal, requireRole, requireScope, requireUser, requireWriter } from '../auth/middleware.ts';
import { enforceRate } from '../rate-limit/index.ts';
import { CREATED_HEADERS, ETAG_HEADER, IF_MATCH_DESCRIPTION } from '../validation/if-match.ts';
import type { CommunityDeps } from '../deps.ts';
import { ENTITY_TYPES } from '../../src/lib/data/comments/entities.ts';
import { REACTION_KINDS, type ReactionKind } from '../../src/lib/data/comments/store.ts';
import { entityExists } from './entities.ts';
import { COMMENT_IDS, commentRouteKit, isModerator, noStore, type CommentRouteKit } from './kit.ts';

export const COMMENT_MAX = 10_000;
export const GET_COMMENT_MAX = 1500;

const E = WriteErrors;
const Author = z.object({ id: z.string(), display_name: z.string(), handle: z.string() }).nullable();
const CommentOut = z
  .object({
    comment_id: z.string(),
    entity_type: z.enum(ENTITY_TYPES),
    entity_id: z.string(),
    parent_id: z.string().nullable(),
    author: Author,
    body: z.string(),
    hidden: z.boolean(),
    deleted: z.boolean(),
    edited: z.boolean(),
    reactions: z.record(z.string(), z.number().int()),
    mine: z.array(z.enum(REACTION_KINDS)).openapi({ description: "The caller's own reactions on this comment (empty when not signed in), as in ReactionOut." }),
    reply_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
    etag: z.string().openapi({ description: 'The strong ETag of this version of the comment (also the ETag header): send it as If-Match with PATCH or DELETE. Reactions and replies do not change it.' }),
  })
  .openapi('CommentOut');
const CommentList = z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), items: z.array(CommentOut) }).openapi('CommentList');
const CommentCreate = z
  .strictObject({
    entity_type: z.enum(ENTITY_TYPES),
    entity_id: z.string().min(1).max(200),
    body: z.string().trim().min(1).max(COMMENT_MAX),
    parent_id: z.string().max(100).optional(),
  })
  .openapi('CommentCreate');
const CommentUpdate = z.strictObject({ body: z.string().trim().min(1).max(COMMENT_MAX) }).openapi('CommentUpdate');
const ReactionCreate = z.strictObject({ kind: z.enum(REACTION_KINDS) }).openapi('ReactionCreate');
const ReactionOut = z
  .object({ comment_id: z.string(), counts: z.record(z.string(), z.number().int()), mine: z.array(z.string()) })
  .openapi('ReactionOut');
const idParams = z.object({ comment_id: z.string().max(100) });
const ifMatchHeader = z.object({ 'if-match': z.string().max(200).optional().openapi({ description: IF_MATCH_DESCRIPTION }) });
const Stale = z.object({ detail: z.string(), hint: z.string(), current: CommentOut }).openapi('CommentChanged');

/** Registers the comment routes: listing and creating, one comment, moderation and reactions. */
export function registerCommentRoutes(app: OpenAPIHono, deps: CommunityDeps) {
  const k = commentRouteKit(deps);
  registerCommentListRoutes(app, k);
  registerCommentGetCreateRoute(app, k);
  registerOneCommentRoutes(app, k);
  registerCommentModerationRoutes(app, k);
  registerReactionRoutes(app, k);
}

/** The comments on an item, and a new comment or reply. */
function registerCommentListRoutes(app: OpenAPIHono, k: CommentRouteKit) {
  const { deps, db, store, out, fresh, created, create } = k;
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/comments',
      tags: ['comments'],
      summary: 'Comments on an item, oldest first',
      request: {
        query: z.object({
          entity_type: z.enum(ENTITY_TYPES),
          entity_id: z.string().min(1).max(200),
          limit: limitParam(200, 50),
          offset: offsetParam(),
          include_hidden: queryBool(false, 'Include hidden comments (moderators only).'),
        }),
      },
      responses: { 200: json(CommentList, 'Comments'), ...E },
    }),
    async (c, { query }) => {
      if (query.include_hidden && !isModerator(c)) throw new ApiError(403, 'Only moderators see hidden comments');
      const p = principal(c);
      if (!(await entityExists(db, deps.content(), query.entity_type, query.entity_id, { userId: p?.user.id ?? null, isModerator: isModerator(c) }))) {
        throw new ApiError(404, `No ${query.entity_type} with id ${query.entity_id}`);
      }
      const { total, rows } = await store.list(query.entity_type, query.entity_id, { includeHidden: query.include_hidden, ownHiddenOf: p?.user.id, limit: query.limit, offset: query.offset });
      return c.json({ total, limit: query.limit, offset: query.offset, items: await out(c, rows) }, 200, noStore);
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/comments',
      tags: ['comments'],
      summary: 'Comment on an item, or reply with parent_id; @handle mentions notify people',
      request: { body: { content: { 'application/json': { schema: CommentCreate } }, required: true } },
      responses: { 201: { ...json(CommentOut, 'Created'), headers: CREATED_HEADERS }, ...E },
    }),
    async (c, { body }) => {
      const p = await requireWriter(c, deps.writeLimiter);
      const o = fresh(await create(c, body, p.user));
      return c.json(o, 201, created(o));
    },
  );

}

/** GET /api/comments/create: creation for sandboxes that cannot POST, bearer token only, idempotent by key. */
function registerCommentGetCreateRoute(app: OpenAPIHono, k: CommentRouteKit) {
  const { deps, store, one, fresh, versioned, created, create } = k;
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/comments/create',
      tags: ['comments'],
      summary: 'Create a comment with GET, for sandboxes that cannot POST (bearer token required; idempotent by key)',
      request: {
        query: z.object({
          entity_type: z.enum(ENTITY_TYPES),
          entity_id: z.string().min(1).max(200),
          body: z.string().trim().min(1).max(GET_COMMENT_MAX),
          idempotency_key: z.uuid(),
          parent_id: z.string().max(100).optional(),
        }),
      },
      responses: {
        200: { ...json(CommentOut, 'The comment this key created before (Content-Location names it)'), headers: ETAG_HEADER },
        201: { ...json(CommentOut, 'Created'), headers: CREATED_HEADERS },
        409: json(ErrorDetail, 'Key reused for another comment'),
        ...E,
      },
    }),
    async (c, { query }) => {
      const p = requireUser(c);
      requireScope(c, 'write'); // a GET that writes: an OAuth token needs `write`, as for POST
      // A GET that writes must not ride on a browser cookie: a link or an image could trigger it.
      if (p.via === 'session') throw new ApiError(401, 'GET /api/comments/create needs an Authorization: Bearer header', { 'WWW-Authenticate': 'Bearer' });
      const { idempotency_key: key, ...input } = query;
      const requestHash = createHash('sha256').update(JSON.stringify([input.entity_type, input.entity_id, input.parent_id ?? null, input.body])).digest('hex');
      const seen = await store.idempotent(p.user.id, key);
      if (seen) {
        if (seen.request_hash !== requestHash) throw new ApiError(409, 'This idempotency_key was already used for a different comment');
        const first = await one(c, (await store.get(seen.comment_id))!);
        return c.json(first, 200, { ...versioned(first), 'Content-Location': created(first).Location, 'Idempotent-Replayed': 'true' });
      }
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      const o = fresh(await create(c, input, p.user, (r) => store.rememberIdempotent(p.user.id, key, requestHash, r.id)));
      return c.json(o, 201, created(o));
    },
  );

}

/** One comment: read it with its ETag, edit it (author), delete it (author or moderator). */
function registerOneCommentRoutes(app: OpenAPIHono, k: CommentRouteKit) {
  const { deps, store, one, versioned, conditionally, visible } = k;
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/comments/{comment_id}',
      tags: ['comments'],
      summary: 'One comment, with its ETag',
      request: { params: idParams },
      responses: { 200: { ...json(CommentOut, 'Comment'), headers: ETAG_HEADER }, ...E },
    }),
    async (c, { params }) => {
      const o = await one(c, await visible(c, params.comment_id));
      return c.json(o, 200, versioned(o));
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'patch',
      path: '/api/comments/{comment_id}',
      tags: ['comments'],
      summary: 'Edit your comment (earlier versions are kept); with If-Match, only the version you read',
      request: { params: idParams, headers: ifMatchHeader, body: { content: { 'application/json': { schema: CommentUpdate } }, required: true } },
      responses: { 200: { ...json(CommentOut, 'Edited'), headers: ETAG_HEADER }, 412: { ...json(Stale, 'Changed since the If-Match version: nothing written; here is the current one'), headers: ETAG_HEADER }, ...E },
    }),
    async (c, { params, body }) => {
      const p = requireUser(c);
      const row = await visible(c, params.comment_id);
      if (row.deleted_at) throw new ApiError(404, 'Comment not found', {}, COMMENT_IDS);
      if (row.author_id !== p.user.id) throw new ApiError(403, 'Only the author can edit a comment');
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      const r = await conditionally(c, row.id, 'make your change to current.body', () => store.edit(row.id, body.body, p.user.id));
      if ('stale' in r) return r.stale;
      const o = await one(c, r.ok);
      return c.json(o, 200, versioned(o));
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'delete',
      path: '/api/comments/{comment_id}',
      tags: ['comments'],
      summary: 'Delete a comment (author or moderator); with If-Match, only the version you read',
      request: { params: idParams, headers: ifMatchHeader },
      responses: { 204: { description: 'Deleted' }, 412: { ...json(Stale, 'Changed since the If-Match version: nothing deleted; here is the current one'), headers: ETAG_HEADER }, ...E },
    }),
    async (c, { params }) => {
      const p = requireUser(c);
      const row = await visible(c, params.comment_id);
      if (row.deleted_at) throw new ApiError(404, 'Comment not found', {}, COMMENT_IDS);
      const mod = isModerator(c);
      if (row.author_id !== p.user.id && !mod) throw new ApiError(403, 'Only the author or a moderator can delete a comment');
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      const r = await conditionally(c, row.id, 'read it and decide whether to delete it', () => store.remove(row.id, p.user.id, row.author_id !== p.user.id));
      if ('stale' in r) return r.stale;
      return c.body(null, 204);
    },
  );

}

/** Moderators hide and unhide comments. */
function registerCommentModerationRoutes(app: OpenAPIHono, k: CommentRouteKit) {
  const { store, one, versioned, visible } = k;
  for (const action of ['hide', 'unhide'] as const) {
    addRoute(
      app,
      createRoute({
        method: 'post',
        path: `/api/comments/{comment_id}/${action}`,
        tags: ['comments', 'moderation'],
        summary: action === 'hide' ? 'Hide a comment from everyone but moderators' : 'Show a hidden comment again',
        request: { params: idParams },
        responses: { 200: { ...json(CommentOut, 'Done'), headers: ETAG_HEADER }, ...E },
      }),
      async (c, { params }) => {
        const p = requireRole(c, 'moderator');
        const row = await visible(c, params.comment_id);
        const o = await one(c, await store.setHidden(row.id, action === 'hide', p.user.id));
        return c.json(o, 200, versioned(o));
      },
    );
  }

}

/** Reactions to a comment, one per kind per person. */
function registerReactionRoutes(app: OpenAPIHono, k: CommentRouteKit) {
  const { deps, store, visible } = k;
  const reactionOut = async (commentId: string, userId: string) => {
    const [counts, mine] = await Promise.all([store.reactionCounts([commentId]), store.myReactions(commentId, userId)]);
    return { comment_id: commentId, counts: counts.get(commentId)!, mine };
  };
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/comments/{comment_id}/react',
      tags: ['comments'],
      summary: `React to a comment (one per kind per person; kinds: ${REACTION_KINDS.join(', ')})`,
      request: { params: idParams, body: { content: { 'application/json': { schema: ReactionCreate } }, required: true } },
      responses: { 200: json(ReactionOut, 'Counts after the reaction'), ...E },
    }),
    async (c, { params, body }) => {
      const p = requireUser(c);
      const row = await visible(c, params.comment_id);
      if (row.deleted_at) throw new ApiError(404, 'Comment not found', {}, COMMENT_IDS);
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      await store.react(row.id, p.user.id, body.kind);
      return c.json(await reactionOut(row.id, p.user.id), 200, noStore);
    },
  );
  addRoute(
    app,
    createRoute({
      method: 'delete',
      path: '/api/comments/{comment_id}/react/{kind}',
      tags: ['comments'],
      summary: 'Take a reaction back',
      request: { params: z.object({ comment_id: z.string().max(100), kind: z.enum(REACTION_KINDS) }) },
      responses: { 200: json(ReactionOut, 'Counts after'), ...E },
    }),
    async (c, { params }) => {
      const p = requireUser(c);
      const row = await visible(c, params.comment_id);
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      await store.unreact(row.id, p.user.id, params.kind as ReactionKind);
      return c.json(await reactionOut(row.id, p.user.id), 200, noStore);
    },
  );
}
