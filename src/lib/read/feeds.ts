// Atom 1.0 feeds (RFC 4287) for readers who subscribe rather than visit: one of everything, one per kind
// (videos, essays, daily digests) and one per language, each the newest FEED_ENTRIES items. Prerendered with
// the rest of the site (src/lib/resources.ts) at /feeds/<name>.atom and named in every page's head, in
// /api/latest and in the discovery documents. Pure functions of the snapshot and the site's origin: an
// entry's id is its page's absolute URL, its dates are the item's date at midnight UTC (the content knows
// no time of day or edit time), and a feed is as new as its newest entry, so a build that changes nothing a
// feed shows writes the same bytes.
import { essayIn, type Snapshot } from '../content/model.ts';
import { LANGUAGES, type Lang } from '../content/schema.ts';
import type { SiteContext } from '../site.ts';
import { essayPath } from '../../web/paths.ts';
import { markdownToHtml } from '../../web/markdown.ts';
import { pageUrl } from './links.ts';

/** How many entries a feed holds: the newest ones. */
export const FEED_ENTRIES = 50;

export const FEED_KINDS = ['videos', 'essays', 'digests'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];
export type FeedName = 'all' | FeedKind | Lang;
export const FEED_NAMES: readonly FeedName[] = ['all', ...FEED_KINDS, ...LANGUAGES];

export const FEED_TYPE = 'application/atom+xml';

export function feedPath(name: FeedName): string {
  return `/feeds/${name}.atom`;
}

const LANGUAGE_LABEL: Record<Lang, string> = { en: 'in English', sl: 'v slovenščini' };
const KIND_LABEL: Record<FeedKind, string> = { videos: 'videos', essays: 'essays', digests: 'daily digests' };

export function feedTitle(siteName: string, name: FeedName): string {
  if (name === 'all') return siteName;
  return `${siteName}: ${(KIND_LABEL as Record<string, string>)[name] ?? LANGUAGE_LABEL[name as Lang]}`;
}

/** The page a feed stands for (its rel=alternate link). */
const FEED_PAGE: Record<FeedName, string> = { all: '/', videos: '/videos', essays: '/essays', digests: '/digests', en: '/', sl: '/' };

/** Every feed's absolute address, as /api/latest and /api name them. */
export function feedUrls(baseUrl: string) {
  const abs = (n: FeedName) => `${baseUrl}${feedPath(n)}`;
  return {
    all: abs('all'),
    videos: abs('videos'),
    essays: abs('essays'),
    digests: abs('digests'),
    by_language: Object.fromEntries(LANGUAGES.map((l) => [l, abs(l)])) as Record<Lang, string>,
  };
}

/**
 * The feeds a page names in its head (<link rel="alternate" type="application/atom+xml">): every page the
 * feed of everything; the home page every feed; a page of videos, essays or digests that kind's; a page
 * whose content is in a language (its `lang`) that language's.
 */
export function pageFeeds(path: string, section: string | undefined, lang: Lang | undefined): FeedName[] {
  if (path === '/') return [...FEED_NAMES];
  const names: FeedName[] = ['all'];
  if ((FEED_KINDS as readonly string[]).includes(section ?? '')) names.push(section as FeedKind);
  if (lang) names.push(lang);
  return names;
}

/** Text as XML character data: escaped, and without the characters XML 1.0 cannot hold. */
function xmlText(s: string): string {
  return s
    .replace(/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** A page's HTML for a feed reader, which shows it away from the site: links to the site made absolute. */
function entryHtml(markdown: string, baseUrl: string): string {
  return markdownToHtml(markdown, { dropTitle: true }).value.replace(/\b(href|src)="\/(?!\/)/g, `$1="${baseUrl}/`);
}

const instant = (date: string) => `${date}T00:00:00Z`;

interface Entry {
  kind: FeedKind;
  lang: Lang;
  date: string;
  /** The entry's XML, made once per snapshot and origin (several feeds hold the same entry). */
  xml: () => string;
}

function entryXml(e: { id: string; title: string; date: string; lang: Lang; author?: { name: string; uri: string }; tags: string[]; summary: string; content?: string; related?: string }): string {
  const lines = [
    `<entry xml:lang="${e.lang}">`,
    `<id>${xmlText(e.id)}</id>`,
    `<title>${xmlText(e.title)}</title>`,
    `<link rel="alternate" type="text/html" href="${xmlText(e.id)}"/>`,
    ...(e.related ? [`<link rel="related" href="${xmlText(e.related)}"/>`] : []),
    `<published>${instant(e.date)}</published>`,
    `<updated>${instant(e.date)}</updated>`,
    ...(e.author ? [`<author><name>${xmlText(e.author.name)}</name><uri>${xmlText(e.author.uri)}</uri></author>`] : []),
    ...e.tags.map((t) => `<category term="${xmlText(t)}"/>`),
    ...(e.summary ? [`<summary>${xmlText(e.summary)}</summary>`] : []),
    ...(e.content ? [`<content type="html">${xmlText(e.content)}</content>`] : []),
    '</entry>',
  ];
  return lines.join('\n');
}

const KIND_ORDER: Record<FeedKind, number> = { digests: 0, essays: 1, videos: 2 };

/** Newest first; on the same day digests, then essays, then videos, each in the snapshot's order. */
function newestFirst(entries: Entry[]): Entry[] {
  return entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.date !== b.e.date ? (a.e.date < b.e.date ? 1 : -1) : KIND_ORDER[a.e.kind] - KIND_ORDER[b.e.kind] || a.i - b.i))
    .map(({ e }) => e);
}

const memo = new WeakMap<Snapshot, Map<string, string>>();
function once(snap: Snapshot, key: string, make: () => string): () => string {
  return () => {
    let m = memo.get(snap);
    if (!m) memo.set(snap, (m = new Map()));
    let xml = m.get(key);
    if (xml === undefined) m.set(key, (xml = make()));
    return xml;
  };
}

/**
 * The newest entries of one kind that `keep` accepts, at most FEED_ENTRIES. Videos and digests are the
 * snapshot's lists (newest first), read only as far as needed; essays are every translation, each with its
 * own date.
 */
function entriesOf(snap: Snapshot, base: string, kind: FeedKind, keep: (lang: Lang) => boolean): Entry[] {
  const out: Entry[] = [];
  if (kind === 'videos') {
    for (const v of snap.videos) {
      if (out.length >= FEED_ENTRIES) break;
      if (!keep(v.language)) continue;
      const channel = snap.channelsById.get(v.channel);
      out.push({
        kind,
        lang: v.language,
        date: v.date,
        xml: once(snap, `${base}\nvideo:${v.video_id}`, () =>
          entryXml({
            id: pageUrl('videos', v.video_id, base),
            title: v.title,
            date: v.date,
            lang: v.language,
            author: channel && { name: channel.name, uri: channel.url },
            tags: v.tags,
            summary: v.summary,
            related: v.url,
          }),
        ),
      });
    }
  } else if (kind === 'digests') {
    // Digests are written in English (the site's language; a digest has no language of its own).
    if (!keep('en')) return out;
    for (const d of snap.digests.slice(0, FEED_ENTRIES)) {
      out.push({
        kind,
        lang: 'en',
        date: d.date,
        xml: once(snap, `${base}\ndigest:${d.date}`, () =>
          entryXml({ id: pageUrl('digests', d.date, base), title: d.title, date: d.date, lang: 'en', tags: [], summary: d.intro, content: entryHtml(d.content, base) }),
        ),
      });
    }
  } else {
    for (const e of snap.essays) {
      for (const lang of e.languages) {
        if (!keep(lang)) continue;
        const t = essayIn(e, lang);
        out.push({
          kind,
          lang,
          date: t.date,
          xml: once(snap, `${base}\nessay:${e.slug}/${lang}`, () =>
            entryXml({ id: `${base}${essayPath(e, lang)}`, title: t.title, date: t.date, lang, tags: t.tags, summary: t.description, content: entryHtml(t.body, base) }),
          ),
        });
      }
    }
    return newestFirst(out).slice(0, FEED_ENTRIES);
  }
  return out;
}

/** One feed as its Atom document. */
export function atomFeed(snap: Snapshot, site: SiteContext, name: FeedName): string {
  const base = site.baseUrl;
  const kinds: readonly FeedKind[] = name === 'all' || (LANGUAGES as readonly string[]).includes(name) ? FEED_KINDS : [name as FeedKind];
  const keep = (lang: Lang) => name === 'all' || !(LANGUAGES as readonly string[]).includes(name) || lang === name;
  const entries = newestFirst(kinds.flatMap((k) => entriesOf(snap, base, k, keep))).slice(0, FEED_ENTRIES);
  const self = `${base}${feedPath(name)}`;
  const lang = (LANGUAGES as readonly string[]).includes(name) ? name : 'en';
  // A feed is as new as its newest entry; an empty one names the epoch rather than the build time, so an
  // unchanged feed keeps its bytes (and its ETag) from one build to the next.
  const updated = entries[0] ? instant(entries[0].date) : '1970-01-01T00:00:00Z';
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="${lang}">
<id>${xmlText(self)}</id>
<title>${xmlText(feedTitle(site.siteName, name))}</title>
<subtitle${lang === 'en' ? '' : ' xml:lang="en"'}>${xmlText(site.description)}</subtitle>
<updated>${updated}</updated>
<link rel="self" type="${FEED_TYPE}" href="${xmlText(self)}"/>
<link rel="alternate" type="text/html" href="${xmlText(`${base}${FEED_PAGE[name]}`)}"/>
<author><name>${xmlText(site.siteName)}</name><uri>${xmlText(`${base}/`)}</uri></author>
${entries.map((e) => e.xml() + '\n').join('')}</feed>
`;
}
