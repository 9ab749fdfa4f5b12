// The Hono application: every dynamic route, validation and error handling. api/server.ts puts the
// in-memory static site in front of it.
import { OpenAPIHono } from '@hono/zod-openapi';
import { errorHandler, notFoundHandler } from './errors/index.ts';
import { BODY_TOO_LARGE, MAX_BODY_BYTES } from './errors/body-size.ts';
import { nulGuard } from './validation/nul-guard.ts';
import { registerContentRoutes } from './content/index.ts';
import { registerOpenApi } from './openapi/index.ts';
import { contentExamples } from './content/examples.ts';
import { registerAuditRoutes } from './audit/routes.ts';
import { authenticate } from './auth/middleware.ts';
import { registerAccountRoutes } from './auth/routes.ts';
import { registerOidcRoutes } from './auth/oidc.ts';
import { registerDeviceRoutes } from './device/index.ts';
import { registerOAuthRoutes } from './oauth/index.ts';
import { registerMcp } from './mcp/index.ts';
import { createNotifications } from '../src/lib/data/notifications/index.ts';
import { registerNotificationRoutes } from './notifications/routes.ts';
import { RateLimiter } from './rate-limit/index.ts';
import { trustProxies } from './rate-limit/client-address.ts';
import { registerCommentRoutes } from './comments/routes.ts';
import { registerProposalRoutes } from './proposals/index.ts';
import { registerSourceRoutes } from './sources/index.ts';
import { registerPostRoutes } from './posts/routes.ts';
import { registerModerationRoutes } from './moderation/routes.ts';
import { registerPipelineRoutes } from './pipeline/routes.ts';
import { registerWebPages } from './web/index.ts';
import { registerThumbnailProxy } from './web/thumbnails.ts';
import { registerPersonalKnowledgeRoutes } from './personal-knowledge/index.ts';
import { bodyLimit } from 'hono/body-limit';
import { compressResponses } from './static/compression.ts';
import { registerSearchRoutes } from './search/index.ts';
import { searchPostListener } from './search/posts.ts';
import { registerChatRoutes } from './chat/routes.ts';
import type { AppDeps, CommunityDeps } from './deps.ts';

export function createApp(deps: AppDeps): OpenAPIHono {
  const app = new OpenAPIHono({ strict: true });
  app.onError(errorHandler(deps.log));
  app.notFound(notFoundHandler);
  // Request bodies beyond 1 MB are refused before anything reads them. api/server.ts does it in the Node
  // listener, where the rest of a refused body can be drained (api/errors/body-size.ts); this is the same
  // rule for the app served any other way. GET and HEAD skip the check: touching the body makes the Node
  // adapter build a stream for it, which cost a third of a dynamic read's time.
  const limitBody = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.json({ detail: BODY_TOO_LARGE }, 413) });
  app.use('*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));
  // A NUL character in the path (404), the query or a form body (422): api/validation/nul.ts.
  app.use('*', nulGuard());
  app.use('*', compressResponses());
  // Behind the reverse proxies TRUST_PROXY names, the client's address comes from their headers (clientAddress).
  app.use('*', trustProxies(deps.config.trustProxy));
  app.use('*', authenticate(deps.identity, { publicOrigin: new URL(deps.config.baseUrl).origin }));
  const operators: { detail: () => Record<string, unknown> } = { detail: () => ({}) };
  // Before the content routes: with VIDEO_THUMBNAILS=proxy it answers the video thumbnail path itself.
  registerThumbnailProxy(app, { config: deps.config, content: deps.content });
  registerContentRoutes(app, deps.content, { healthDetail: () => operators.detail() });
  registerSearchRoutes(app, {
    content: deps.content,
    search: deps.search,
    searchLimiter: new RateLimiter({ name: 'search', limit: deps.config.searchRateLimitPerMinute, windowMs: 60_000, db: deps.db }),
  });
  // Sign-out ends the browser's session at the identity provider too (the routes registered next know it).
  registerAccountRoutes(app, deps.identity, { secureCookies: deps.config.secureCookies, endSessionUrl: (idToken) => browserSignIn.endSessionUrl(idToken) });
  const browserSignIn = registerOidcRoutes(app, deps.db, deps.identity, {
    ...deps.idp,
    siteName: deps.config.siteName,
    baseUrl: deps.config.baseUrl,
    sessionTtlHours: deps.config.sessionTtlHours,
    secureCookies: deps.config.secureCookies,
    loginRateLimitPerMinute: deps.config.loginRateLimitPerMinute,
    loopbackOnly: deps.config.devMode && !deps.config.allowDevIdp,
  });
  const community: CommunityDeps = {
    ...deps,
    notifications: createNotifications(deps.db),
    writeLimiter: new RateLimiter({ name: 'writes', limit: deps.config.writeRateLimitPerMinute, windowMs: 60_000, db: deps.db }),
  };
  registerNotificationRoutes(app, community.notifications);
  registerCommentRoutes(app, community);
  registerProposalRoutes(app, community);
  registerSourceRoutes(app, community);
  registerPostRoutes(app, { ...community, autoPublishPosts: deps.config.postsAutoPublish, posts: searchPostListener(deps.search, deps.log) });
  registerPersonalKnowledgeRoutes(app, community);
  registerModerationRoutes(app, deps);
  registerPipelineRoutes(app, community);
  registerDeviceRoutes(app, deps);
  registerOAuthRoutes(app, deps);
  registerMcp(app, deps);
  const chat = registerChatRoutes(app, deps);
  operators.detail = () => {
    const s = deps.search();
    return { llm: chat.health, search: { items: s.manifest.items, embedder: s.manifest.embedder.name, built_at: s.manifest.built_at } };
  };
  registerAuditRoutes(app, () => deps.audit);
  registerOpenApi(app, { title: deps.config.siteName, serverUrl: deps.config.baseUrl, examples: () => contentExamples(deps.content()) });
  // Last: the website's pages act through the routes above, and its fallback answers only what no route did.
  registerWebPages(app, { config: deps.config, staticSite: deps.staticSite });
  return app;
}
