// The search page's content, one template for both ways it is served: prerendered empty at /search (the
// script then shows results as you type, from /api/search), and rendered by the server with results when
// a query string is present (GET /search?q=…, the form's own target), which is all a browser without
// JavaScript needs.
import { html, raw, type SafeHtml } from './html.ts';
import { formatDate } from './format.ts';

export const SEARCH_TYPES = [
  { value: 'video', label: 'Videos', one: 'Video' },
  { value: 'knowledge', label: 'Knowledge', one: 'Knowledge' },
  { value: 'essay', label: 'Essays', one: 'Essay' },
  { value: 'digest', label: 'Digests', one: 'Digest' },
  { value: 'persona', label: 'Personas', one: 'Persona' },
  { value: 'post', label: 'Posts', one: 'Post' },
] as const;

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
  const kind = SEARCH_TYPES.find((t) => t.value === h.type)?.one ?? h.type;
  return html`<li><span class="kind">${kind}</span><a href="${h.url}">${h.title}</a>${h.date ? html` <span class="meta"><time datetime="${h.date}">${formatDate(h.date)}</time></span>` : ''}
<p>${safeSnippet(h.snippet)}</p></li>
`;
}

export function statusText(state: SearchState): string {
  if (state.error) return '';
  if (!state.result) return '';
  const n = state.result.total;
  return n === 0 ? `Nothing found for “${state.q}”.` : `${n} result${n === 1 ? '' : 's'} for “${state.q}”${n > state.result.hits.length ? `, the best ${state.result.hits.length} shown` : ''}.`;
}

export function searchBody(state: SearchState): SafeHtml {
  const checked = (v: string) => (state.types.includes(v) ? raw(' checked') : '');
  return html`<h1>Search</h1>
<form class="search-form" role="search" action="/search" method="get" id="search-form">
<div class="q"><label for="q">Search videos, essays, digests, knowledge, personas and posts</label>
<input id="q" name="q" type="search" value="${state.q}" autocomplete="off" spellcheck="false" aria-describedby="search-help" aria-controls="results"></div>
<button type="submit" class="primary">Search</button>
<fieldset><legend>Only these kinds (none ticked: all)</legend><div class="checks">
${SEARCH_TYPES.map((t) => html`<label><input type="checkbox" name="types" value="${t.value}"${checked(t.value)}> ${t.label}</label>\n`)}</div></fieldset>
</form>
<p id="search-help" class="muted">Results appear as you type. Press the down arrow to move into them, up and down to move between them, Enter to open one and Escape to go back to the search box.</p>
${state.error ? html`<p role="alert">${state.error}</p>` : ''}<p id="search-status" role="status">${statusText(state)}</p>
<ol class="hits" id="results">
${(state.result?.hits ?? []).map(hitHtml)}</ol>`;
}
