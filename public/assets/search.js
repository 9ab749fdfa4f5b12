// @ts-check
// The search page: results from /api/search as you type (debounced, stale requests aborted), type
// filters, and the keyboard: down arrow from the box into the results, up/down between them, Enter opens
// (a plain link), Escape back to the box. Without this script the form's GET /search?q= is answered by
// the server with the same markup.
import { api, el, formatDate, msg, snippetNodes } from './api.js';

const form = /** @type {HTMLFormElement | null} */ (document.getElementById('search-form'));
const input = /** @type {HTMLInputElement | null} */ (document.getElementById('q'));
const results = /** @type {HTMLOListElement | null} */ (document.getElementById('results'));
const status = document.getElementById('search-status');

if (form && input && results && status) setUp(form, input, results, status);

/**
 * @param {HTMLFormElement} form
 * @param {HTMLInputElement} input
 * @param {HTMLOListElement} results
 * @param {HTMLElement} status
 */
function setUp(form, input, results, status) {
  /** @type {AbortController | null} */
  let inFlight = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let shown = input.value.trim();

  const types = () => [...form.querySelectorAll('input[name=types]:checked')].map((c) => /** @type {HTMLInputElement} */ (c).value);

  async function run() {
    const q = input.value.trim();
    const kinds = types();
    const key = `${q}|${kinds.join(',')}`;
    if (key === shown) return;
    shown = key;
    inFlight?.abort();
    const url = new URL('/search', location.origin);
    if (q) url.searchParams.set('q', q);
    if (kinds.length) url.searchParams.set('types', kinds.join(','));
    history.replaceState(null, '', q ? url.pathname + url.search : '/search');
    if (!q) {
      results.replaceChildren();
      status.textContent = '';
      return;
    }
    const controller = new AbortController();
    inFlight = controller;
    const params = new URLSearchParams({ q, limit: '20' });
    if (kinds.length) params.set('types', kinds.join(','));
    let r;
    try {
      r = await api(`/api/search?${params}`, { signal: controller.signal });
    } catch {
      return; // aborted by a newer query
    }
    if (controller !== inFlight) return;
    if (!r.ok) {
      results.replaceChildren();
      status.textContent = msg(r.status === 404 ? 'results.unavailable' : 'results.failed');
      return;
    }
    render(q, r.body);
  }

  /** @param {string} q @param {{ total: number, hits: any[] }} body */
  function render(q, body) {
    results.replaceChildren(
      ...body.hits.map((h) =>
        el(
          'li',
          {},
          el('span', { class: 'kind' }, msg(`kind.${h.type}`)),
          el('a', { href: h.url }, h.title),
          h.date ? el('span', { class: 'meta' }, ' ', el('time', { datetime: h.date }, formatDate(h.date))) : null,
          el('p', {}, snippetNodes(h.snippet ?? '')),
        ),
      ),
    );
    const n = body.total;
    status.textContent = n === 0 ? msg('results.nothing', { q }) : msg(n > body.hits.length ? 'results.countShown' : 'results.count', { n, q, shown: body.hits.length });
  }

  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(run, 150);
  };
  input.addEventListener('input', schedule);
  form.addEventListener('change', schedule);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    clearTimeout(timer);
    shown = '';
    void run();
  });

  const links = () => /** @type {HTMLAnchorElement[]} */ ([...results.querySelectorAll('li > a')]);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' && links().length) {
      e.preventDefault();
      links()[0].focus();
    }
  });
  results.addEventListener('keydown', (e) => {
    const all = links();
    const i = all.indexOf(/** @type {HTMLAnchorElement} */ (document.activeElement));
    if (i < 0) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = e.key === 'ArrowDown' ? Math.min(i + 1, all.length - 1) : i - 1;
      if (next < 0) input.focus();
      else all[next].focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      all[e.key === 'Home' ? 0 : all.length - 1].focus();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      input.focus();
    }
  });
  // The page was opened with a query (server-rendered results): remember it so typing refreshes them.
  if (shown) shown = `${shown}|${types().join(',')}`;
}
