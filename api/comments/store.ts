// Comments and reactions in SQLite. Every write runs in one transaction with its audit event and the
// notifications it causes (replies, mentions, comments on someone's post).
import { createHash } from 'node:crypto';
import type { Db } from '../db/index.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Notifications } from '../notifications/index.ts';
import type { Identity } from '../auth/identity.ts';
import { randomId } from '../auth/secrets.ts';
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

// Handles are lower case; "@MajaNovak" names the same person as "@majanovak".
const MENTION = /(^|[^\w@])@([a-z0-9_]{3,30})\b/gi;

export function mentionedHandles(body: string): string[] {
  return [...new Set([...body.matchAll(MENTION)].map((m) => m[2].toLowerCase()))];
}

/** The comment store: comments with their edits and notifications, reactions, and GET-create's keys. */
export function createCommentStore(db: Db, audit: AuditLog, identity: Identity, notifications: Notifications, now: () => Date = () => new Date()) {
  const byId = db.prepare<[string], CommentRow>('SELECT * FROM comments WHERE id = ?');
  const liveReplies = db.prepare<[string], number>('SELECT COUNT(*) FROM comments WHERE parent_id = ? AND deleted_at IS NULL').pluck();

  function notifyFor(c: CommentRow, actorId: string): void {
    const actor = identity.getUser(actorId)!;
    const link = `${entityLink(c.entity_type, c.entity_id)}#comment-${c.id}`;
    const told = new Set<string>([actorId]);
    // Mentions first: a person named in a reply to their comment, or in a comment on their post, is told
    // once, as a mention, so it is listed under Mentions.
    for (const handle of mentionedHandles(c.body)) {
      const u = identity.getUserByHandle(handle);
      if (u && !told.has(u.id)) {
        told.add(u.id);
        notifications.notify({ userId: u.id, kind: 'mention', title: `${actor.display_name} mentioned you`, body: c.body.slice(0, 200), link, actorId, subjectType: 'comment', subjectId: c.id });
      }
    }
    if (c.parent_id) {
      const parent = byId.get(c.parent_id);
      if (parent && !told.has(parent.author_id)) {
        told.add(parent.author_id);
        notifications.notify({ userId: parent.author_id, kind: 'reply', title: `${actor.display_name} replied to your comment`, body: c.body.slice(0, 200), link, actorId, subjectType: 'comment', subjectId: c.id });
      }
    }
    if (c.entity_type === 'post') {
      const post = db.prepare<[string], { author_id: string; title: string }>('SELECT author_id, title FROM posts WHERE id = ?').get(c.entity_id);
      if (post && !told.has(post.author_id)) {
        told.add(post.author_id);
        notifications.notify({ userId: post.author_id, kind: 'post_comment', title: `${actor.display_name} commented on “${post.title}”`, body: c.body.slice(0, 200), link, actorId, subjectType: 'comment', subjectId: c.id });
      }
    }
  }

  const editCount = (id: string): number => db.prepare('SELECT COUNT(*) FROM comment_edits WHERE comment_id = ?').pluck().get(id) as number;

  const store = {
    get: (id: string): CommentRow | undefined => byId.get(id),

    /**
     * The comment's strong ETag: the version of its text and state, new with every edit (the edit count
     * moves even within one millisecond), deletion, hide and unhide. Reactions and replies do not change it.
     */
    etag(row: CommentRow, edits = editCount(row.id)): string {
      const state = JSON.stringify([row.body, row.hidden ? 1 : 0, row.deleted_at, row.updated_at, edits]);
      return `"${row.id}.${createHash('sha256').update(state).digest('hex').slice(0, 16)}"`;
    },
    liveReplyCount: (id: string): number => liveReplies.get(id)!,

    /** Inserts a comment (the caller has checked the entity and the parent). */
    create(input: { entityType: EntityType; entityId: string; parentId: string | null; authorId: string; body: string }, extra?: (c: CommentRow) => void): CommentRow {
      return db.transaction(() => {
        const id = randomId('cmt');
        const t = now().toISOString();
        db.prepare('INSERT INTO comments (id, entity_type, entity_id, parent_id, author_id, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
          id, input.entityType, input.entityId, input.parentId, input.authorId, input.body, t, t,
        );
        const c = byId.get(id)!;
        audit.append({
          kind: 'comment.create',
          subjectType: 'comment',
          subjectId: id,
          actor: { userId: input.authorId },
          data: { entity_type: input.entityType, entity_id: input.entityId, parent_id: input.parentId, body_sha256: createHash('sha256').update(input.body).digest('hex') },
        });
        notifyFor(c, input.authorId);
        extra?.(c);
        return c;
      }).immediate();
    },

    /** Edits the body; the previous text is kept as a numbered edit. */
    edit(id: string, body: string, userId: string): CommentRow {
      return db.transaction(() => {
        const before = byId.get(id)!;
        const version = (db.prepare('SELECT COALESCE(MAX(version), 0) FROM comment_edits WHERE comment_id = ?').pluck().get(id) as number) + 1;
        const t = now().toISOString();
        db.prepare('INSERT INTO comment_edits (comment_id, version, body, edited_at) VALUES (?, ?, ?, ?)').run(id, version, before.body, t);
        db.prepare('UPDATE comments SET body = ?, updated_at = ? WHERE id = ?').run(body, t, id);
        audit.append({ kind: 'comment.edit', subjectType: 'comment', subjectId: id, actor: { userId }, data: { version, body_sha256: createHash('sha256').update(body).digest('hex') } });
        return byId.get(id)!;
      }).immediate();
    },

    editCount,

    /** Soft delete: the text is erased; with live replies the comment stays as a tombstone in its thread. */
    remove(id: string, userId: string, asModerator: boolean): void {
      db.transaction(() => {
        const t = now().toISOString();
        db.prepare("UPDATE comments SET deleted_at = ?, body = '', updated_at = ? WHERE id = ?").run(t, t, id);
        db.prepare('DELETE FROM comment_edits WHERE comment_id = ?').run(id);
        audit.append({ kind: 'comment.delete', subjectType: 'comment', subjectId: id, actor: { userId }, data: { by_moderator: asModerator } });
      }).immediate();
    },

    setHidden(id: string, hidden: boolean, moderatorId: string): CommentRow {
      return db.transaction(() => {
        db.prepare('UPDATE comments SET hidden = ?, hidden_by = ?, updated_at = ? WHERE id = ?').run(hidden ? 1 : 0, hidden ? moderatorId : null, now().toISOString(), id);
        audit.append({ kind: hidden ? 'comment.hide' : 'comment.unhide', subjectType: 'comment', subjectId: id, actor: { userId: moderatorId } });
        if (hidden) store.notifyHidden(byId.get(id)!, moderatorId);
        return byId.get(id)!;
      }).immediate();
    },

    /** `ownHiddenOf`: a signed-in reader, who also sees their own hidden comments (marked hidden). */
    list(entityType: EntityType, entityId: string, opts: { includeHidden: boolean; ownHiddenOf?: string; limit: number; offset: number }) {
      // Deleted comments appear only as tombstones that still hold live replies; hidden ones only to moderators and their author.
      const where = `entity_type = @entityType AND entity_id = @entityId
        AND (deleted_at IS NULL OR EXISTS (SELECT 1 FROM comments r WHERE r.parent_id = comments.id AND r.deleted_at IS NULL))
        ${opts.includeHidden ? '' : opts.ownHiddenOf ? 'AND (hidden = 0 OR author_id = @viewer)' : 'AND hidden = 0'}`;
      const params = { entityType, entityId, viewer: opts.ownHiddenOf ?? null, limit: opts.limit, offset: opts.offset };
      const total = db.prepare(`SELECT COUNT(*) FROM comments WHERE ${where}`).pluck().get(params) as number;
      const rows = db.prepare(`SELECT * FROM comments WHERE ${where} ORDER BY created_at, id LIMIT @limit OFFSET @offset`).all(params) as CommentRow[];
      return { total, rows };
    },

    ...reactionStore(db, audit, now),
    ...idempotencyStore(db, now),

    /** Tells the author that a moderator hid their comment (inside the hide's transaction). */
    notifyHidden(c: CommentRow, moderatorId: string): void {
      const link = `${entityLink(c.entity_type, c.entity_id)}#comment-${c.id}`;
      const body = `Only you and the moderators see it now: “${c.body.slice(0, 160)}”`;
      notifications.notify({ userId: c.author_id, kind: 'system', title: 'A moderator hid your comment', body, link, actorId: moderatorId, subjectType: 'comment', subjectId: c.id });
    },
  };
  return store;
}

/** Reactions: one per kind per person, each added or removed with its audit event. */
function reactionStore(db: Db, audit: AuditLog, now: () => Date) {
  return {
    react(commentId: string, userId: string, kind: ReactionKind): void {
      db.transaction(() => {
        const r = db.prepare('INSERT INTO reactions (comment_id, user_id, kind, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING').run(commentId, userId, kind, now().toISOString());
        if (r.changes > 0) audit.append({ kind: 'reaction.add', subjectType: 'comment', subjectId: commentId, actor: { userId }, data: { reaction: kind } });
      }).immediate();
    },

    unreact(commentId: string, userId: string, kind: ReactionKind): void {
      db.transaction(() => {
        const r = db.prepare('DELETE FROM reactions WHERE comment_id = ? AND user_id = ? AND kind = ?').run(commentId, userId, kind);
        if (r.changes > 0) audit.append({ kind: 'reaction.remove', subjectType: 'comment', subjectId: commentId, actor: { userId }, data: { reaction: kind } });
      }).immediate();
    },

    reactionCounts(commentIds: string[]): Map<string, Record<string, number>> {
      const out = new Map<string, Record<string, number>>(commentIds.map((id) => [id, Object.fromEntries(REACTION_KINDS.map((k) => [k, 0]))]));
      if (commentIds.length === 0) return out;
      const rows = db
        .prepare(`SELECT comment_id, kind, COUNT(*) AS n FROM reactions WHERE comment_id IN (${commentIds.map(() => '?').join(',')}) GROUP BY comment_id, kind`)
        .all(...commentIds) as { comment_id: string; kind: string; n: number }[];
      for (const r of rows) out.get(r.comment_id)![r.kind] = r.n;
      return out;
    },

    myReactions(commentId: string, userId: string): string[] {
      return db.prepare('SELECT kind FROM reactions WHERE comment_id = ? AND user_id = ? ORDER BY kind').pluck().all(commentId, userId) as string[];
    },

    /** One person's reactions on each of these comments (a list's `mine`), in one query. */
    myReactionsOn(commentIds: string[], userId: string): Map<string, string[]> {
      const out = new Map<string, string[]>(commentIds.map((id) => [id, []]));
      if (commentIds.length === 0) return out;
      const rows = db
        .prepare(`SELECT comment_id, kind FROM reactions WHERE user_id = ? AND comment_id IN (${commentIds.map(() => '?').join(',')}) ORDER BY comment_id, kind`)
        .all(userId, ...commentIds) as { comment_id: string; kind: string }[];
      for (const r of rows) out.get(r.comment_id)!.push(r.kind);
      return out;
    },
  };
}

/** The keys of GET /api/comments/create: which comment a person's key created, and from what request. */
function idempotencyStore(db: Db, now: () => Date) {
  return {
    idempotent(userId: string, key: string): { request_hash: string; comment_id: string } | undefined {
      return db.prepare<[string, string], { request_hash: string; comment_id: string }>('SELECT request_hash, comment_id FROM comment_idempotency WHERE user_id = ? AND key = ?').get(userId, key);
    },
    rememberIdempotent(userId: string, key: string, requestHash: string, commentId: string): void {
      db.prepare('INSERT INTO comment_idempotency (user_id, key, request_hash, comment_id, created_at) VALUES (?, ?, ?, ?, ?)').run(userId, key, requestHash, commentId, now().toISOString());
    },
  };
}

export type CommentStore = ReturnType<typeof createCommentStore>;
