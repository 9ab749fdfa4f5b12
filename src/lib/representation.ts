// How a read is put into bytes, and where its prerendered file lives in dist/. Shared by the static build
// and the server so a prerendered file and its dynamic twin are byte for byte the same.
export type Representation = 'json' | 'markdown' | 'text' | 'html' | 'shell' | 'svg' | 'xml' | 'atom';

export const EXTENSION: Record<Representation, string> = {
  json: '.json',
  markdown: '.md',
  text: '.txt',
  html: '.html',
  shell: '.sh',
  svg: '.svg',
  xml: '.xml',
  // Atom feeds (src/lib/read/feeds.ts): .atom is the extension static hosts map to application/atom+xml.
  atom: '.atom',
};

export const CONTENT_TYPE: Record<Representation, string> = {
  json: 'application/json; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
  shell: 'text/x-shellscript; charset=utf-8',
  svg: 'image/svg+xml; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
};

/** Content types of the other files dist/ may hold (Astro's assets, public/). */
const OTHER_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
};

export function contentTypeForFile(file: string): string {
  const ext = /\.[a-z0-9]+$/i.exec(file)?.[0].toLowerCase() ?? '';
  for (const [rep, e] of Object.entries(EXTENSION)) if (e === ext) return CONTENT_TYPE[rep as Representation];
  return OTHER_TYPES[ext] ?? 'application/octet-stream';
}

/** JSON as the service writes it everywhere: compact, UTF-8, no trailing newline. */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * Where a URL path's prerendered file lives, relative to dist/. A path whose last segment already ends in
 * the representation's extension (/llms.txt, /SKILL.md) is stored as is; every other path is a folder with
 * an `index.<ext>` inside, so /api/videos and /api/videos/<id> can both exist, and the extension tells a
 * CDN the content type.
 */
export function distFileFor(urlPath: string, rep: Representation): string {
  const ext = EXTENSION[rep];
  const clean = urlPath.replace(/^\/+/, '');
  if (clean.endsWith(ext) && !clean.endsWith('/')) return clean;
  return clean === '' ? `index${ext}` : `${clean}/index${ext}`;
}

/** The inverse of distFileFor: the URL path a file in dist/ answers. */
export function urlPathForDistFile(rel: string): string {
  const m = /^(.*?)(?:^|\/)index\.(json|md|txt|html|sh|svg|xml|atom)$/.exec(rel);
  if (m) return '/' + m[1];
  return '/' + rel;
}

/**
 * A piece of a document made of many items' parts (/llms-full.txt): text, or one item's text, made only
 * when the static build cannot copy its bytes from the previous file (static-build/pieces.ts).
 */
export type Piece = string | { group: string; text: () => string };

export const pieceText = (p: Piece): string => (typeof p === 'string' ? p : p.text());
