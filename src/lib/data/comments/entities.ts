// What can be commented on, where it lives for people, and who may see a post (the one kind of entity
// the database holds; api/comments/entities.ts answers "does this entity exist" for the content items).
import type { Db } from '../db/index.ts';

export const ENTITY_TYPES = ['video', 'essay', 'digest', 'knowledge', 'persona', 'post'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export interface PostVisibility {
  id: string;
  author_id: string;
  status: string;
  deleted_at: string | null;
}

/** Whether `userId` may see a post: published ones to everyone, others to their author and co-admins. */
export async function canSeePost(db: Db, post: PostVisibility | undefined, userId: string | null, isModerator = false): Promise<boolean> {
  if (!post || post.deleted_at) return false;
  if (post.status === 'published' || isModerator) return true;
  if (!userId) return false;
  return post.author_id === userId || !!(await db.prepare('SELECT 1 FROM post_admins WHERE post_id = ? AND user_id = ?').get(post.id, userId));
}

/** Whether the post `id` exists and `viewer` may see it. */
export async function postVisible(db: Db, id: string, viewer: { userId: string | null; isModerator: boolean }): Promise<boolean> {
  const post = await db.prepare<[string], PostVisibility>('SELECT id, author_id, status, deleted_at FROM posts WHERE id = ?').get(id);
  return canSeePost(db, post, viewer.userId, viewer.isModerator);
}

/** Where an entity lives for people, for notification links. */
export function entityLink(type: EntityType, id: string): string {
  return type === 'post' ? `/api/posts/${id}` : `/${type === 'knowledge' ? 'knowledge' : `${type}s`}/${id}`;
}
