// What every comment route shares (api/comments/routes.ts): the comments' JSON and the headers that carry a
// comment's version, the write made only against the version the caller read, which comments the caller
// may see, and the creation path POST /api/comments and GET /api/comments/create have in common.
import type { Context } from 'hono';
import { ApiError } from '../errors/index.ts';
import { actsAs, principal } from '../auth/middleware.ts';
import { ifMatchHolds, staleHint } from '../validation/if-match.ts';
import type { CommunityDeps } from '../deps.ts';
import type { User } from '../auth/identity.ts';
import { entityExists, type EntityType } from './entities.ts';
import { createCommentStore, type CommentRow, type CommentStore } from './store.ts';

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
  function conditionally<T>(c: Context, id: string, change: string, write: () => T): { ok: T } | { stale: Response } {
    const ifMatch = c.req.header('if-match');
    const result = db.transaction(() => (ifMatchHolds(ifMatch, store.etag(store.get(id)!)) ? { ok: write() } : null)).immediate();
    if (result) return result;
    const current = one(c, store.get(id)!);
    const body = { detail: 'The comment changed since you read it: nothing was written', hint: staleHint(change, current.etag), current };
    return { stale: c.json(body, 412, versioned(current)) };
  }

  /** A comment the caller may see: not gone, not hidden (unless moderator), on an entity they may see. */
  function visible(c: Context, id: string): CommentRow {
    const row = store.get(id);
    const p = principal(c);
    const viewer = { userId: p?.user.id ?? null, isModerator: isModerator(c) };
    if (!row || (row.hidden && !viewer.isModerator) || (row.deleted_at && store.liveReplyCount(id) === 0) || !entityExists(db, deps.content(), row.entity_type, row.entity_id, viewer)) {
      throw new ApiError(404, 'Comment not found', {}, COMMENT_IDS);
    }
    return row;
  }

  /** The shared creation path of POST /api/comments and GET /api/comments/create. */
  function create(c: Context, input: { entity_type: EntityType; entity_id: string; body: string; parent_id?: string }, userId: string, extra?: (row: CommentRow) => void): CommentRow {
    if (!entityExists(db, deps.content(), input.entity_type, input.entity_id, { userId, isModerator: isModerator(c) })) {
      throw new ApiError(404, `No ${input.entity_type} with id ${input.entity_id}`);
    }
    let parentId: string | null = null;
    if (input.parent_id) {
      const parent = store.get(input.parent_id);
      if (!parent || parent.deleted_at || parent.hidden || parent.entity_type !== input.entity_type || parent.entity_id !== input.entity_id) {
        throw new ApiError(404, 'The comment you reply to does not exist on this item');
      }
      parentId = parent.id;
    }
    return store.create({ entityType: input.entity_type, entityId: input.entity_id, parentId, authorId: userId, body: input.body }, extra);
  }
  return { deps, db, store, ...views, conditionally, visible, create };
}
export type CommentRouteKit = ReturnType<typeof commentRouteKit>;

/** The JSON of comments (authors looked up once per list) and the headers that carry a comment's version. */
function commentViews(deps: CommunityDeps, store: CommentStore) {
  const { identity } = deps;
  const authorOf = (c: CommentRow, cache: Map<string, User | undefined>) => {
    if (c.deleted_at) return null;
    if (!cache.has(c.author_id)) cache.set(c.author_id, identity.getUser(c.author_id));
    const u = cache.get(c.author_id)!;
    return { id: u.id, display_name: u.display_name, handle: u.handle };
  };
  /** The comments as the caller `c` sees them: `mine` holds the caller's own reactions (none when anonymous). */
  function out(c: Context, rows: CommentRow[]) {
    const ids = rows.map((r) => r.id);
    const counts = store.reactionCounts(ids);
    const viewerId = principal(c)?.user.id;
    const mine = viewerId ? store.myReactionsOn(ids, viewerId) : new Map<string, string[]>();
    const users = new Map<string, User | undefined>();
    return rows.map((r) => {
      const edits = store.editCount(r.id);
      return {
        comment_id: r.id,
        entity_type: r.entity_type,
        entity_id: r.entity_id,
        parent_id: r.parent_id,
        author: authorOf(r, users),
        body: r.deleted_at ? '' : r.body,
        hidden: r.hidden === 1,
        deleted: r.deleted_at !== null,
        edited: !r.deleted_at && edits > 0,
        reactions: counts.get(r.id)!,
        mine: mine.get(r.id) ?? [],
        reply_count: store.liveReplyCount(r.id),
        created_at: r.created_at,
        updated_at: r.updated_at,
        etag: store.etag(r, edits),
      };
    });
  }
  /** One comment, and the headers that carry its version (and for a new one, where it is). */
  const one = (c: Context, row: CommentRow) => out(c, [row])[0];
  const versioned = (o: { etag: string }) => ({ ...noStore, ETag: o.etag });
  const created = (o: { comment_id: string; etag: string }) => ({ ...versioned(o), Location: `${deps.config.baseUrl}/api/comments/${o.comment_id}` });
  return { out, one, versioned, created };
}
