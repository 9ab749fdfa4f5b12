// Anonymous content reads as dynamic routes: the same read-model functions the static build prerenders,
// called with the request's validated parameters. A param-less request is normally answered from memory
// by api/static before it gets here; these routes answer the rest and give the same bytes for the same read.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { pageMarkdown } from '../../src/lib/read/page-markdown.ts';
import { cacheFor, contentReads, encode, send, type ContentState } from './reads.ts';
import { registerAgentDocuments, registerDiscoveryDocuments, registerHealthAndSkills } from './agent-routes.ts';
import { registerDigestRoutes, registerEssayRoutes, registerKnowledgeRoutes, registerVideoRoutes } from './item-routes.ts';

export type { ContentState, Read } from './reads.ts';

/** Registers every content read. `state` returns the current snapshot (it is swapped when dist/ is rebuilt). */
/**
 * @param opts.healthDetail what operators see at /api/health?detail=true (admins only): component
 *   states and counters. Without `detail` the probe is the prerendered {"status":"ok"}.
 */
export function registerContentRoutes(app: OpenAPIHono, state: () => ContentState, opts: { healthDetail?: () => Record<string, unknown> } = {}) {
  const reads = contentReads(app, state);
  registerAgentDocuments(reads);
  registerDiscoveryDocuments(reads);
  registerHealthAndSkills(reads, opts.healthDetail);
  registerVideoRoutes(reads);
  registerEssayRoutes(reads);
  registerDigestRoutes(reads);
  registerKnowledgeRoutes(reads);
  registerMarkdownTwins(app, state);
}

/**
 * Every page's Markdown twin (<page>.md, /index.md for the home page), as src/lib/resources.ts prerenders
 * them: answered here for the same paths with a query string, and where no dist/ is loaded. Routes with
 * their own .md path (/SKILL.md, /api/skill.md) are registered before and answer first.
 */
function registerMarkdownTwins(app: OpenAPIHono, state: () => ContentState) {
  app.get('*', (c, next) => {
    const path = c.req.path;
    if (!path.endsWith('.md') || path.startsWith('/api/')) return next();
    const current = state();
    const cache = cacheFor(current);
    const key = `${path}\n`;
    let encoded = cache.get(key);
    if (!encoded) {
      const body = pageMarkdown(current.snapshot, current.site, path);
      if (body === null) return next();
      encoded = encode(path, { rep: 'markdown', body });
      cache.set(key, encoded);
    }
    return send(c, encoded);
  });
}
