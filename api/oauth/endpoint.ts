// How the JSON endpoints (register, token, revoke) are installed: documented in /openapi.json like every
// route, but with the RFC error bodies instead of 422 (clients written against RFC 6749/7591 parse those),
// every answer no-store, and any typed protocol error turned into its body here, in one place.
import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { NO_STORE, OAuthError, oauthErrorResponse } from './errors.ts';

export function oauthEndpoint(app: OpenAPIHono, route: RouteConfig, realm: string, handler: (c: Context) => Response | Promise<Response>): void {
  app.openAPIRegistry.registerPath(route);
  app.on(route.method.toUpperCase(), route.path, async (c) => {
    try {
      return await handler(c);
    } catch (err) {
      if (err instanceof OAuthError) return oauthErrorResponse(err, realm);
      throw err;
    }
  });
}

/** A JSON success answer that is never cached. */
export function oauthJson(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...NO_STORE } });
}
