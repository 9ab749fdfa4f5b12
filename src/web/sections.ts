// Sections that both the prerendered pages and the server's pages put under an item: comments (loaded by
// public/assets/comments.js) and related items (public/assets/related.js). One markup for both, in the
// page's language (src/web/i18n.ts).
import type { Lang } from '../lib/content/schema.ts';
import { html, type SafeHtml } from './html.ts';
import { t, tHtml } from './i18n.ts';

export type CommentEntity = 'video' | 'essay' | 'digest' | 'knowledge' | 'persona' | 'post';

/** Prerendered pages cannot know who reads them, so the thread is loaded in the browser. */
export function commentsSection(entityType: CommentEntity, entityId: string, lang: Lang = 'en'): SafeHtml {
  const json = `/api/comments?entity_type=${entityType}&entity_id=${encodeURIComponent(entityId)}`;
  return html`<section class="comments" id="comments" aria-labelledby="comments-title" data-entity-type="${entityType}" data-entity-id="${entityId}">
<h2 id="comments-title">${t(lang, 'comments.title')}</h2>
<div class="comment-list"></div>
<noscript><p>${tHtml(lang, 'comments.noscript', { link: html`<a href="${json}">/api/comments</a>` })}</p></noscript>
</section>`;
}

/**
 * Without JavaScript (or when the related endpoint fails) the link searches for the item's title. On a
 * page in another language than English the items come with their titles in it where they have one.
 */
export function relatedSection(kind: 'videos' | 'essays' | 'digests' | 'knowledge' | 'personas' | 'posts', id: string, title: string, lang: Lang = 'en'): SafeHtml {
  const api = `/api/${kind}/${encodeURIComponent(id)}/related?k=5${lang === 'en' ? '' : `&lang=${lang}`}`;
  return html`<section class="related" aria-labelledby="related-title" data-related="${api}">
<h2 id="related-title">${t(lang, 'related.title')}</h2>
<p class="related-fallback"><a href="/search?q=${encodeURIComponent(title)}">${t(lang, 'related.fallback')}</a></p>
</section>`;
}
