// The search page's content, one template for both ways it is served: prerendered empty at /search (the
// script then shows results as you type, from /api/search), and rendered by the server with results when
// a query string is present (GET /search?q=…, the form's own target), which is all a browser without
// JavaScript needs.
// Its strings come from src/web/i18n.ts; the page is English (there is one search page).
import { html, raw, type SafeHtml } from './html.ts';
import { formatDate } from './format.ts';
import { t, tn } from './i18n.ts';

/** The kinds the form filters by; their names are the catalogue's kind.* (one) and kinds.* (many). */
export const SEARCH_TYPES = [{ value: 'video' }, { value: 'knowledge' }, { value: 'essay' }, { value: 'digest' }, { value: 'persona' }, { value: 'post' }] as const;
type SearchType = (typeof SEARCH_TYPES)[number]['value'];
const isType = (v: string): v is SearchType => SEARCH_TYPES.some((s) => s.value === v);

export interface SearchHitView {
  type: string;
  title: string;
  url: string;
  date: string | null;
  snippet: string;
}

export interface SearchState {
  q: string;
  types: string[];
  result?: { total: number; hits: SearchHitView[] };
  /** Shown instead of results, e.g. when the search service does not answer. */
  error?: string;
}

/** The API's snippets are escaped text with <mark> around matches; anything else that looks like a tag is escaped again. */
export function safeSnippet(snippet: string): SafeHtml {
  return raw(snippet.replace(/<(?!\/?mark>)/g, '&lt;'));
}

function hitHtml(h: SearchHitView): SafeHtml {
  const kind = isType(h.type) ? t('en', `kind.${h.type}`) : h.type;
  return html`<li><span class="kind">${kind}</span><a href="${h.url}">${h.title}</a>${h.date ? html` <span class="meta"><time datetime="${h.date}">${formatDate(h.date)}</time></span>` : ''}
<p>${safeSnippet(h.snippet)}</p></li>
`;
}

export function statusText(state: SearchState): string {
  if (state.error) return '';
  if (!state.result) return '';
  const n = state.result.total;
  const shown = state.result.hits.length;
  return n === 0 ? t('en', 'results.nothing', { q: state.q }) : tn('en', n > shown ? 'results.countShown' : 'results.count', n, { q: state.q, shown });
}

export function searchBody(state: SearchState): SafeHtml {
  const checked = (v: string) => (state.types.includes(v) ? raw(' checked') : '');
  return html`<h1>${t('en', 'search.title')}</h1>
<form class="search-form" role="search" action="/search" method="get" id="search-form">
<div class="q"><label for="q">${t('en', 'search.label')}</label>
<input id="q" name="q" type="search" value="${state.q}" autocomplete="off" spellcheck="false" aria-describedby="search-help" aria-controls="results"></div>
<button type="submit" class="primary">${t('en', 'search.button')}</button>
<fieldset><legend>${t('en', 'search.kinds')}</legend><div class="checks">
${SEARCH_TYPES.map(({ value }) => html`<label><input type="checkbox" name="types" value="${value}"${checked(value)}> ${t('en', `kinds.${value}`)}</label>\n`)}</div></fieldset>
</form>
<p id="search-help" class="muted">${t('en', 'search.help')}</p>
${state.error ? html`<p role="alert">${state.error}</p>` : ''}<p id="search-status" role="status">${statusText(state)}</p>
<ol class="hits" id="results">
${(state.result?.hits ?? []).map(hitHtml)}</ol>`;
}
