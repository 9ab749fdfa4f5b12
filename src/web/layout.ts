// The site's chrome in one place: <head> (title, description, canonical, JSON twin, Open Graph), the
// header with the main navigation, and the footer. The Astro layout (src/layouts/Page.astro) and the
// server's pages (api/web, the consent and device pages) both use these functions, so every page looks
// and behaves the same whether it was prerendered or rendered on demand.
import type { Lang } from '../lib/content/schema.ts';
import { OG_LOCALE } from './format.ts';
import { html, raw, type SafeHtml } from './html.ts';
import { clientMessagesJson, t, tn } from './i18n.ts';
import { FEED_TYPE, feedPath, feedTitle, pageFeeds } from '../lib/read/feeds.ts';

export interface PageMeta {
  /** The page's own title; the site name is appended (the home page passes the site name itself). */
  title: string;
  description: string;
  /** URL path of the page, for the canonical link and og:url. */
  path: string;
  /** Language of the page (html lang): its content and its chrome, whose strings come from src/web/i18n.ts. */
  lang?: Lang;
  /** The API document with the same content. */
  jsonTwin?: string;
  ogType?: 'website' | 'article' | 'video.other' | 'profile';
  image?: { url: string; width?: number; height?: number; alt: string };
  /** The same page in other languages (hreflang). */
  alternates?: { lang: Lang; path: string }[];
  /** Pages for one person (account, editor) stay out of search engines. */
  noindex?: boolean;
  /** Module scripts from public/assets, e.g. '/assets/comments.js'. */
  scripts?: string[];
  /** Stylesheets beside site.css for one kind of page, e.g. '/assets/graph.css'. */
  styles?: string[];
  /** Pages for one person or one moment (consent, device approval, account): no canonical URL, no Open
   * Graph card, noindex. */
  utility?: boolean;
}

export interface SiteChrome {
  siteName: string;
  baseUrl: string;
  /** Which navigation entry is the current section. */
  section?: NavKey;
  /** Known only on pages the server renders per request. */
  user?: { handle: string; display_name: string; role: string } | null;
  unread?: number;
  /** Prerendered pages cannot know their reader: /assets/who.js asks /api/auth/me and fills the header. */
  whoScript?: boolean;
}

export const NAV = [
  { key: 'digests', href: '/digests' },
  { key: 'videos', href: '/videos' },
  { key: 'essays', href: '/essays' },
  { key: 'knowledge', href: '/knowledge' },
  { key: 'channels', href: '/channels' },
  { key: 'personas', href: '/personas' },
  { key: 'tags', href: '/tags' },
  { key: 'search', href: '/search' },
] as const;
export type NavKey = (typeof NAV)[number]['key'] | 'account' | 'home';

/** Fills the header's sign-in corner on prerendered pages (src/web/layout.ts renders it as "Account"). */
export const WHO_SCRIPT = '/assets/who.js';

const abs = (baseUrl: string, p: string) => (/^https?:\/\//.test(p) ? p : `${baseUrl}${p}`);

export function headHtml(meta: PageMeta, site: SiteChrome): SafeHtml {
  const lang = meta.lang ?? 'en';
  const fullTitle = meta.title === site.siteName ? site.siteName : `${meta.title} · ${site.siteName}`;
  const img = meta.image;
  if (meta.utility) {
    return html`<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${fullTitle}</title>
${meta.description ? html`<meta name="description" content="${meta.description}">\n` : ''}${feedLinks(meta, site)}${assetsHtml(meta, site)}`;
  }
  return html`<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${fullTitle}</title>
<meta name="description" content="${meta.description}">
${meta.noindex ? html`<meta name="robots" content="noindex">\n` : ''}<link rel="canonical" href="${abs(site.baseUrl, meta.path)}">
${meta.jsonTwin ? html`<link rel="alternate" type="application/json" href="${meta.jsonTwin}">\n` : ''}${feedLinks(meta, site)}${(meta.alternates ?? []).map((a) => html`<link rel="alternate" hreflang="${a.lang}" href="${abs(site.baseUrl, a.path)}">\n`)}<meta property="og:site_name" content="${site.siteName}">
<meta property="og:title" content="${meta.title}">
<meta property="og:description" content="${meta.description}">
<meta property="og:type" content="${meta.ogType ?? 'website'}">
<meta property="og:url" content="${abs(site.baseUrl, meta.path)}">
<meta property="og:locale" content="${OG_LOCALE[lang]}">
${img
  ? html`<meta property="og:image" content="${abs(site.baseUrl, img.url)}">
<meta property="og:image:alt" content="${img.alt}">
${img.width ? html`<meta property="og:image:width" content="${img.width}">\n<meta property="og:image:height" content="${img.height}">\n` : ''}<meta name="twitter:card" content="summary_large_image">`
  : html`<meta name="twitter:card" content="summary">`}
${assetsHtml(meta, site)}`;
}

/** The Atom feeds a page names for feed readers (src/lib/read/feeds.ts pageFeeds says which). */
function feedLinks(meta: PageMeta, site: SiteChrome): SafeHtml[] {
  return pageFeeds(meta.path, site.section, meta.lang).map(
    (name) => html`<link rel="alternate" type="${FEED_TYPE}" title="${feedTitle(site.siteName, name)}" href="${abs(site.baseUrl, feedPath(name))}">\n`,
  );
}

/** Icon, stylesheets and module scripts (who.js on prerendered pages), with the strings the scripts show. */
function assetsHtml(meta: PageMeta, site: SiteChrome): SafeHtml {
  const scripts = [...(meta.scripts ?? []), ...(site.whoScript ? [WHO_SCRIPT] : [])];
  const messages = clientMessagesJson(meta.lang ?? 'en', scripts);
  return html`<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/site.css">
${(meta.styles ?? []).map((s) => html`<link rel="stylesheet" href="${s}">\n`)}${scripts.map((s) => html`<script type="module" src="${s}"></script>\n`)}${messages ? html`<script type="application/json" id="ui-messages">${raw(messages)}</script>\n` : ''}`;
}

/** aria-current: "page" on the link to this very page, "true" on the section the page belongs to. */
export function headerHtml(site: SiteChrome, meta: Pick<PageMeta, 'lang' | 'path'>): SafeHtml {
  const lang = meta.lang ?? 'en';
  const hrefOf = (key: string) => NAV.find((n) => n.key === key)?.href ?? `/${key}`;
  const current = (key: string) =>
    meta.path === hrefOf(key) ? raw(' aria-current="page"') : site.section === key ? raw(' aria-current="true"') : '';
  const user = site.user;
  const who = user
    ? html`<a href="/notifications"${current('notifications')}>${t(lang, 'who.notifications')}${site.unread ? html` <span class="badge">${site.unread}<span class="visually-hidden"> ${tn(lang, 'who.unread', site.unread)}</span></span>` : ''}</a>
<a href="/posts/me"${meta.path === '/posts/me' ? raw(' aria-current="page"') : ''}>${t(lang, 'who.posts')}</a>
${user.role !== 'user' ? html`<a href="/moderation">${t(lang, 'who.moderation')}</a>\n` : ''}<a href="/account"${current('account')} title="@${user.handle}">${user.display_name || `@${user.handle}`}</a>
<form method="post" action="/signout"><button type="submit" class="link">${t(lang, 'who.signOut')}</button></form>`
    : html`<a href="/account"${current('account')}>${t(lang, 'who.account')}</a>`;
  return html`<a class="skip" href="#content">${t(lang, 'chrome.skip')}</a>
<header class="site">
<div class="wrap bar">
<a class="brand" href="/"${meta.path === '/' ? raw(' aria-current="page"') : ''}>${site.siteName}</a>
<nav aria-label="${t(lang, 'chrome.mainNav')}"><ul>
${NAV.map((n) => html`<li><a href="${n.href}"${current(n.key)}>${t(lang, `nav.${n.key}`)}</a></li>\n`)}</ul></nav>
<div class="who">${who}</div>
</div>
</header>`;
}

export function footerHtml(site: SiteChrome, meta: Pick<PageMeta, 'jsonTwin' | 'lang'>): SafeHtml {
  const lang = meta.lang ?? 'en';
  return html`<footer class="site">
<div class="wrap">
<p>${t(lang, 'chrome.about', { site: site.siteName })}</p>
<p class="links"><a href="/api">${t(lang, 'chrome.apiForAgents')}</a> · <a href="/llms.txt">llms.txt</a> · <a href="/openapi.json">OpenAPI</a> · <a href="/api/graph">${t(lang, 'chrome.graph')}</a> · <a href="/proposals">${t(lang, 'chrome.proposals')}</a> · <a href="/posts/me">${t(lang, 'chrome.writePost')}</a>${meta.jsonTwin ? html` · <a href="${meta.jsonTwin}">${t(lang, 'chrome.pageAsJson')}</a>` : ''}</p>
</div>
</footer>`;
}

/** A whole page for the server's on-demand pages; prerendered pages get the same from Page.astro. */
export function documentHtml(meta: PageMeta, site: SiteChrome, body: SafeHtml): string {
  return `<!doctype html>
<html lang="${meta.lang ?? 'en'}">
<head>
${headHtml(meta, site)}
</head>
<body>
${headerHtml(site, meta)}
<main>
<div class="wrap" id="content">
${body}
</div>
</main>
${footerHtml(site, meta)}
</body>
</html>
`;
}
