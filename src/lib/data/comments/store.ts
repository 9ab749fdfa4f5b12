// Comments and reactions. Every write runs in one transaction with its audit event and the notifications
// it causes (replies, mentions, comments on someone's post); the audit append comes last, so the
// cross-instance write lock it takes is held only for its own statements and the commit.
import { createHash } from 'node:crypto';
import type { Db } from '../db/index.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Notifications } from '../notifications/index.ts';
import { randomId } from '../secrets.ts';
import { entityLink, type EntityType } from './entities.ts';

export const REACTION_KINDS = ['like', 'insightful', 'agree', 'disagree', 'question'] as const;
export type ReactionKind = (typeof REACTION_KINDS)[number];

export interface CommentRow {
  id: string;
  entity_type: EntityType;
  entity_id: string;
  parent_id: string | null;
  author_id: string;
  body: string;
  hidden: number;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A comment as its JSON shows it: the row, its edit count, its live replies and its author's names. */
export interface CommentView extends CommentRow {
  edits: number;
  live_replies: number;
  author_name: string;
  author_handle: string;
}

/** The author of a new comment, as the caller already knows them (no lookup inside the write). */
export interface CommentAuthor {
  id: string;
  display_name: string;
  handle: string;
}

/** What the comment store needs of identity: who a mentioned @handle is. */
export interface HandleLookup {
  getUserByHandle(handle: string): Promise<{ id: string } | undefined>;
}

// Handles are lower case; "@MajaNovak" names the same person as "@majanovak".
const MENTION = /(^|[^\w@])@([a-z0-9_]{3,30})\b/gi;

export function mentionedHandles(body: string): string[] {
  return [...new Set([...body.matchAll(MENTION)].map((m) => m[2].toLowerCase()))];
}

// One statement reads a comment with everything its JSON shows but the reactions.
const VIEW = `SELECT c.*,
  (SELECT COUNT(*) FROM comment_edits e WHERE e.comment_id = c.id) AS edits,
  (SELECT COUNT(*) FROM comments r WHERE r.parent_id = c.id AND r.deleted_at IS NULL) AS live_replies,
  u.display_name AS author_name, u.handle AS author_handle
FROM comments c JOIN users u ON u.id = c.author_id`;

/** The notifications comments cause, inside the write's transaction. */
function commentNotices(db: Db, people: HandleLookup, notifications: Notifications) {
  const authorOf = db.prepare<[string], { author_id: string }>('SELECT author_id FROM comments WHERE id = ?');
  const postOf = db.prepare<[string], { author_id: string; title: string }>('SELECT author_id, title FROM posts WHERE id = ?');
  return {
    /** The notifications a new comment causes: the people it mentions, its parent's author, the post's author. */
    async notifyFor(c: CommentRow, actor: CommentAuthor): Promise<void> {
      const link = `${entityLink(c.entity_type, c.entity_id)}#comment-${c.id}`;
      const told = new Set<string>([actor.id]);
      const about = { body: c.body.slice(0, 200), link, actorId: actor.id, subjectType: 'comment', subjectId: c.id };
      // Mentions first: a person named in a reply to their comment, or in a comment on their post, is told
      // once, as a mention, so it is listed under Mentions.
      for (const handle of mentionedHandles(c.body)) {
        const u = await people.getUserByHandle(handle);
        if (u && !told.has(u.id)) {
          told.add(u.id);
          await notifications.notify({ userId: u.id, kind: 'mention', title: `${actor.display_name} mentioned you`, ...about });
        }
      }
      if (c.parent_id) {
        const parent = await authorOf.get(c.parent_id);
        if (parent && !told.has(parent.author_id)) {
          told.add(parent.author_id);
          await notifications.notify({ userId: parent.author_id, kind: 'reply', title: `${actor.display_name} replied to your comment`, ...about });
        }
      }
      if (c.entity_type === 'post') {
        const post = await postOf.get(c.entity_id);
        if (post && !told.has(post.author_id)) {
          told.add(post.author_id);
          await notifications.notify({ userId: post.author_id, kind: 'post_comment', title: `${actor.display_name} commented on “${post.title}”`, ...about });
        }
      }
    },

    /** Tells the author that a moderator hid their comment (inside the hide's transaction). */
    async notifyHidden(c: CommentRow, moderatorId: string): Promise<void> {
      const link = `${entityLink(c.entity_type, c.entity_id)}#comment-${c.id}`;
      const body = `Only you and the moderators see it now: “${c.body.slice(0, 160)}”`;
      await notifications.notify({ userId: c.author_id, kind: 'system', title: 'A moderator hid your comment', body, link, actorId: moderatorId, subjectType: 'comment', subjectId: c.id });
    },
  };
}

/** The comment store: comments with their edits and notifications, reactions, and GET-create's keys. */
export function createCommentStore(db: Db, audit: AuditLog, people: HandleLookup, notifications: Notifications, now: () => Date = () => new Date()) {
  const byId = db.prepare<[string], CommentView>(`${VIEW} WHERE c.id = ?`);
  const insert = db.prepare<unknown[], CommentRow>(
    'INSERT INTO comments (id, entity_type, entity_id, parent_id, author_id, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *',
  );
  const { notifyFor, notifyHidden } = commentNotices(db, people, notifications);

  return {
    /** The comment with its edit count, live replies and author (one statement). */
    get: (id: string): Promise<CommentView | undefined> => byId.get(id),

    /**
     * The comment's strong ETag: the version of its text and state, new with every edit (the edit count
     * moves even within one millisecond), deletion, hide and unhide. Reactions and replies do not change it.
     */
    etag(row: CommentRow & { edits: number }): string {
      const state = JSON.stringify([row.body, row.hidden ? 1 : 0, row.deleted_at, row.updated_at, row.edits]);
      return `"${row.id}.${createHash('sha256').update(state).digest('hex').slice(0, 16)}"`;
    },

    /**
     * Inserts a comment (the caller has checked the entity and the parent): one transaction of the INSERT
     * (its row RETURNed, not read again), the notifications it causes, `extra`, then the audit event.
     */
    async create(
      input: { entityType: EntityType; entityId: string; parentId: string | null; author: CommentAuthor; body: string },
      extra?: (c: CommentRow) => Promise<void>,
    ): Promise<CommentView> {
      return db.transaction(async () => {
        const t = now().toISOString();
        const c = (await insert.get(randomId('cmt'), input.entityType, input.entityId, input.parentId, input.author.id, input.body, t, t))!;
        await notifyFor(c, input.author);
        await extra?.(c);
        await audit.append({
          kind: 'comment.create',
          subjectType: 'comment',
          subjectId: c.id,
          actor: { userId: input.author.id },
          data: { entity_type: input.entityType, entity_id: input.entityId, parent_id: input.parentId, body_sha256: createHash('sha256').update(input.body).digest('hex') },
        });
        return { ...c, edits: 0, live_replies: 0, author_name: input.author.display_name, author_handle: input.author.handle };
      });
    },

    /** Edits the body; the previous text is kept as a numbered edit. */
    async edit(id: string, body: string, userId: string): Promise<CommentView> {
      // The next version number is read, then written: under the write lock, so two edits never race.
      return db.transaction(
        async () => {
          const t = now().toISOString();
          const version = (await db
            .prepare<[string, string], number>(
              'INSERT INTO comment_edits (comment_id, version, body, edited_at) SELECT id, (SELECT COALESCE(MAX(version), 0) + 1 FROM comment_edits WHERE comment_id = comments.id), body, ? FROM comments WHERE id = ? RETURNING version',
            )
            .pluck()
            .get(t, id))!;
          await db.prepare('UPDATE comments SET body = ?, updated_at = ? WHERE id = ?').run(body, t, id);
          await audit.append({ kind: 'comment.edit', subjectType: 'comment', subjectId: id, actor: { userId }, data: { version, body_sha256: createHash('sha256').update(body).digest('hex') } });
          return (await byId.get(id))!;
        },
        { lock: true },
      );
    },

    /** Soft delete: the text is erased; with live replies the comment stays as a tombstone in its thread. */
    async remove(id: string, userId: string, asModerator: boolean): Promise<void> {
      await db.transaction(async () => {
        const t = now().toISOString();
        await db.prepare("UPDATE comments SET deleted_at = ?, body = '', updated_at = ? WHERE id = ?").run(t, t, id);
        await db.prepare('DELETE FROM comment_edits WHERE comment_id = ?').run(id);
        await audit.append({ kind: 'comment.delete', subjectType: 'comment', subjectId: id, actor: { userId }, data: { by_moderator: asModerator } });
      });
    },

    async setHidden(id: string, hidden: boolean, moderatorId: string): Promise<CommentView> {
      return db.transaction(async () => {
        await db.prepare('UPDATE comments SET hidden = ?, hidden_by = ?, updated_at = ? WHERE id = ?').run(hidden ? 1 : 0, hidden ? moderatorId : null, now().toISOString(), id);
        const c = (await byId.get(id))!;
        if (hidden) await notifyHidden(c, moderatorId);
        await audit.append({ kind: hidden ? 'comment.hide' : 'comment.unhide', subjectType: 'comment', subjectId: id, actor: { userId: moderatorId } });
        return c;
      });
    },

    /** `ownHiddenOf`: a signed-in reader, who also sees their own hidden comments (marked hidden). */
    async list(
      entityType: EntityType,
      entityId: string,
      opts: { includeHidden: boolean; ownHiddenOf?: string; limit: number; offset: number },
    ): Promise<{ total: number; rows: CommentView[] }> {
      // Deleted comments appear only as tombstones that still hold live replies; hidden ones only to moderators and their author.
      const where = `c.entity_type = @entityType AND c.entity_id = @entityId
        AND (c.deleted_at IS NULL OR EXISTS (SELECT 1 FROM comments r WHERE r.parent_id = c.id AND r.deleted_at IS NULL))
        ${opts.includeHidden ? '' : opts.ownHiddenOf ? 'AND (c.hidden = 0 OR c.author_id = @viewer)' : 'AND c.hidden = 0'}`;
      const params = opts.ownHiddenOf && !opts.includeHidden ? { entityType, entityId, viewer: opts.ownHiddenOf } : { entityType, entityId };
      const [total, rows] = await Promise.all([
        db.prepare<Record<string, unknown>, number>(`SELECT COUNT(*) FROM comments c WHERE ${where}`).pluck().get(params),
        db.prepare<Record<string, unknown>, CommentView>(`${VIEW} WHERE ${where} ORDER BY c.created_at, c.id LIMIT @limit OFFSET @offset`).all({ ...params, limit: opts.limit, offset: opts.offset }),
      ]);
      return { total: total!, rows };
    },

    ...reactionStore(db, audit, now),
    ...idempotencyStore(db, now),
  };
}

/** Reactions: one per kind per person, each added or removed with its audit event. */
function reactionStore(db: Db, audit: AuditLog, now: () => Date) {
  const add = db.prepare('INSERT INTO reactions (comment_id, user_id, kind, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
  const take = db.prepare('DELETE FROM reactions WHERE comment_id = ? AND user_id = ? AND kind = ?');
  return {
    async react(commentId: string, userId: string, kind: ReactionKind): Promise<void> {
      await db.transaction(async () => {
        const r = await add.run(commentId, userId, kind, now().toISOString());
        if (r.changes > 0) await audit.append({ kind: 'reaction.add', subjectType: 'comment', subjectId: commentId, actor: { userId }, data: { reaction: kind } });
      });
    },

    async unreact(commentId: string, userId: string, kind: ReactionKind): Promise<void> {
      await db.transaction(async () => {
        const r = await take.run(commentId, userId, kind);
        if (r.changes > 0) await audit.append({ kind: 'reaction.remove', subjectType: 'comment', subjectId: commentId, actor: { userId }, data: { reaction: kind } });
      });
    },

    async reactionCounts(commentIds: string[]): Promise<Map<string, Record<string, number>>> {
      const out = new Map<string, Record<string, number>>(commentIds.map((id) => [id, Object.fromEntries(REACTION_KINDS.map((k) => [k, 0]))]));
      if (commentIds.length === 0) return out;
      const rows = await db
        .prepare<string[], { comment_id: string; kind: string; n: number }>(`SELECT comment_id, kind, COUNT(*) AS n FROM reactions WHERE comment_id IN (${commentIds.map(() => '?').join(',')}) GROUP BY comment_id, kind`)
        .all(...commentIds);
      for (const r of rows) out.get(r.comment_id)![r.kind] = r.n;
      return out;
    },

    myReactions(commentId: string, userId: string): Promise<string[]> {
      return db.prepare<[string, string], string>('SELECT kind FROM reactions WHERE comment_id = ? AND user_id = ? ORDER BY kind').pluck().all(commentId, userId);
    },

    /** One person's reactions on each of these comments (a list's `mine`), in one query. */
    async myReactionsOn(commentIds: string[], userId: string): Promise<Map<string, string[]>> {
      const out = new Map<string, string[]>(commentIds.map((id) => [id, []]));
      if (commentIds.length === 0) return out;
      const rows = await db
        .prepare<string[], { comment_id: string; kind: string }>(
          `SELECT comment_id, kind FROM reactions WHERE user_id = ? AND comment_id IN (${commentIds.map(() => '?').join(',')}) ORDER BY comment_id, kind`,
        )
        .all(userId, ...commentIds);
      for (const r of rows) out.get(r.comment_id)!.push(r.kind);
      return out;
    },
  };
}

/** The keys of GET /api/comments/create: which comment a person's key created, and from what request. */
function idempotencyStore(db: Db, now: () => Date) {
  return {
    idempotent(userId: string, key: string): Promise<{ request_hash: string; comment_id: string } | undefined> {
      return db.prepare<[string, string], { request_hash: string; comment_id: string }>('SELECT request_hash, comment_id FROM comment_idempotency WHERE user_id = ? AND key = ?').get(userId, key);
    },
    async rememberIdempotent(userId: string, key: string, requestHash: string, commentId: string): Promise<void> {
      await db.prepare('INSERT INTO comment_idempotency (user_id, key, request_hash, comment_id, created_at) VALUES (?, ?, ?, ?, ?)').run(userId, key, requestHash, commentId, now().toISOString());
    },
  };
}

export type CommentStore = ReturnType<typeof createCommentStore>;
