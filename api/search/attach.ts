// Interim: serves search from a server started by api/server.ts before server.ts mounts the routes
// itself. It wraps the server's request listener so /api/search and the /related paths reach a small Hono
// app with the search routes, and everything else goes where it went before; post writes mark the live
// index stale, and the next search first syncs it with the published posts (the posts routes have no
// listener wired yet). The tests and the bench use it; once server.ts wires search, delete this file.
import type http from 'node:http';
import { OpenAPIHono } from '@hono/zod-openapi';
import { getRequestListener } from '@hono/node-server';
import type { Config } from '../../src/lib/config.ts';
import { openSearch, type SearchService } from '../../src/lib/search/index.ts';
import { loadContentState, type RunningServer } from '../server.ts';
import { errorHandler, notFoundHandler } from '../errors/index.ts';
import { createNotifications } from '../notifications/index.ts';
import { createPostStore } from '../posts/store.ts';
import { registerSearchRoutes } from './index.ts';
import { syncPublishedPosts } from './posts.ts';

const SEARCH_PATH = /^\/api\/(?:search(?:\/|$|\?)|(?:videos|knowledge|essays|digests|personas|posts)\/[^/?]+\/related(?:$|\?))/;

export interface AttachedSearch {
  search(): SearchService;
  detach(): void;
}

export async function attachSearch(running: RunningServer, config: Config, opts: { log?: (m: string) => void } = {}): Promise<AttachedSearch> {
  const log = opts.log ?? (() => {});
  const content = loadContentState(config, log);
  const service = await openSearch(config, content.snapshot, log);
  const store = createPostStore(running.db, running.audit, createNotifications(running.db));
  await syncPublishedPosts(service, store);
  let stale = false;

  const app = new OpenAPIHono({ strict: true });
  app.onError(errorHandler(log));
  app.notFound(notFoundHandler);
  app.use('*', async (_c, next) => {
    if (stale) {
      stale = false;
      await syncPublishedPosts(service, store);
    }
    await next();
  });
  registerSearchRoutes(app, { content: () => content, search: () => service });
  const searchListener = getRequestListener(app.fetch);

  const server: http.Server = running.server;
  const previous = server.listeners('request') as ((req: http.IncomingMessage, res: http.ServerResponse) => void)[];
  server.removeAllListeners('request');
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = req.url ?? '/';
    if (req.method === 'GET' && SEARCH_PATH.test(url)) {
      void searchListener(req, res);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD' && url.startsWith('/api/posts')) res.on('finish', () => (stale = true));
    for (const l of previous) l(req, res);
  };
  server.on('request', listener);
  return {
    search: () => service,
    detach() {
      server.removeListener('request', listener);
      for (const l of previous) server.on('request', l);
    },
  };
}
