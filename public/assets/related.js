// @ts-check
// Related items under a video, essay, digest, concept or persona, from /api/<kind>/<id>/related. When the
// call fails the section keeps its fallback link (a search for the item's title).
import { api, el, formatDate, msg } from './api.js';

for (const section of document.querySelectorAll('section.related[data-related]')) void load(/** @type {HTMLElement} */ (section));

/** @param {HTMLElement} section */
async function load(section) {
  const r = await api(section.dataset.related ?? '');
  const hits = r.ok && Array.isArray(r.body?.hits) ? r.body.hits : [];
  if (hits.length === 0) return;
  const list = el('ul', { class: 'hits' });
  for (const h of hits) {
    list.append(
      el('li', {}, el('span', { class: 'kind' }, msg(`kind.${h.type}`)), el('a', { href: h.url, lang: h.lang }, h.title), h.date ? el('span', { class: 'meta' }, ' ', formatDate(h.date)) : null),
    );
  }
  section.querySelector('.related-fallback')?.replaceWith(list);
}
