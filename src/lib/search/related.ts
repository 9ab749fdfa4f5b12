// Related items: nearest neighbours by embedding, blended with what editors and the pipeline said
// explicitly: shared tags and links (a concept citing a video, two videos in the same digest).
import type { SearchDocument } from './documents.ts';

/** Weights of the blend; similarity leads, tags and links reorder close calls. */
export const RELATED_WEIGHTS = { similarity: 0.7, tags: 0.2, links: 0.1 } as const;

function jaccard(a: ReadonlySet<string> | readonly string[], b: ReadonlySet<string> | readonly string[]): number {
  const sa = a instanceof Set ? a : new Set(a);
  const sb = b instanceof Set ? b : new Set(b);
  if (sa.size === 0 || sb.size === 0) return 0;
  let shared = 0;
  for (const x of sa) if (sb.has(x)) shared++;
  return shared / (sa.size + sb.size - shared);
}

/**
 * The blended score of `other` as related to `item`: cosine similarity of their vectors, Jaccard overlap
 * of tags, and 1 for a direct link either way or else the overlap of what they link to and from.
 */
export function relatedScore(
  item: { doc: SearchDocument; key: string; links: ReadonlySet<string> },
  other: { doc: SearchDocument; key: string; links: ReadonlySet<string> },
  similarity: number,
): number {
  const linked = item.links.has(other.key) || other.links.has(item.key) ? 1 : jaccard(item.links, other.links);
  return RELATED_WEIGHTS.similarity * similarity + RELATED_WEIGHTS.tags * jaccard(item.doc.tags, other.doc.tags) + RELATED_WEIGHTS.links * linked;
}
