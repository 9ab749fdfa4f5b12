// The website's on-demand pages. Reading pages are prerendered by Astro (src/pages) and answered from
// memory by api/static; what depends on the person or on a query is rendered here, with the same chrome
// (src/web/layout.ts), by acting through the API in process (call.ts): /account, /notifications,
// /posts/me and the editor, /posts/<slug> (with the essay vote), /proposals (with flags), /moderation,
// /search?q=, /signout. Registered last, the page
// fallback gives prerendered pages to requests with a query string and the 404 page to browsers.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { apiCaller } from './call.ts';
import { registerAccountPages } from './account.ts';
import { registerNotificationPages } from './notifications.ts';
import { registerPostPages } from './posts.ts';
import { registerModerationPages } from './moderation.ts';
import { registerSearchPage } from './search.ts';
import { registerProposalPages } from './proposals.ts';
import { registerSessionPages } from './session.ts';
import { registerPageFallback } from './fallback.ts';
import type { WebDeps } from './deps.ts';

/**
 * Call after every API route: the fallback registered here answers only what no route did.
 * @example registerWebPages(app, { config, staticSite: () => site })
 */
export function registerWebPages(app: OpenAPIHono, deps: WebDeps): void {
  const callApi = apiCaller(app);
  registerSessionPages(app, deps, callApi);
  registerAccountPages(app, deps, callApi);
  registerNotificationPages(app, deps, callApi);
  registerPostPages(app, deps, callApi);
  registerModerationPages(app, deps, callApi);
  registerSearchPage(app, deps, callApi);
  registerProposalPages(app, deps, callApi);
  registerPageFallback(app, deps);
}
