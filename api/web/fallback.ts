// What the in-memory static handler leaves to Hono about pages: a page or asset asked for with a query
// string (?utm_source=…, ?ref=…, a cache-buster) gets its prerendered file all the same, a trailing slash
// is redirected away, and a browser asking for a page that does not exist gets the site's 404 page.
// Registered last, so every real route answers first; /api paths are left to the API's JSON 404.
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { etagMatches, type StaticEntry } from '../static/index.ts';
import type { WebDeps } from './deps.ts';

function isApiPath(p: string): boolean {
  return p === '/api' || p.startsWith('/api/') || p.startsWith('/.well-known/') || p === '/mcp' || p.startsWith('/idp/');
}

function entryFor(deps: WebDeps, urlPath: string): StaticEntry | undefined {
  const site = deps.staticSite?.();
  if (!site) return undefined;
  let entries = site.files.get(urlPath);
  if (!entries) {
    try {
      entries = site.files.get(decodeURI(urlPath));
    } catch {
      return undefined;
    }
  }
  // Pages have one representation; /api (two) is never served from here.
  return entries?.length === 1 ? entries[0] : undefined;
}

function respond(c: Context, entry: StaticEntry, status: 200 | 404): Response {
  const headers = new Headers();
  for (let i = 0; i < entry.headers.length; i += 2) headers.set(entry.headers[i], entry.headers[i + 1]);
  if (status === 200) {
    const inm = c.req.header('if-none-match');
    if (inm && etagMatches(inm, entry.etag)) {
      headers.delete('Content-Length');
      return new Response(null, { status: 304, headers });
    }
  } else {
    headers.delete('ETag');
    headers.set('Cache-Control', 'no-store');
  }
  const bytes = new Uint8Array(entry.body.buffer as ArrayBuffer, entry.body.byteOffset, entry.body.byteLength); // a view, no copy
  return new Response(c.req.method === 'HEAD' ? null : bytes, { status, headers });
}

/** The prerendered file of a page path, answered as the static handler would; null when there is none. */
export function staticFileResponse(c: Context, deps: WebDeps, urlPath: string): Response | null {
  const entry = entryFor(deps, urlPath);
  return entry ? respond(c, entry, 200) : null;
}

export function registerPageFallback(app: OpenAPIHono, deps: WebDeps): void {
  app.get('*', async (c, next) => {
    const url = new URL(c.req.url);
    const p = url.pathname;
    if (isApiPath(p)) return next();
    const file = staticFileResponse(c, deps, p);
    if (file) return file;
    if (p.length > 1 && p.endsWith('/')) {
      // A loop, not /\/+$/: the pattern rescans every run of slashes before the last one (quadratic in the path).
      let end = p.length;
      while (end > 0 && p[end - 1] === '/') end--;
      const bare = p.slice(0, end) || '/';
      if (entryFor(deps, bare)) return c.redirect(`${bare}${url.search}`, 301);
    }
    const notFoundPage = /text\/html/.test(c.req.header('accept') ?? '') ? entryFor(deps, '/404.html') : undefined;
    if (notFoundPage) return respond(c, notFoundPage, 404);
    return next();
  });
}
