// Posts: the post, its tags, its essay with every revision, its co-admins and votes. Each write
// is one transaction with its audit event and the notifications it causes. Writes that read to decide
// (a unique slug, the next revision, the status a change leaves) run under the write lock from the start;
// votes and co-admins are guarded by their primary keys instead.
import type { Db } from '../db/index.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Notifications } from '../notifications/index.ts';
import { randomId } from '../secrets.ts';

export interface PostRow {
  id: string;
  slug: string;
  author_id: string;
  title: string;
  summary: string;
  tags: string;
  lang: 'en' | 'sl';
  status: 'draft' | 'submitted' | 'published' | 'rejected';
  created_at: string;
  updated_at: string;
  submitted_at: string | null;
  published_at: string | null;
  deleted_at: string | null;
}

export interface EssayRevision {
  post_id: string;
  revision: number;
  body: string;
  author_id: string;
  created_at: string;
}

export function slugify(title: string): string {
  return (
    title
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'post'
  );
}

/** The post store: posts and their state, the essay's revisions, co-admins, votes and the lists. */
export function createPostStore(db: Db, audit: AuditLog, notifications: Notifications, now: () => Date = () => new Date()) {
  const rows = postRows(db, audit, now);
  const { byId, bySlug } = rows;
  return {
    get: (id: string): Promise<PostRow | undefined> => byId.get(id),
    getBySlug: (slug: string): Promise<PostRow | undefined> => bySlug.get(slug),
    /** A post by id or by slug: the spec addresses reads by slug and writes by id. */
    find: async (idOrSlug: string): Promise<PostRow | undefined> => (await byId.get(idOrSlug)) ?? bySlug.get(idOrSlug),
    ...postWrites(db, audit, rows),
    ...postPublication(db, audit, notifications, rows),
    ...essayRevisions(db, audit, rows),
    ...postCoAdmins(db, audit, notifications, rows.iso),
    ...postVotes(db, audit, notifications, rows.iso),
    ...postLists(db),
    ...postModeration(db),
  };
}

type PostRows = ReturnType<typeof postRows>;

/** The statements and steps the writes share: a post by id or slug, its latest essay, the move back to review. */
function postRows(db: Db, audit: AuditLog, now: () => Date) {
  const byId = db.prepare<[string], PostRow>('SELECT * FROM posts WHERE id = ? AND deleted_at IS NULL');
  const bySlug = db.prepare<[string], PostRow>('SELECT * FROM posts WHERE slug = ? AND deleted_at IS NULL');
  const latest = db.prepare<[string], EssayRevision>('SELECT * FROM post_essay_revisions WHERE post_id = ? ORDER BY revision DESC LIMIT 1');
  const insertRevision = db.prepare<unknown[], EssayRevision>('INSERT INTO post_essay_revisions (post_id, revision, body, author_id, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *');
  const iso = () => now().toISOString();

  /**
   * A published post whose text changes goes back to review (when posts need a moderator): the change and
   * the move are one transaction, so no unreviewed text is ever public. Call inside the edit's transaction.
   */
  async function backToReviewIfPublished(postId: string, userId: string, reviewEdits: boolean): Promise<void> {
    if (!reviewEdits) return;
    const t = iso();
    const moved = await db.prepare("UPDATE posts SET status = 'submitted', submitted_at = ?, updated_at = ? WHERE id = ? AND status = 'published'").run(t, t, postId);
    if (moved.changes === 0) return;
    await audit.append({ kind: 'post.submit', subjectType: 'post', subjectId: postId, actor: { userId }, data: { reason: 'edited_after_publication' } });
  }
  async function addRevision(postId: string, body: string, authorId: string): Promise<EssayRevision> {
    const revision = ((await latest.get(postId))?.revision ?? 0) + 1;
    return (await insertRevision.get(postId, revision, body, authorId, iso()))!;
  }
  return { byId, bySlug, latest, iso, backToReviewIfPublished, addRevision };
}

async function uniqueSlug(db: Db, title: string): Promise<string> {
  const base = slugify(title);
  let slug = base;
  for (let i = 2; await db.prepare('SELECT 1 FROM posts WHERE slug = ?').get(slug); i++) slug = `${base}-${i}`;
  return slug;
}
async function setTags(db: Db, postId: string, tags: string[]): Promise<void> {
  await db.prepare('DELETE FROM post_tags WHERE post_id = ?').run(postId);
  for (const t of tags) await db.prepare('INSERT INTO post_tags (post_id, tag) VALUES (?, ?)').run(postId, t);
}

/** Creating a post, changing its fields, deleting it. */
function postWrites(db: Db, audit: AuditLog, rows: PostRows) {
  const { byId, iso, addRevision, backToReviewIfPublished } = rows;
  return {
    async create(input: { authorId: string; title: string; summary: string; tags: string[]; lang: 'en' | 'sl'; body?: string }): Promise<PostRow> {
      return db.transaction(
        async () => {
          const id = randomId('pst');
          const t = iso();
          const post = (await db
            .prepare<unknown[], PostRow>('INSERT INTO posts (id, slug, author_id, title, summary, tags, lang, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *')
            .get(id, await uniqueSlug(db, input.title), input.authorId, input.title, input.summary, JSON.stringify(input.tags), input.lang, t, t))!;
          await setTags(db, id, input.tags);
          if (input.body) await addRevision(id, input.body, input.authorId);
          await audit.append({ kind: 'post.create', subjectType: 'post', subjectId: id, actor: { userId: input.authorId }, data: { status: 'draft' } });
          return post;
        },
        { lock: true },
      );
    },

    /** Changes a post's fields; with `reviewEdits`, a published post goes back to review with the change. */
    async update(id: string, patch: { title?: string; summary?: string; tags?: string[]; lang?: 'en' | 'sl' }, userId: string, reviewEdits = false): Promise<PostRow> {
      return db.transaction(async () => {
        const fields: Record<string, unknown> = {};
        if (patch.title !== undefined) fields.title = patch.title;
        if (patch.summary !== undefined) fields.summary = patch.summary;
        if (patch.lang !== undefined) fields.lang = patch.lang;
        if (patch.tags !== undefined) {
          fields.tags = JSON.stringify(patch.tags);
          await setTags(db, id, patch.tags);
        }
        const keys = Object.keys(fields);
        if (keys.length) {
          await db.prepare(`UPDATE posts SET ${keys.map((k) => `${k} = @${k}`).join(', ')}, updated_at = @t WHERE id = @id`).run({ ...fields, t: iso(), id });
          await audit.append({ kind: 'post.update', subjectType: 'post', subjectId: id, actor: { userId }, data: { fields: keys.sort() } });
          await backToReviewIfPublished(id, userId, reviewEdits);
        }
        return (await byId.get(id))!;
      }, { lock: true });
    },

    async remove(id: string, userId: string): Promise<void> {
      await db.transaction(async () => {
        await db.prepare('UPDATE posts SET deleted_at = ?, updated_at = ? WHERE id = ?').run(iso(), iso(), id);
        await audit.append({ kind: 'post.delete', subjectType: 'post', subjectId: id, actor: { userId } });
      });
    },
  };
}

/** Submission and review: draft → submitted → published or rejected. */
function postPublication(db: Db, audit: AuditLog, notifications: Notifications, rows: PostRows) {
  const { iso } = rows;
  return {
    /**
     * draft (or rejected) → submitted, and on to published when the auto-publish rule applies. Conditional
     * on the status: null when another request moved the post on first.
     */
    async submit(id: string, userId: string, autoPublish: boolean): Promise<PostRow | null> {
      return db.transaction(async () => {
        const t = iso();
        const status = autoPublish ? 'published' : 'submitted';
        const post = await db
          .prepare<unknown[], PostRow>(`UPDATE posts SET status = ?, submitted_at = ?, published_at = ${autoPublish ? '?' : 'published_at'}, updated_at = ? WHERE id = ? AND status IN ('draft', 'rejected') AND deleted_at IS NULL RETURNING *`)
          .get(...(autoPublish ? [status, t, t, t, id] : [status, t, t, id]));
        if (!post) return null;
        if (!autoPublish) await notifyModerators(db, notifications, post, userId);
        await audit.append({ kind: 'post.submit', subjectType: 'post', subjectId: id, actor: { userId } });
        if (autoPublish) await audit.append({ kind: 'post.publish', subjectType: 'post', subjectId: id, actor: 'system', data: { rule: 'auto_publish' } });
        return post;
      });
    },

    /** A moderator publishes or rejects a submitted post; the author hears about it. null: no longer submitted. */
    async review(id: string, action: 'publish' | 'reject', moderatorId: string, note: string | undefined): Promise<PostRow | null> {
      return db.transaction(async () => {
        const t = iso();
        const post =
          action === 'publish'
            ? await db.prepare<unknown[], PostRow>("UPDATE posts SET status = 'published', published_at = ?, updated_at = ? WHERE id = ? AND status = 'submitted' AND deleted_at IS NULL RETURNING *").get(t, t, id)
            : await db.prepare<unknown[], PostRow>("UPDATE posts SET status = 'rejected', updated_at = ? WHERE id = ? AND status = 'submitted' AND deleted_at IS NULL RETURNING *").get(t, id);
        if (!post) return null;
        await notifications.notify({
          userId: post.author_id,
          kind: 'system',
          title: action === 'publish' ? `Your post “${post.title}” is published` : `Your post “${post.title}” was not published`,
          body: note ?? '',
          link: `/api/posts/${post.slug}`,
          actorId: moderatorId,
          subjectType: 'post',
          subjectId: id,
        });
        await audit.append({ kind: `post.${action}`, subjectType: 'post', subjectId: id, actor: { userId: moderatorId } });
        return post;
      });
    },
  };
}

/** The post essay: its latest revision, how many there are, and a new one against the revision read. */
function essayRevisions(db: Db, audit: AuditLog, rows: PostRows) {
  const { latest, iso, addRevision, backToReviewIfPublished } = rows;
  return {
    essay: (postId: string): Promise<EssayRevision | undefined> => latest.get(postId),
    revisions: async (postId: string): Promise<number> => (await db.prepare<[string], number>('SELECT COUNT(*) FROM post_essay_revisions WHERE post_id = ?').pluck().get(postId))!,

    /** Writes a new essay revision if `expectedRevision` is still the current one; otherwise returns null. */
    async writeEssay(postId: string, body: string, userId: string, expectedRevision: number | null, reviewEdits = false): Promise<EssayRevision | null> {
      return db.transaction(
        async () => {
          const current = (await latest.get(postId))?.revision ?? 0;
          if (expectedRevision !== null && expectedRevision !== current) return null;
          const rev = await addRevision(postId, body, userId);
          await db.prepare('UPDATE posts SET updated_at = ? WHERE id = ?').run(iso(), postId);
          await audit.append({ kind: 'post.essay_update', subjectType: 'post', subjectId: postId, actor: { userId }, data: { revision: rev.revision } });
          await backToReviewIfPublished(postId, userId, reviewEdits);
          return rev;
        },
        { lock: true },
      );
    },
  };
}

/** Co-admins: who they are, granted (with a notification) and revoked. */
function postCoAdmins(db: Db, audit: AuditLog, notifications: Notifications, iso: () => string) {
  return {
    isCoAdmin: async (postId: string, userId: string): Promise<boolean> => !!(await db.prepare('SELECT 1 FROM post_admins WHERE post_id = ? AND user_id = ?').get(postId, userId)),
    coAdmins: (postId: string): Promise<string[]> => db.prepare<[string], string>('SELECT user_id FROM post_admins WHERE post_id = ? ORDER BY created_at, user_id').pluck().all(postId),

    async grantCoAdmin(postId: string, userId: string, grantedBy: string, postTitle: string): Promise<boolean> {
      return db.transaction(async () => {
        const r = await db.prepare('INSERT INTO post_admins (post_id, user_id, granted_by, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING').run(postId, userId, grantedBy, iso());
        if (r.changes === 0) return false;
        await notifications.notify({ userId, kind: 'co_admin', title: `You can now edit “${postTitle}”`, link: `/api/posts/${postId}`, actorId: grantedBy, subjectType: 'post', subjectId: postId });
        await audit.append({ kind: 'post.co_admin_grant', subjectType: 'post', subjectId: postId, actor: { userId: grantedBy }, data: { co_admin: userId } });
        return true;
      });
    },

    async revokeCoAdmin(postId: string, userId: string, actorId: string): Promise<boolean> {
      return db.transaction(async () => {
        const r = await db.prepare('DELETE FROM post_admins WHERE post_id = ? AND user_id = ?').run(postId, userId);
        if (r.changes === 0) return false;
        await audit.append({ kind: 'post.co_admin_revoke', subjectType: 'post', subjectId: postId, actor: { userId: actorId }, data: { co_admin: userId } });
        return true;
      });
    },
  };
}

/** Votes on the essay: the count, whether someone voted, a vote (the author hears of it) and its withdrawal. */
function postVotes(db: Db, audit: AuditLog, notifications: Notifications, iso: () => string) {
  return {
    votes: async (postId: string): Promise<number> => (await db.prepare<[string], number>('SELECT COUNT(*) FROM post_votes WHERE post_id = ?').pluck().get(postId))!,
    hasVoted: async (postId: string, userId: string): Promise<boolean> => !!(await db.prepare('SELECT 1 FROM post_votes WHERE post_id = ? AND user_id = ?').get(postId, userId)),

    async vote(post: PostRow, userId: string, voterName: string): Promise<void> {
      await db.transaction(async () => {
        const r = await db.prepare('INSERT INTO post_votes (post_id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(post.id, userId, iso());
        if (r.changes === 0) return;
        await notifications.notify({ userId: post.author_id, kind: 'vote', title: `${voterName} voted for “${post.title}”`, link: `/api/posts/${post.slug}`, actorId: userId, subjectType: 'post', subjectId: post.id });
        await audit.append({ kind: 'post.vote', subjectType: 'post', subjectId: post.id, actor: { userId } });
      });
    },

    async unvote(postId: string, userId: string): Promise<boolean> {
      return db.transaction(async () => {
        const r = await db.prepare('DELETE FROM post_votes WHERE post_id = ? AND user_id = ?').run(postId, userId);
        if (r.changes > 0) await audit.append({ kind: 'post.unvote', subjectType: 'post', subjectId: postId, actor: { userId } });
        return r.changes > 0;
      });
    },
  };
}

/** The lists: published posts (by tag, newest or oldest first) and a person's own. */
function postLists(db: Db) {
  return {
    async listPublished(q: { tag?: string; sort: 'newest' | 'oldest'; limit: number; offset: number }): Promise<{ total: number; rows: PostRow[] }> {
      const where = ["status = 'published'", 'deleted_at IS NULL'];
      if (q.tag) where.push('id IN (SELECT post_id FROM post_tags WHERE tag = @tag)');
      const sql = `FROM posts WHERE ${where.join(' AND ')}`;
      const [total, rows] = await Promise.all([
        db.prepare<Record<string, unknown>, number>(`SELECT COUNT(*) ${sql}`).pluck().get({ tag: q.tag }),
        db.prepare<Record<string, unknown>, PostRow>(`SELECT * ${sql} ORDER BY published_at ${q.sort === 'newest' ? 'DESC' : 'ASC'}, id LIMIT @limit OFFSET @offset`).all({ tag: q.tag, limit: q.limit, offset: q.offset }),
      ]);
      return { total: total!, rows };
    },

    async listMine(userId: string, limit: number, offset: number): Promise<{ total: number; rows: PostRow[] }> {
      const sql = 'FROM posts WHERE deleted_at IS NULL AND (author_id = @u OR id IN (SELECT post_id FROM post_admins WHERE user_id = @u))';
      const [total, rows] = await Promise.all([
        db.prepare<Record<string, unknown>, number>(`SELECT COUNT(*) ${sql}`).pluck().get({ u: userId }),
        db.prepare<Record<string, unknown>, PostRow>(`SELECT * ${sql} ORDER BY updated_at DESC, id LIMIT @limit OFFSET @offset`).all({ u: userId, limit, offset }),
      ]);
      return { total: total!, rows };
    },
  };
}

/** The moderators' queue: submitted posts, the longest waiting first. */
function postModeration(db: Db) {
  return {
    async listSubmitted(limit: number, offset: number): Promise<{ total: number; rows: PostRow[] }> {
      const sql = "FROM posts WHERE status = 'submitted' AND deleted_at IS NULL";
      const [total, rows] = await Promise.all([
        db.prepare<[], number>(`SELECT COUNT(*) ${sql}`).pluck().get(),
        db.prepare<[number, number], PostRow>(`SELECT * ${sql} ORDER BY submitted_at, id LIMIT ? OFFSET ?`).all(limit, offset),
      ]);
      return { total: total!, rows };
    },
  };
}

/** Tells every moderator and admin that a post waits for review (inside the submission's transaction). */
async function notifyModerators(db: Db, notifications: Notifications, post: PostRow, actorId: string): Promise<void> {
  const ids = await db.prepare<[], string>("SELECT id FROM users WHERE role IN ('moderator', 'admin') ORDER BY id").pluck().all();
  for (const userId of ids) {
    await notifications.notify({ userId, kind: 'system', title: `“${post.title}” waits for review`, body: post.summary.slice(0, 200), link: '/moderation#posts-title', actorId, subjectType: 'post', subjectId: post.id });
  }
}

export type PostStore = ReturnType<typeof createPostStore>;
