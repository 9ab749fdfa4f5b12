// What every comment route shares (api/comments/routes.ts): the comments' JSON and the headers that carry a
// comment's version, the write made only against the version the caller read, which comments the caller
// may see, and the creation path POST /api/comments and GET /api/comments/create have in common.
import type { Context } from 'hono';
import { ApiError } from '../errors/index.ts';
import { actsAs, principal } from '../auth/middleware.ts';
import { ifMatchHolds, staleHint } from '../validation/if-match.ts';
import type { CommunityDeps } from '../deps.ts';
import type { EntityType } from '../../src/lib/data/comments/entities.ts';
import { REACTION_KINDS, createCommentStore, type CommentAuthor, type CommentRow, type CommentStore, type CommentView } from '../../src/lib/data/comments/store.ts';
import { entityExists } from './entities.ts';

export const COMMENT_IDS = 'GET /api/comments?entity_type=<type>&entity_id=<id> lists the comments on an item with their comment_id (hidden and deleted ones are gone for you).';
export const noStore = { 'Cache-Control': 'no-store' };
export const isModerator = (c: Context) => actsAs(principal(c), 'moderator');

/** What every comment route shares: the store, the JSON, the If-Match write, visibility and creation. */
export function commentRouteKit(deps: CommunityDeps) {
  const { db, identity } = deps;
  const store = createCommentStore(db, deps.audit, identity, deps.notifications);
  const views = commentViews(deps, store);
  const { one, versioned } = views;

  /**
   * Runs `write` in one transaction with the If-Match check (RFC 9110 §13.1.1) against the comment as it is
   * then, so no other write comes between; a stale If-Match writes nothing and answers 412 with the current
   * comment and its ETag.
   */
  async function conditionally<T>(c: Context, id: string, change: string, write: () => Promise<T>): Promise<{ ok: T } | { stale: Response }> {
    const ifMatch = c.req.header('if-match');
    // Under the write lock from the start: the check and the write it allows are one step for every instance.
    const result = await db.transaction(async () => (ifMatchHolds(ifMatch, store.etag((await store.get(id))!)) ? { ok: await write() } : null), { lock: true });
    if (result) return result;
    const current = await one(c, (await store.get(id))!);
    const body = { detail: 'The comment changed since you read it: nothing was written', hint: staleHint(change, current.etag), current };
    return { stale: c.json(body, 412, versioned(current)) };
  }

  /** A comment the caller may see: not gone, not hidden (unless moderator), on an entity they may see. */
  async function visible(c: Context, id: string): Promise<CommentView> {
    const row = await store.get(id);
    const p = principal(c);
    const viewer = { userId: p?.user.id ?? null, isModerator: isModerator(c) };
    if (!row || (row.hidden && !viewer.isModerator) || (row.deleted_at && row.live_replies === 0) || !(await entityExists(db, deps.content(), row.entity_type, row.entity_id, viewer))) {
      throw new ApiError(404, 'Comment not found', {}, COMMENT_IDS);
    }
    return row;
  }

  /** The shared creation path of POST /api/comments and GET /api/comments/create. */
  async function create(c: Context, input: { entity_type: EntityType; entity_id: string; body: string; parent_id?: string }, author: CommentAuthor, extra?: (row: CommentRow) => Promise<void>): Promise<CommentView> {
    if (!(await entityExists(db, deps.content(), input.entity_type, input.entity_id, { userId: author.id, isModerator: isModerator(c) }))) {
      throw new ApiError(404, `No ${input.entity_type} with id ${input.entity_id}`);
    }
    let parentId: string | null = null;
    if (input.parent_id) {
      const parent = await store.get(input.parent_id);
      if (!parent || parent.deleted_at || parent.hidden || parent.entity_type !== input.entity_type || parent.entity_id !== input.entity_id) {
        throw new ApiError(404, 'The comment you reply to does not exist on this item');
      }
      parentId = parent.id;
    }
    return store.create({ entityType: input.entity_type, entityId: input.entity_id, parentId, author, body: input.body }, extra);
  }
  return { deps, db, store, ...views, conditionally, visible, create };
}
export type CommentRouteKit = ReturnType<typeof commentRouteKit>;

/** The JSON of comments (their reactions counted in one query) and the headers that carry a comment's version. */
function commentViews(deps: CommunityDeps, store: CommentStore) {
  const noReactions = () => Object.fromEntries(REACTION_KINDS.map((k) => [k, 0]));
  const json = (r: CommentView, reactions: Record<string, number>, mine: string[]) => ({
    comment_id: r.id,
    entity_type: r.entity_type,
    entity_id: r.entity_id,
    parent_id: r.parent_id,
    author: r.deleted_at ? null : { id: r.author_id, display_name: r.author_name, handle: r.author_handle },
    body: r.deleted_at ? '' : r.body,
    hidden: r.hidden === 1,
    deleted: r.deleted_at !== null,
    edited: !r.deleted_at && r.edits > 0,
    reactions,
    mine,
    reply_count: r.live_replies,
    created_at: r.created_at,
    updated_at: r.updated_at,
    etag: store.etag(r),
  });
  /** The comments as the caller `c` sees them: `mine` holds the caller's own reactions (none when anonymous). */
  async function out(c: Context, rows: CommentView[]) {
    const ids = rows.map((r) => r.id);
    const viewerId = principal(c)?.user.id;
    const [counts, mine] = await Promise.all([store.reactionCounts(ids), viewerId ? store.myReactionsOn(ids, viewerId) : new Map<string, string[]>()]);
    return rows.map((r) => json(r, counts.get(r.id)!, mine.get(r.id) ?? []));
  }
  /** One comment, and the headers that carry its version (and for a new one, where it is). */
  const one = async (c: Context, row: CommentView) => (await out(c, [row]))[0];
  /** A comment just created: no reactions, edits or replies yet (none of them the caller's), so nothing to read. */
  const fresh = (row: CommentView) => json(row, noReactions(), []);
  const versioned = (o: { etag: string }) => ({ ...noStore, ETag: o.etag });
  const created = (o: { comment_id: string; etag: string }) => ({ ...versioned(o), Location: `${deps.config.baseUrl}/api/comments/${o.comment_id}` });
  return { out, one, fresh, versioned, created };
}
