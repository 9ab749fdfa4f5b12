// For crawlers: /robots.txt and /sitemap.xml, written at build time from the snapshot and BASE_URL. The
// sitemap lists every prerendered page (the same paths src/lib/pages/models.ts gives them) plus the graph
// and the proposals page; past 50,000 URLs (the protocol's limit per file) /sitemap.xml becomes an index of
// /sitemaps/<n>.xml files.
import type { Snapshot } from '../lib/content/model.ts';
import { essayIn } from '../lib/content/model.ts';
import { itemUrl } from '../lib/read/links.ts';
import { listTags } from '../lib/read/tags.ts';
import { essayPath } from './paths.ts';
import { CHANNEL_PAGE_SIZE, pageUrl } from './paging.ts';

export const SITEMAP_MAX_URLS = 50_000;

/** Pages for one person or one moment, and the write side of the API: not for crawlers. */
const DISALLOWED = ['/account', '/notifications', '/posts/me', '/moderation', '/device', '/signout', '/search?', '/api/auth/', '/api/oauth/', '/api/account/', '/api/me/'];

export function robotsTxt(baseUrl: string): string {
  return `# Everything public may be crawled; pages for one signed-in person may not.
User-agent: *
${DISALLOWED.map((p) => `Disallow: ${p}`).join('\n')}
Allow: /

Sitemap: ${baseUrl}/sitemap.xml
`;
}

interface SitemapUrl {
  path: string;
  lastmod?: string;
}

/** Every page a reader can land on, in a stable order. */
export function sitemapUrls(snap: Snapshot): SitemapUrl[] {
  const newestVideo = snap.videos[0]?.date;
  const newestDigest = snap.digests[0]?.date;
  const urls: SitemapUrl[] = [
    { path: '/', lastmod: [newestVideo, newestDigest].filter(Boolean).sort().at(-1) },
    { path: '/digests', lastmod: newestDigest },
    { path: '/videos', lastmod: newestVideo },
    { path: '/essays' },
    { path: '/knowledge' },
    { path: '/channels' },
    { path: '/personas' },
    { path: '/tags' },
    { path: '/search' },
    { path: '/api/graph' },
    { path: '/proposals' },
  ];
  for (const d of snap.digests) urls.push({ path: itemUrl('digests', d.date, false), lastmod: d.date });
  for (const v of snap.videos) urls.push({ path: itemUrl('videos', v.video_id, false), lastmod: v.date });
  for (const e of snap.essays) for (const lang of e.languages) urls.push({ path: essayPath(e, lang), lastmod: essayIn(e, lang).date });
  for (const c of snap.concepts) if (!c.draft) urls.push({ path: itemUrl('knowledge', c.slug, false) });
  for (const c of snap.channels) {
    const base = `/channels/${c.channel_id}`;
    const pages = Math.max(1, Math.ceil((snap.videosByChannel.get(c.channel_id)?.length ?? 0) / CHANNEL_PAGE_SIZE));
    for (let n = 1; n <= pages; n++) urls.push({ path: pageUrl(base, n) });
  }
  for (const p of snap.personas) urls.push({ path: itemUrl('personas', p.persona_id, false) });
  for (const t of listTags(snap).items) urls.push({ path: `/tags/${t.tag}` });
  return urls;
}

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

function urlset(baseUrl: string, urls: SitemapUrl[]): string {
  const entries = urls.map((u) => `<url><loc>${escapeXml(baseUrl + u.path)}</loc>${u.lastmod ? `<lastmod>${u.lastmod}</lastmod>` : ''}</url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</urlset>\n`;
}

/** /sitemap.xml, and /sitemaps/<n>.xml when the site outgrows one file. */
export function sitemapDocuments(snap: Snapshot, baseUrl: string): { path: string; body: string }[] {
  const urls = sitemapUrls(snap);
  if (urls.length <= SITEMAP_MAX_URLS) return [{ path: '/sitemap.xml', body: urlset(baseUrl, urls) }];
  const parts: { path: string; body: string }[] = [];
  for (let i = 0; i < urls.length; i += SITEMAP_MAX_URLS) {
    parts.push({ path: `/sitemaps/${parts.length + 1}.xml`, body: urlset(baseUrl, urls.slice(i, i + SITEMAP_MAX_URLS)) });
  }
  const index = parts.map((p) => `<sitemap><loc>${escapeXml(baseUrl + p.path)}</loc></sitemap>`);
  return [
    { path: '/sitemap.xml', body: `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${index.join('\n')}\n</sitemapindex>\n` },
    ...parts,
  ];
}
