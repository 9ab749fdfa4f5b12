// What can be commented on: every content item of the snapshot and visible posts. One function answers
// "does this entity exist for this caller", so comments on unknown things are a 404 everywhere.
import type { Db } from '../db/index.ts';
import type { ContentState } from '../content/index.ts';

export const ENTITY_TYPES = ['video', 'essay', 'digest', 'knowledge', 'persona', 'post'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export interface PostVisibility {
  id: string;
  author_id: string;
  status: string;
  deleted_at: string | null;
}

/** Whether `userId` may see a post: published ones to everyone, others to their author and co-admins. */
export function canSeePost(db: Db, post: PostVisibility | undefined, userId: string | null, isModerator = false): boolean {
  if (!post || post.deleted_at) return false;
  if (post.status === 'published' || isModerator) return true;
  if (!userId) return false;
  return post.author_id === userId || !!db.prepare('SELECT 1 FROM post_admins WHERE post_id = ? AND user_id = ?').get(post.id, userId);
}

export function entityExists(db: Db, content: ContentState, type: EntityType, id: string, viewer: { userId: string | null; isModerator: boolean }): boolean {
  const s = content.snapshot;
  switch (type) {
    case 'video':
      return s.videosById.has(id);
    case 'essay':
      return s.essaysBySlug.has(id);
    case 'digest':
      return s.digestsByDate.has(id);
    case 'knowledge':
      return s.conceptsBySlug.has(id);
    case 'persona':
      return s.personasById.has(id);
    case 'post': {
      const post = db.prepare<[string], PostVisibility>('SELECT id, author_id, status, deleted_at FROM posts WHERE id = ?').get(id);
      return canSeePost(db, post, viewer.userId, viewer.isModerator);
    }
  }
}

/** Where an entity lives for people, for notification links. */
export function entityLink(type: EntityType, id: string): string {
  return type === 'post' ? `/api/posts/${id}` : `/${type === 'knowledge' ? 'knowledge' : `${type}s`}/${id}`;
}
