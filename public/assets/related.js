// @ts-check
// Related items under a video, essay, digest, concept or persona, from /api/<kind>/<id>/related. Items the
// page already links from its content (a concept's sources, the digests and concepts citing a video, an
// essay's video) are left out, and as many more asked for, so the list adds what the page does not show.
// When the call fails the section keeps its fallback link (a search for the item's title).
import { api, el, formatDate, msg } from './api.js';

const ITEM_PAGE = /^\/(videos|essays|digests|knowledge|personas|posts)\/[^/]+/;

for (const section of document.querySelectorAll('section.related[data-related]')) void load(/** @type {HTMLElement} */ (section));

/** @param {HTMLElement} section */
async function load(section) {
  const listed = new Set();
  for (const a of document.querySelectorAll('main article a[href]')) {
    const path = new URL(/** @type {HTMLAnchorElement} */ (a).href).pathname;
    if (ITEM_PAGE.test(path)) listed.add(path);
  }
  const url = new URL(section.dataset.related ?? '', location.href);
  const shown = Number(url.searchParams.get('k') ?? 5);
  url.searchParams.set('k', String(Math.min(20, shown + listed.size)));
  const r = await api(`${url.pathname}${url.search}`);
  const hits = (r.ok && Array.isArray(r.body?.hits) ? r.body.hits : []).filter((/** @type {{ url: string }} */ h) => !listed.has(new URL(h.url, location.href).pathname)).slice(0, shown);
  if (hits.length === 0) return;
  const list = el('ul', { class: 'hits' });
  for (const h of hits) {
    list.append(
      el('li', {}, el('span', { class: 'kind' }, msg(`kind.${h.type}`)), el('a', { href: h.url, lang: h.lang }, h.title), h.date ? el('span', { class: 'meta' }, ' ', formatDate(h.date)) : null),
    );
  }
  section.querySelector('.related-fallback')?.replaceWith(list);
}
