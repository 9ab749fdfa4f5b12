// What every post route shares (api/posts/routes.ts): the post's ETags, its JSON and the headers that carry
// its version, who may see and change a post, and the write made only against the version the caller read.
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { ApiError } from '../errors/index.ts';
import { actsAs, principal, requireUser } from '../auth/middleware.ts';
import { enforceRate } from '../rate-limit/index.ts';
import { ifMatchHolds, staleHint } from '../validation/if-match.ts';
import { publicUser } from '../auth/routes.ts';
import { canSeePost } from '../../src/lib/data/comments/entities.ts';
import type { CommunityDeps } from '../deps.ts';
import { createPostStore, type EssayRevision, type PostRow, type PostStore } from '../../src/lib/data/posts/store.ts';

/** Hooks for what else must know when a post becomes public or stops being so (the search live index). */
export interface PostListener {
  published(post: PostRow, essay: string): void;
  removed(postId: string): void;
}

/** The essay's ETag: the post and the essay's revision. */
export function etagOf(postId: string, revision: number): string {
  return `"${postId}.${revision}"`;
}

/**
 * The post's strong ETag: the version of its fields, state and essay, new with every change of them.
 * Votes and co-admins (their own resources) do not change it.
 */
export function postEtag(p: PostRow, essayRevision: number): string {
  const state = JSON.stringify([p.slug, p.title, p.summary, p.tags, p.lang, p.status, p.updated_at, p.submitted_at, p.published_at, essayRevision]);
  return `"${p.id}.${createHash('sha256').update(state).digest('hex').slice(0, 16)}"`;
}

/** What the post routes need: the community's dependencies, the post listener, the auto-publish rule. */
export type PostRouteDeps = CommunityDeps & { posts?: PostListener; autoPublishPosts?: boolean };
export const noStore = { 'Cache-Control': 'no-store' };

/** What every post route shares: the store, the post's JSON and headers, who may do what, the If-Match write. */
export function postRouteKit(deps: PostRouteDeps) {
  const { db, identity } = deps;
  const store = createPostStore(db, deps.audit, deps.notifications);
  const listener = deps.posts;
  const autoPublish = deps.autoPublishPosts ?? true;
  const views = postViews(deps, store);
  const { out, versioned } = views;
  /**
   * Runs `write` in one transaction with the If-Match check (RFC 9110 §13.1.1) against the post as it is
   * then; a stale If-Match writes nothing and answers 412 with the current post and its ETag.
   */
  async function conditionally<T>(c: Context, postId: string, change: string, write: () => Promise<T>): Promise<{ ok: T } | { stale: Response }> {
    const ifMatch = c.req.header('if-match');
    const stored = async () => {
      const row = await store.get(postId);
      if (!row) throw new ApiError(404, 'Post not found');
      return row;
    };
    // Under the write lock from the start: the check and the write it allows are one step for every instance.
    const result = await db.transaction(
      async () => (ifMatchHolds(ifMatch, postEtag(await stored(), (await store.essay(postId))?.revision ?? 0)) ? { ok: await write() } : null),
      { lock: true },
    );
    if (result) return result;
    const current = await out(await stored());
    const body = { detail: 'The post changed since you read it: nothing was written', hint: staleHint(change, current.etag), current };
    return { stale: c.json(body, 412, versioned(current)) };
  }
  const announce = async (post: PostRow) => {
    if (post.status === 'published') listener?.published(post, (await store.essay(post.id))?.body ?? '');
  };
  return { deps, identity, store, listener, autoPublish, ...views, ...postAccess(deps, store), conditionally, announce };
}
export type PostRouteKit = ReturnType<typeof postRouteKit>;

/** The JSON of a post and of its essay, and the headers that carry their versions. */
function postViews(deps: PostRouteDeps, store: PostStore) {
  const { identity } = deps;
  const out = async (p: PostRow) => {
    const [essay, author, coAdmins, votes] = await Promise.all([store.essay(p.id), identity.getUser(p.author_id), store.coAdmins(p.id), store.votes(p.id)]);
    const revision = essay?.revision ?? 0;
    return {
      post_id: p.id,
      slug: p.slug,
      title: p.title,
      summary: p.summary,
      tags: JSON.parse(p.tags) as string[],
      lang: p.lang,
      status: p.status,
      author: publicUser(author!),
      co_admins: coAdmins,
      votes,
      essay_revision: revision,
      essay_etag: etagOf(p.id, revision),
      etag: postEtag(p, revision),
      url: `/posts/${p.slug}`,
      api_url: `/api/posts/${p.slug}`,
      created_at: p.created_at,
      updated_at: p.updated_at,
      submitted_at: p.submitted_at,
      published_at: p.published_at,
    };
  };
  /** The headers that carry a post's version (and for a new one, where it is). */
  const versioned = (o: { etag: string }) => ({ ...noStore, ETag: o.etag });
  const created = (o: { post_id: string; etag: string }) => ({ ...versioned(o), Location: `${deps.config.baseUrl}/api/posts/${o.post_id}` });
  const essayOut = (postId: string, rev: EssayRevision | undefined) => ({
    post_id: postId,
    revision: rev?.revision ?? 0,
    body: rev?.body ?? '',
    etag: etagOf(postId, rev?.revision ?? 0),
    updated_at: rev?.created_at ?? null,
    updated_by: rev?.author_id ?? null,
  });
  return { out, versioned, created, essayOut };
}

/** Who may see and change a post: each check answers 404, 403 or 429 before anything is written. */
function postAccess(deps: PostRouteDeps, store: PostStore) {
  const { db } = deps;
  // Moderator powers over posts (reading others' drafts) need the moderate scope on OAuth tokens, as everywhere.
  const isMod = (c: Context) => actsAs(principal(c), 'moderator');
  /** The post if the caller may see it; 404 otherwise (drafts do not leak their existence). */
  async function visible(c: Context, idOrSlug: string): Promise<PostRow> {
    const post = await store.find(idOrSlug);
    if (!post || !(await canSeePost(db, post, principal(c)?.user.id ?? null, isMod(c)))) throw new ApiError(404, 'Post not found');
    return post;
  }
  /** The post if the caller is its author or a co-admin. */
  async function editable(c: Context, postId: string): Promise<{ post: PostRow; userId: string }> {
    const p = requireUser(c);
    const post = await visible(c, postId);
    if (post.author_id !== p.user.id && !(await store.isCoAdmin(post.id, p.user.id))) throw new ApiError(403, 'Only the author and co-admins can change this post');
    await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
    return { post, userId: p.user.id };
  }
  async function authorOnly(c: Context, postId: string): Promise<{ post: PostRow; userId: string }> {
    const p = requireUser(c);
    const post = await visible(c, postId);
    if (post.author_id !== p.user.id) throw new ApiError(403, 'Only the author can do this');
    await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
    return { post, userId: p.user.id };
  }
  return { visible, editable, authorOnly };
}

