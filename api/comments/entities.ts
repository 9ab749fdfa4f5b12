// Whether an entity exists for a caller: every content item of the snapshot and visible posts. One
// function answers it, so comments on unknown things are a 404 everywhere.
import type { Db } from '../../src/lib/data/db/index.ts';
import { postVisible, type EntityType } from '../../src/lib/data/comments/entities.ts';
import type { ContentState } from '../content/index.ts';

export async function entityExists(db: Db, content: ContentState, type: EntityType, id: string, viewer: { userId: string | null; isModerator: boolean }): Promise<boolean> {
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
    case 'post':
      return postVisible(db, id, viewer);
  }
}
