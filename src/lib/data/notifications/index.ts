// Notifications: what concerns a person (mentions, replies to their comments, comments and votes on their
// posts, co-admin grants, proposal decisions). `notify()` is called inside the write's transaction; reading
// state changes (read, dismissed) are bookkeeping, not audit events.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.ts';

export type NotificationKind = 'mention' | 'reply' | 'post_comment' | 'vote' | 'co_admin' | 'proposal_decision' | 'system';

const CATEGORY: Record<NotificationKind, 'mention' | 'system' | 'activity'> = {
  mention: 'mention',
  reply: 'activity',
  post_comment: 'activity',
  vote: 'activity',
  co_admin: 'activity',
  proposal_decision: 'system',
  system: 'system',
};

export interface NotificationInput {
  userId: string;
  kind: NotificationKind;
  title: string;
  body?: string;
  link?: string;
  actorId?: string;
  subjectType?: string;
  subjectId?: string;
}

export interface NotificationRow {
  id: string;
  kind: string;
  category: string;
  title: string;
  body: string;
  link: string | null;
  actor_id: string | null;
  subject_type: string | null;
  subject_id: string | null;
  created_at: string;
  read_at: string | null;
  dismissed_at: string | null;
}

export type NotificationFilter = 'all' | 'mentions' | 'system' | 'unread';

export function createNotifications(db: Db, now: () => Date = () => new Date()) {
  const insert = db.prepare(
    `INSERT INTO notifications (id, user_id, kind, category, title, body, link, actor_id, subject_type, subject_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const unread = db.prepare<[string], number>('SELECT COUNT(*) FROM notifications WHERE user_id = ? AND read_at IS NULL AND dismissed_at IS NULL').pluck();
  const markAll = db.prepare('UPDATE notifications SET read_at = ? WHERE user_id = ? AND read_at IS NULL');
  const markOne = db.prepare('UPDATE notifications SET read_at = COALESCE(read_at, ?) WHERE id = ? AND user_id = ?');
  const dismissOne = db.prepare('UPDATE notifications SET dismissed_at = COALESCE(dismissed_at, ?), read_at = COALESCE(read_at, ?) WHERE id = ? AND user_id = ?');
  return {
    /** Records a notification; nobody is notified of their own action. Call inside the write's transaction. */
    async notify(n: NotificationInput): Promise<string | null> {
      if (n.actorId && n.actorId === n.userId) return null;
      const id = randomUUID();
      await insert.run(id, n.userId, n.kind, CATEGORY[n.kind], n.title.slice(0, 300), (n.body ?? '').slice(0, 1000), n.link ?? null, n.actorId ?? null, n.subjectType ?? null, n.subjectId ?? null, now().toISOString());
      return id;
    },

    async list(userId: string, q: { filter: NotificationFilter; includeDismissed: boolean; limit: number; offset: number }) {
      const where = ['user_id = @userId'];
      if (!q.includeDismissed) where.push('dismissed_at IS NULL');
      if (q.filter === 'mentions') where.push("category = 'mention'");
      if (q.filter === 'system') where.push("category = 'system'");
      if (q.filter === 'unread') where.push('read_at IS NULL');
      const sql = `FROM notifications WHERE ${where.join(' AND ')}`;
      const [total, items] = await Promise.all([
        db.prepare(`SELECT COUNT(*) ${sql}`).pluck().get({ userId }) as Promise<number>,
        db
          .prepare<Record<string, unknown>, NotificationRow>(`SELECT id, kind, category, title, body, link, actor_id, subject_type, subject_id, created_at, read_at, dismissed_at ${sql} ORDER BY created_at DESC, id LIMIT @limit OFFSET @offset`)
          .all({ userId, limit: q.limit, offset: q.offset }),
      ]);
      return { total, limit: q.limit, offset: q.offset, items };
    },

    async unread(userId: string): Promise<number> {
      return (await unread.get(userId))!;
    },

    async markAllRead(userId: string): Promise<number> {
      return (await markAll.run(now().toISOString(), userId)).changes;
    },

    // markRead and dismiss: one UPDATE each, whose row count says whether the notification is this user's
    // (an UPDATE that changes nothing still counts the row it matched).
    /** false when the notification is not this user's (or does not exist). */
    async markRead(userId: string, id: string): Promise<boolean> {
      return (await markOne.run(now().toISOString(), id, userId)).changes > 0;
    },

    async dismiss(userId: string, id: string): Promise<boolean> {
      const t = now().toISOString();
      return (await dismissOne.run(t, t, id, userId)).changes > 0;
    },
  };
}

export type Notifications = ReturnType<typeof createNotifications>;
