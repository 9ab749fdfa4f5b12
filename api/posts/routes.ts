// Post endpoints: the published list, your posts, one post by slug, edits, submission and review, the
// post essay with ETag/If-Match so two editors never overwrite each other silently, co-admins and votes.
// Who may do what, checked once per route: anyone reads published posts; the author and co-admins edit
// and submit; only the author deletes and manages co-admins; moderators review; signed-in people vote.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { addRoute } from '../validation/route.ts';
import { limitParam, offsetParam } from '../validation/index.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, jsonContent as json, WriteErrors } from '../openapi/schemas.ts';
import { principal, requireRole, requireUser, requireWriter } from '../auth/middleware.ts';
import { enforceRate } from '../rate-limit/index.ts';
import { CREATED_HEADERS, ETAG_HEADER, ifMatchHolds } from '../validation/if-match.ts';
import { publicUser } from '../auth/routes.ts';
import type { PostRow } from '../../src/lib/data/posts/store.ts';
import { etagOf, noStore, postRouteKit, type PostRouteDeps, type PostRouteKit } from './kit.ts';
import { AdminsOut, EssayOut, EssayPutBody, GrantCoAdminBody, ifMatchHeader, PostCreate, PostList, PostOut, PostUpdate, postIdOrSlugParam, postIdParam, ReviewBody, Stale, VoteOut } from './schemas.ts';

export type { PostListener } from './kit.ts';

const E = WriteErrors;

/** The shortest essay a post may be submitted with. */
export const SUBMIT_MIN_ESSAY = 200;

/** Registers the post routes: the posts themselves, their publication, essay, co-admins and votes. */
export function registerPostRoutes(app: OpenAPIHono, deps: PostRouteDeps) {
  const k = postRouteKit(deps);
  registerPostReadWriteRoutes(app, k);
  registerPostChangeRoutes(app, k);
  registerPostPublicationRoutes(app, k);
  registerPostEssayRoutes(app, k);
  registerPostCoAdminRoutes(app, k);
  registerPostVoteRoutes(app, k);
}

/** The published list, a new post, your posts and one post. */
function registerPostReadWriteRoutes(app: OpenAPIHono, k: PostRouteKit) {
  const { deps, store, out, created, versioned, visible } = k;
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/posts',
      tags: ['posts'],
      summary: 'Published posts',
      request: {
        query: z.object({
          tag: z.string().max(64).optional(),
          limit: limitParam(100, 20),
          offset: offsetParam(),
          sort: z.enum(['newest', 'oldest']).default('newest'),
        }),
      },
      responses: { 200: json(PostList, 'Posts'), 422: E[422] },
    }),
    async (c, { query }) => {
      const { total, rows } = await store.listPublished(query);
      return c.json({ total, limit: query.limit, offset: query.offset, items: await Promise.all(rows.map(out)) }, 200, { 'Cache-Control': 'public, max-age=30' });
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/posts',
      tags: ['posts'],
      summary: 'Create a post (a draft)',
      request: { body: { content: { 'application/json': { schema: PostCreate } }, required: true } },
      responses: { 201: { ...json(PostOut, 'Created'), headers: CREATED_HEADERS }, ...E },
    }),
    async (c, { body }) => {
      const p = await requireWriter(c, deps.writeLimiter);
      const o = await out(await store.create({ authorId: p.user.id, ...body }));
      return c.json(o, 201, created(o));
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/posts/me',
      tags: ['posts'],
      summary: 'Your posts (as author or co-admin), in every state',
      request: { query: z.object({ limit: limitParam(200, 50), offset: offsetParam() }) },
      responses: { 200: json(PostList, 'Posts'), ...E },
    }),
    async (c, { query }) => {
      const p = requireUser(c);
      const { total, rows } = await store.listMine(p.user.id, query.limit, query.offset);
      return c.json({ total, limit: query.limit, offset: query.offset, items: await Promise.all(rows.map(out)) }, 200, noStore);
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/posts/{post_id}',
      tags: ['posts'],
      summary: 'One post by slug (or id), with its ETag',
      request: { params: postIdOrSlugParam },
      responses: { 200: { ...json(PostOut, 'Post'), headers: ETAG_HEADER }, 404: E[404] },
    }),
    async (c, { params }) => {
      const o = await out(await visible(c, params.post_id));
      return c.json(o, 200, versioned(o));
    },
  );

}

/** Changing and deleting a post, each against the version the caller read (If-Match). */
function registerPostChangeRoutes(app: OpenAPIHono, k: PostRouteKit) {
  const { store, listener, autoPublish, out, versioned, editable, authorOnly, conditionally, announce } = k;
  addRoute(
    app,
    createRoute({
      method: 'patch',
      path: '/api/posts/{post_id}',
      tags: ['posts'],
      summary: 'Change a post (author or co-admin)',
      description: 'With POSTS_AUTO_PUBLISH=false a change to a published post sends it back to review (status submitted): it leaves the public lists and search until a moderator publishes it again, so no unreviewed text is public.',
      request: { params: postIdParam, headers: ifMatchHeader, body: { content: { 'application/json': { schema: PostUpdate } }, required: true } },
      responses: { 200: { ...json(PostOut, 'Updated'), headers: ETAG_HEADER }, 412: { ...json(Stale, 'Changed since the If-Match version: nothing written; here is the current one'), headers: ETAG_HEADER }, ...E },
    }),
    async (c, { params, body }) => {
      const { post, userId } = await editable(c, params.post_id);
      const r = await conditionally(c, post.id, 'make your change to current', () => store.update(post.id, body, userId, !autoPublish));
      if ('stale' in r) return r.stale;
      const updated = r.ok;
      if (post.status === 'published' && updated.status !== 'published') listener?.removed(post.id);
      await announce(updated);
      const o = await out(updated);
      return c.json(o, 200, versioned(o));
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'delete',
      path: '/api/posts/{post_id}',
      tags: ['posts'],
      summary: 'Delete a post (author only); with If-Match, only the version you read',
      request: { params: postIdParam, headers: ifMatchHeader },
      responses: { 204: { description: 'Deleted' }, 412: { ...json(Stale, 'Changed since the If-Match version: nothing deleted; here is the current one'), headers: ETAG_HEADER }, ...E },
    }),
    async (c, { params }) => {
      const { post, userId } = await authorOnly(c, params.post_id);
      const r = await conditionally(c, post.id, 'read it and decide whether to delete it', () => store.remove(post.id, userId));
      if ('stale' in r) return r.stale;
      listener?.removed(post.id);
      return c.body(null, 204);
    },
  );

}

/** Submission by the author and review by a moderator. */
function registerPostPublicationRoutes(app: OpenAPIHono, k: PostRouteKit) {
  const { store, autoPublish, out, versioned, visible, editable, announce } = k;
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/posts/{post_id}/submit',
      tags: ['posts'],
      summary: 'Submit a draft for publication: published at once when it passes the checks and auto-publish is on, otherwise queued for a moderator',
      request: { params: postIdParam },
      responses: { 202: json(PostOut, 'Accepted'), 409: json(ErrorDetail, 'Not a draft, or the checks fail'), ...E },
    }),
    async (c, { params }) => {
      const { post, userId } = await editable(c, params.post_id);
      const already = (status: string) =>
        new ApiError(409, `The post is already ${status}`, {}, status === 'submitted' ? 'Nothing to do: a moderator reviews it next (GET /api/posts/me shows its status).' : 'Nothing to do: it is already public.');
      if (post.status !== 'draft' && post.status !== 'rejected') throw already(post.status);
      const essay = (await store.essay(post.id))?.body.trim() ?? '';
      const problems = [!essay && 'the essay is empty', essay && essay.length < SUBMIT_MIN_ESSAY && `the essay is shorter than ${SUBMIT_MIN_ESSAY} characters (it has ${essay.length})`, post.summary.trim() === '' && 'the summary is empty'].filter(Boolean);
      if (problems.length) {
        const fixes = [
          (!essay || essay.length < SUBMIT_MIN_ESSAY) && `write at least ${SUBMIT_MIN_ESSAY} characters of essay with PUT /api/posts/${post.id}/essay (If-Match: the ETag of GET /api/posts/${post.id}/essay)`,
          post.summary.trim() === '' && `add a summary with PATCH /api/posts/${post.id} {"summary": "…"}`,
        ].filter(Boolean);
        throw new ApiError(409, `The post cannot be submitted yet: ${problems.join('; ')}`, {}, `First ${fixes.join(', and ')}; then POST /api/posts/${post.id}/submit again.`);
      }
      const submitted = await store.submit(post.id, userId, autoPublish);
      // null: another request submitted (or deleted) it since it was read.
      if (!submitted) throw already((await store.get(post.id))?.status ?? 'deleted');
      await announce(submitted);
      const o = await out(submitted);
      return c.json(o, 202, versioned(o));
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/posts/{post_id}/review',
      tags: ['posts', 'moderation'],
      summary: 'Publish or reject a submitted post (moderators)',
      request: { params: postIdParam, body: { content: { 'application/json': { schema: ReviewBody } }, required: true } },
      responses: { 200: json(PostOut, 'Reviewed'), 409: json(ErrorDetail, 'Not submitted'), ...E },
    }),
    async (c, { params, body }) => {
      const p = requireRole(c, 'moderator');
      const post = await visible(c, params.post_id);
      const notSubmitted = (status: string) => new ApiError(409, `Only submitted posts are reviewed; this one is ${status}`);
      if (post.status !== 'submitted') throw notSubmitted(post.status);
      const reviewed = await store.review(post.id, body.action, p.user.id, body.note);
      // null: another moderator reviewed it since it was read.
      if (!reviewed) throw notSubmitted((await store.get(post.id))?.status ?? 'deleted');
      await announce(reviewed);
      const o = await out(reviewed);
      return c.json(o, 200, versioned(o));
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/moderation/posts',
      tags: ['posts', 'moderation'],
      summary: 'Submitted posts waiting for review, the longest waiting first (moderators)',
      request: { query: z.object({ limit: limitParam(200, 50), offset: offsetParam() }) },
      responses: { 200: json(PostList, 'Submitted posts'), 401: E[401], 403: json(ErrorDetail, 'Not a moderator'), 422: E[422] },
    }),
    async (c, { query }) => {
      requireRole(c, 'moderator');
      const { total, rows } = await store.listSubmitted(query.limit, query.offset);
      return c.json({ total, limit: query.limit, offset: query.offset, items: await Promise.all(rows.map(out)) }, 200, noStore);
    },
  );

}

/** The post essay: read it with its ETag, replace it with If-Match. */
function registerPostEssayRoutes(app: OpenAPIHono, k: PostRouteKit) {
  const { store, listener, autoPublish, essayOut, visible, editable } = k;
  addRoute(
    app,
    createRoute({ method: 'get', path: '/api/posts/{post_id}/essay', tags: ['posts'], summary: 'The post essay, with its ETag', request: { params: postIdParam }, responses: { 200: json(EssayOut, 'Essay'), 404: E[404] } }),
    async (c, { params }) => {
      const post = await visible(c, params.post_id);
      const e = essayOut(post.id, await store.essay(post.id));
      return c.json(e, 200, { ...noStore, ETag: e.etag });
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'put',
      path: '/api/posts/{post_id}/essay',
      tags: ['posts'],
      summary: 'Replace the post essay; send If-Match with the ETag you read (412 when someone saved in between)',
      description: 'With POSTS_AUTO_PUBLISH=false a new essay of a published post sends the post back to review (status submitted) until a moderator publishes it again.',
      request: {
        params: postIdParam,
        headers: z.object({ 'if-match': z.string().max(200).optional() }),
        body: { content: { 'application/json': { schema: EssayPutBody } }, required: true },
      },
      responses: {
        200: json(EssayOut, 'Saved'),
        412: json(z.object({ detail: z.string(), hint: z.string(), current: EssayOut }), 'Someone saved a newer version: here it is'),
        428: json(ErrorDetail, 'If-Match is required once the essay has content'),
        ...E,
      },
    }),
    async (c, { params, body }) => {
      const { post, userId } = await editable(c, params.post_id);
      const current = await store.essay(post.id);
      const ifMatch = c.req.header('if-match');
      let expected: number | null = null;
      if (ifMatch === undefined) {
        // Without If-Match a second editor would silently overwrite the first: refuse once there is text.
        if (current) {
          throw new ApiError(428, 'Send If-Match with the ETag of the version you edited (GET the essay first)', {}, `GET /api/posts/${post.id}/essay, edit its body, and send its ETag header (for example If-Match: ${etagOf(post.id, current.revision)}) with the PUT.`);
        }
      } else if (ifMatch.trim() !== '*') {
        // The strong comparison (api/validation/if-match.ts): a weak W/ ETag never matches.
        expected = ifMatchHolds(ifMatch, etagOf(post.id, current?.revision ?? 0)) ? (current?.revision ?? 0) : -1;
      }
      const saved = expected === -1 ? null : await store.writeEssay(post.id, body.body, userId, expected ?? current?.revision ?? 0, !autoPublish);
      if (!saved) {
        const latest = essayOut(post.id, await store.essay(post.id));
        return c.json(
          {
            detail: 'The essay changed since you read it; merge with the current version and try again',
            hint: `current holds the newer version: merge your text into current.body and PUT again with If-Match: ${latest.etag}.`,
            current: latest,
          },
          412,
          { ...noStore, ETag: latest.etag },
        );
      }
      const e = essayOut(post.id, saved);
      const now = (await store.get(post.id))!;
      if (now.status === 'published') listener?.published(now, saved.body);
      else if (post.status === 'published') listener?.removed(post.id);
      return c.json(e, 200, { ...noStore, ETag: e.etag });
    },
  );

}

/** The post's co-admins: listed by anyone who sees it, granted by the author, removed by either. */
function registerPostCoAdminRoutes(app: OpenAPIHono, k: PostRouteKit) {
  const { deps, identity, store, visible, authorOnly } = k;
  const person = async (id: string) => publicUser((await identity.getUser(id))!);
  const adminsOut = async (post: PostRow) => ({
    post_id: post.id,
    author: await person(post.author_id),
    admins: await Promise.all((await store.coAdmins(post.id)).map(person)),
  });
  addRoute(
    app,
    createRoute({ method: 'get', path: '/api/posts/{post_id}/admins', tags: ['posts'], summary: 'The author and co-admins', request: { params: postIdParam }, responses: { 200: json(AdminsOut, 'Admins'), 404: E[404] } }),
    async (c, { params }) => c.json(await adminsOut(await visible(c, params.post_id)), 200, noStore),
  );
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/posts/{post_id}/admins',
      tags: ['posts'],
      summary: 'Make someone a co-admin (author only)',
      request: { params: postIdParam, body: { content: { 'application/json': { schema: GrantCoAdminBody } }, required: true } },
      responses: { 201: json(AdminsOut, 'Granted'), 409: json(ErrorDetail, 'Already a co-admin, or the author'), ...E },
    }),
    async (c, { params, body }) => {
      const { post, userId } = await authorOnly(c, params.post_id);
      if (!(await identity.getUser(body.user_id))) throw new ApiError(404, 'User not found');
      if (body.user_id === post.author_id) throw new ApiError(409, 'The author is already in charge of this post');
      if (!(await store.grantCoAdmin(post.id, body.user_id, userId, post.title))) throw new ApiError(409, 'Already a co-admin');
      return c.json(await adminsOut(post), 201, noStore);
    },
  );
  addRoute(
    app,
    createRoute({
      method: 'delete',
      path: '/api/posts/{post_id}/admins/{user_id}',
      tags: ['posts'],
      summary: 'Remove a co-admin (the author, or co-admins themselves)',
      request: { params: z.object({ post_id: z.string().max(100), user_id: z.string().max(100) }) },
      responses: { 204: { description: 'Removed' }, ...E },
    }),
    async (c, { params }) => {
      const p = requireUser(c);
      const post = await visible(c, params.post_id);
      if (p.user.id !== post.author_id && p.user.id !== params.user_id) throw new ApiError(403, 'Only the author can remove other co-admins');
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      if (!(await store.revokeCoAdmin(post.id, params.user_id, p.user.id))) throw new ApiError(404, 'Not a co-admin of this post');
      return c.body(null, 204);
    },
  );

}

/** Votes on the essay of a published post. */
function registerPostVoteRoutes(app: OpenAPIHono, k: PostRouteKit) {
  const { deps, store, visible } = k;
  const voteOut = async (postId: string, userId: string | null) => {
    const [votes, voted] = await Promise.all([store.votes(postId), userId ? store.hasVoted(postId, userId) : false]);
    return { post_id: postId, votes, voted };
  };
  addRoute(
    app,
    createRoute({ method: 'get', path: '/api/posts/{post_id}/essay/votes', tags: ['posts'], summary: 'Votes on the essay', request: { params: postIdParam }, responses: { 200: json(VoteOut, 'Votes'), 404: E[404] } }),
    async (c, { params }) => {
      const post = await visible(c, params.post_id);
      return c.json(await voteOut(post.id, principal(c)?.user.id ?? null), 200, noStore);
    },
  );
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/posts/{post_id}/essay/vote',
      tags: ['posts'],
      summary: 'Vote for the essay (one vote per person; not your own post)',
      request: { params: postIdParam },
      responses: { 200: json(VoteOut, 'Votes'), 409: json(ErrorDetail, 'Not published, or your own post'), ...E },
    }),
    async (c, { params }) => {
      const p = requireUser(c);
      const post = await visible(c, params.post_id);
      if (post.status !== 'published') throw new ApiError(409, 'Only published posts can be voted on', {}, 'Vote once the post is published (GET /api/posts lists published posts).');
      if (post.author_id === p.user.id || (await store.isCoAdmin(post.id, p.user.id))) {
        throw new ApiError(409, 'You cannot vote for a post you write', {}, `You are its ${post.author_id === p.user.id ? 'author' : 'co-admin'}: votes are for other people's posts. Nothing to retry.`);
      }
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      await store.vote(post, p.user.id, p.user.display_name);
      return c.json(await voteOut(post.id, p.user.id), 200, noStore);
    },
  );
  addRoute(
    app,
    createRoute({ method: 'delete', path: '/api/posts/{post_id}/essay/vote', tags: ['posts'], summary: 'Take your vote back', request: { params: postIdParam }, responses: { 204: { description: 'Removed' }, ...E } }),
    async (c, { params }) => {
      const p = requireUser(c);
      const post = await visible(c, params.post_id);
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      if (!(await store.unvote(post.id, p.user.id))) throw new ApiError(404, 'You have not voted for this post');
      return c.body(null, 204);
    },
  );
}
