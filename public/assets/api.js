// @ts-check
// Small helpers for the site's scripts: JSON calls to the API with the session cookie, error text from
// the API's {"detail"} bodies, and a DOM builder that only ever sets text (never HTML), so what people
// wrote cannot become markup.
import { sentenceOf } from './sentences.js';

/**
 * @typedef {{ ok: boolean, status: number, body: any }} ApiResult
 */

/**
 * A same-origin request; the browser adds the session cookie and, for writes, the Origin header the
 * server's CSRF check wants.
 * @param {string} path
 * @param {{ method?: string, json?: unknown, signal?: AbortSignal }} [init]
 * @returns {Promise<ApiResult>}
 */
export async function api(path, init = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (init.json !== undefined) headers['Content-Type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      credentials: 'same-origin',
      headers,
      body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
      signal: init.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    return { ok: false, status: 0, body: { detail: 'The server could not be reached. Check your connection.' } };
  }
  let body = null;
  if (res.status !== 204) {
    try {
      body = await res.json();
    } catch {
      body = null;
    }
  }
  return { ok: res.ok, status: res.status, body };
}

/**
 * What went wrong, in words, from an API answer (public/assets/sentences.js): never JSON or a pattern.
 * @param {ApiResult} r
 * @param {Record<string, import('./sentences.js').FieldWords>} [words] how the form names its fields
 */
export function errorMessage(r, words) {
  return sentenceOf(r.status, r.body, words);
}

/**
 * Creates an element with attributes and children; strings become text nodes.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | boolean | undefined>} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

/** The page's language (html lang): its chrome, and so what the scripts write, is in it. */
const pageLang = () => document.documentElement.lang || 'en';

/** @type {Record<string, string | Record<string, string>> | undefined} */
let catalogue;

/**
 * A user-interface string in the page's language, from the catalogue the page carries
 * (script#ui-messages, written from src/web/i18n.ts). {name} placeholders are filled from vars; for a
 * counted phrase, vars.n picks the plural form.
 * @param {string} key
 * @param {Record<string, string | number>} [vars]
 */
export function msg(key, vars = {}) {
  catalogue ??= JSON.parse(document.getElementById('ui-messages')?.textContent || '{}');
  const m = catalogue?.[key];
  const text = typeof m === 'string' ? m : m ? (m[new Intl.PluralRules(pageLang()).select(Number(vars.n))] ?? m.other) : key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

/**
 * A sentence with a link in it ({link} in the catalogue's string), as nodes.
 * @param {string} key
 * @param {Node} link
 */
export function msgWithLink(key, link) {
  const [before, after = ''] = msg(key).split('{link}');
  return [before, link, after];
}

/**
 * A date or timestamp as "3 November 2026", in the page's language.
 * @param {string} iso
 */
export function formatDate(iso) {
  const d = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleDateString(pageLang() === 'sl' ? 'sl-SI' : 'en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/**
 * The search API's snippets are escaped text with <mark> around matches: parse them with every other
 * "<" escaped again, so nothing but <mark> can appear.
 * @param {string} snippet
 */
export function snippetNodes(snippet) {
  const tpl = document.createElement('template');
  tpl.innerHTML = snippet.replace(/<(?!\/?mark>)/g, '&lt;');
  return tpl.content;
}

/**
 * @typedef {{ id: string, handle: string, display_name: string, role: 'user' | 'moderator' | 'admin' }} Me
 */

/** @type {Promise<Me | null> | undefined} */
let meOnce;

/**
 * Who is reading, asked once per page however many scripts want it (the header, comments): the signed-in
 * browser session's person, or null.
 * @returns {Promise<Me | null>}
 */
export function whoAmI() {
  meOnce ??= api('/api/auth/me').then((r) => (r.ok && r.body?.authenticated && r.body.via === 'session' ? r.body.user : null));
  return meOnce;
}
