// Sections that both the prerendered pages and the server's pages put under an item: comments (loaded by
// public/assets/comments.js) and related items (public/assets/related.js). One markup for both.
import { html, type SafeHtml } from './html.ts';

export type CommentEntity = 'video' | 'essay' | 'digest' | 'knowledge' | 'persona' | 'post';

/** Prerendered pages cannot know who reads them, so the thread is loaded in the browser. Chrome: lang="en". */
export function commentsSection(entityType: CommentEntity, entityId: string): SafeHtml {
  const json = `/api/comments?entity_type=${entityType}&entity_id=${encodeURIComponent(entityId)}`;
  return html`<section class="comments" id="comments" lang="en" aria-labelledby="comments-title" data-entity-type="${entityType}" data-entity-id="${entityId}">
<h2 id="comments-title">Comments</h2>
<div class="comment-list"></div>
<noscript><p>Comments need JavaScript. Their data is at <a href="${json}">/api/comments</a>.</p></noscript>
</section>`;
}

/** Without JavaScript (or when the related endpoint fails) the link searches for the item's title. */
export function relatedSection(kind: 'videos' | 'essays' | 'digests' | 'knowledge' | 'personas' | 'posts', id: string, title: string): SafeHtml {
  return html`<section class="related" lang="en" aria-labelledby="related-title" data-related="/api/${kind}/${encodeURIComponent(id)}/related?k=5">
<h2 id="related-title">Related</h2>
<p class="related-fallback"><a href="/search?q=${encodeURIComponent(title)}">Find related items</a></p>
</section>`;
}
