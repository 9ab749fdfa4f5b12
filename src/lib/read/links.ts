// How items link to each other. People follow `url` to a page; agents (agent=true) get the API document
// instead, with ?agent=true kept so every hop stays machine-readable. `api_url` is always the JSON twin,
// and `page_url` always the absolute address of the human page: what an agent cites to a person.
import { CHANNEL_PAGE_SIZE } from '../../web/paging.ts';

export type ItemKind = 'videos' | 'essays' | 'digests' | 'knowledge' | 'personas' | 'channels' | 'posts';

export function apiUrl(kind: ItemKind, id: string): string {
  return `/api/${kind}/${encodeURIComponent(id)}`;
}

/** The human page of an item, relative to the site. */
export function pagePath(kind: ItemKind, id: string): string {
  return `/${kind}/${encodeURIComponent(id)}`;
}

export function itemUrl(kind: ItemKind, id: string, agent: boolean): string {
  return agent ? `${apiUrl(kind, id)}?agent=true` : pagePath(kind, id);
}

/**
 * The links of an item's version in another language than its primary one (an essay's translation): the
 * page /essays/<slug>/<lang>, the JSON /api/essays/<slug>?lang=<lang>, and with `agent` the JSON with
 * ?agent=true as the item's url.
 */
export function translationLinks(kind: ItemKind, id: string, lang: string, agent: boolean, origin = ''): { url: string; api_url: string; page_url: string } {
  const api = `${apiUrl(kind, id)}?lang=${encodeURIComponent(lang)}`;
  const page = `${pagePath(kind, id)}/${encodeURIComponent(lang)}`;
  return { url: agent ? `${api}&agent=true` : page, api_url: api, page_url: `${origin}${page}` };
}

/**
 * The page to send a person to, absolute when the site's origin is known (every JSON document the API
 * serves passes it; page view models, which need no such field, leave it relative).
 */
export function pageUrl(kind: ItemKind, id: string, origin = ''): string {
  return `${origin}${pagePath(kind, id)}`;
}

/** Options of the item reads: links in the agent form, and the origin that makes `page_url` absolute. */
export interface LinkOptions {
  agent: boolean;
  origin?: string;
}

/**
 * The documents a page path has beside its HTML: its Markdown twin (`<path>.md`; `/index.html.md` for the
 * home page, as llms.txt's convention has it, since dist/index.md would be a file of `/` itself) and, for
 * item pages and lists, the JSON document. Used for `Link: rel=alternate` and for answering
 * `Accept: application/json` or `text/markdown` on a page. Null for paths that are not pages.
 */
export function pageAlternates(path: string): { markdown: string; json: string | null } | null {
  if (path === '/') return { markdown: '/index.html.md', json: '/api/latest' };
  const m = /^\/(videos|essays|digests|knowledge|personas|channels|tags)(?:\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?)?$/.exec(path);
  if (!m) return null;
  const [, kind, id, sub, n] = m;
  const markdown = `${path}.md`;
  if (kind === 'tags') return sub ? null : { markdown, json: id ? `/api/videos?tag=${id}` : '/api/tags' };
  if (!id) return { markdown, json: `/api/${kind}` };
  if (kind === 'essays' && sub && !n) return { markdown, json: `/api/essays/${id}?lang=${sub}` }; // a translation
  if (kind === 'channels' && sub === 'page' && n) return { markdown, json: `/api/channels/${id}?limit=${CHANNEL_PAGE_SIZE}&offset=${(Number(n) - 1) * CHANNEL_PAGE_SIZE}` };
  if (sub) return null;
  return { markdown, json: `/api/${kind}/${id}` };
}

/** Common shape of a paged list: the page's items and what a client needs to fetch the next one. */
export interface Page<T> {
  total: number;
  limit: number;
  offset: number;
  items: T[];
}

export function page<T>(all: readonly T[], limit: number, offset: number): Page<T> {
  return { total: all.length, limit, offset, items: all.slice(offset, offset + limit) };
}
