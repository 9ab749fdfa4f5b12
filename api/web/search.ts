// GET /search: without a query the prerendered page (the same bytes as the static file); with ?q= the
// results rendered here, from /api/search in process, so the form works without JavaScript and a
// search URL can be shared or reloaded. The page's script takes over for typing from there.
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { SEARCH_TYPES, searchBody, type SearchState } from '../../src/web/search-page.ts';
import { problem, type CallApi } from './call.ts';
import { pageResponse } from './render.ts';
import { staticFileResponse } from './fallback.ts';
import type { WebDeps } from './deps.ts';

/** `types` from the form (one parameter per box) or from a link (comma-separated), known names only. */
export function typesFrom(values: string[]): string[] {
  const known = new Set<string>(SEARCH_TYPES.map((t) => t.value));
  return [...new Set(values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => known.has(v)))];
}

export function registerSearchPage(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  app.get('/search', async (c: Context) => {
    const q = (c.req.query('q') ?? '').trim().slice(0, 500);
    const types = typesFrom(c.req.queries('types') ?? []);
    if (!q && types.length === 0) {
      const file = staticFileResponse(c, deps, '/search');
      if (file) return file;
    }
    const state: SearchState = { q, types };
    if (q) {
      const params = new URLSearchParams({ q, limit: '20' });
      if (types.length) params.set('types', types.join(','));
      const r = await callApi(c, 'GET', `/api/search?${params}`);
      if (r.ok) state.result = { total: r.body.total, hits: r.body.hits };
      else state.error = r.status === 404 ? 'Search is not available right now.' : `The search failed: ${problem(r)}`;
    }
    return pageResponse(
      c,
      deps.config,
      { title: q ? `Search: ${q}` : 'Search', description: 'Search videos, essays, digests, knowledge concepts, personas and posts.', path: '/search', noindex: true, scripts: ['/assets/search.js'] },
      searchBody(state),
      // The header names the signed-in person: a shared cache must not keep it, a browser may (revalidating).
      { section: 'search', headers: { 'Cache-Control': 'private, no-cache', Vary: 'Cookie' } },
    );
  });
}
