// The user-interface strings of every public page in the page's language: one catalogue per language
// (src/web/i18n/en.ts, sl.ts), read here on the server and, for the strings the page's scripts show,
// carried into the page as JSON (clientMessagesJson) and read by msg() in public/assets/api.js.
import type { Lang } from '../lib/content/schema.ts';
import { html, raw, type SafeHtml } from './html.ts';
import { en } from './i18n/en.ts';
import { sl } from './i18n/sl.ts';
import type { Message, Plural } from './i18n/types.ts';

const CATALOGUES: Record<Lang, Record<MessageKey, Message>> = { en, sl };

type MessageKey = keyof typeof en;
/** Keys of plain strings (t, tHtml) and of counted phrases (tn). */
type TextKey = { [K in MessageKey]: (typeof en)[K] extends string ? K : never }[MessageKey];
type PluralKey = Exclude<MessageKey, TextKey>;

type Vars = Record<string, string | number>;

const fill = (text: string, vars: Vars) => text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));

/** A string in the page's language, {name} placeholders filled from vars. */
export function t(lang: Lang, key: TextKey, vars: Vars = {}): string {
  return fill(CATALOGUES[lang][key] as string, vars);
}

const pluralRules = new Map<Lang, Intl.PluralRules>();

/** A counted phrase in the form the language uses for n ("1 video", "2 posnetka"); {n} is n. */
export function tn(lang: Lang, key: PluralKey, n: number, vars: Vars = {}): string {
  let rules = pluralRules.get(lang);
  if (!rules) pluralRules.set(lang, (rules = new Intl.PluralRules(lang)));
  const forms = CATALOGUES[lang][key] as Plural;
  const form = forms[rules.select(n) as keyof Plural] ?? forms.other;
  return fill(form, { ...vars, n });
}

/** A string with markup in its placeholders (a link inside a sentence); the text around them is escaped. */
export function tHtml(lang: Lang, key: TextKey, vars: Record<string, SafeHtml>): SafeHtml {
  const text = CATALOGUES[lang][key] as string;
  return raw(text.split(/(\{\w+\})/).map((part) => vars[part.slice(1, -1)]?.value ?? html`${part}`.value).join(''));
}

/** The groups of keys each of the site's scripts shows (public/assets). */
const SCRIPT_MESSAGES: Record<string, readonly string[]> = {
  '/assets/who.js': ['who'],
  '/assets/comments.js': ['comments', 'reaction'],
  '/assets/related.js': ['kind'],
  '/assets/search.js': ['kind', 'results'],
};

/**
 * The catalogue's strings the page's scripts show, as the JSON a page carries in script#ui-messages, or
 * null when its scripts show none.
 */
export function clientMessagesJson(lang: Lang, scripts: readonly string[]): string | null {
  const groups = new Set(scripts.flatMap((s) => SCRIPT_MESSAGES[s] ?? []));
  if (groups.size === 0) return null;
  const picked = Object.fromEntries(Object.entries(CATALOGUES[lang]).filter(([key]) => groups.has(key.slice(0, key.indexOf('.')))));
  // As the text of a <script> element: no "</script" or "<!--" may appear, so every "<" is escaped.
  return JSON.stringify(picked).replace(/</g, '\\u003c');
}
