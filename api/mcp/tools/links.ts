// Where the tools' answers point: the URL segment of each item type, the page of a comment or a post, and
// a search snippet as plain text (summary).
import { ITEM_TYPES } from '../../../src/lib/search/documents.ts';
import { absolutise } from '../api.ts';

/** The URL segment of each item type: /api/<kind>/<id> and /<kind>/<id>. */
export const KIND: Record<(typeof ITEM_TYPES)[number], string> = { video: 'videos', essay: 'essays', digest: 'digests', knowledge: 'knowledge', persona: 'personas', post: 'posts' };

/** A search snippet as plain text: the <mark>s dropped and the HTML entities decoded. */
export const plain = (snippet: string) =>
  snippet.replace(/<\/?mark>/g, '').replace(/&(lt|gt|amp|quot|#39);/g, (_m, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'" })[e]!);

/** The page of an item a comment is on, with the comment's anchor. */
export function commentPage(origin: string, c: { comment_id: string; entity_type: string; entity_id: string }): string {
  const kind = KIND[c.entity_type as keyof typeof KIND];
  return `${origin}/${kind}/${encodeURIComponent(c.entity_id)}#comment-${c.comment_id}`;
}

/** A post as the API answers it, with its page. */
export const postOut = (origin: string, p: Record<string, unknown>) => ({ ...absolutise(p, origin), page_url: `${origin}${p.url as string}` });
