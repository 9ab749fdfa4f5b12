// The middleware that refuses NUL characters in a request's path, query and form body (see nul.ts).
import type { Context, MiddlewareHandler } from 'hono';
import { InvalidRequest, oauthErrorResponse } from '../oauth/errors.ts';
import { isOAuthEndpoint } from '../errors/body-size.ts';
import { RequestValidationError } from './error.ts';
import { NUL, nulDetail } from './nul.ts';

const FORM = 'application/x-www-form-urlencoded';

/** The first parameter of a query string or form body whose name or value holds a NUL. */
function nulParameter(encoded: string): { name: string; value: string } | null {
  for (const [name, value] of new URLSearchParams(encoded)) if (name.includes(NUL) || value.includes(NUL)) return { name, value };
  return null;
}

function refuse(c: Context, where: 'query' | 'body', p: { name: string; value: string }): Response {
  if (isOAuthEndpoint(c.req.path)) return oauthErrorResponse(new InvalidRequest(`the parameter ${JSON.stringify(p.name)} contains a NUL character`), new URL(c.req.url).origin);
  throw new RequestValidationError([nulDetail([where, p.name.replaceAll(NUL, '\\u0000')], p.value.replaceAll(NUL, '\\u0000'))]);
}

/**
 * Refuses a NUL in the path (404), the query or an API form body (422). A NUL can only arrive
 * percent-encoded in a URL, so requests whose URL has no "%00" cost one string search (the hot reads pass
 * straight on); a body is read (Hono keeps it for the route) only when it is an API form.
 */
export function nulGuard(): MiddlewareHandler {
  return async (c, next) => {
    const url = c.req.url;
    if (url.includes('%00')) {
      const u = new URL(url);
      let path = u.pathname;
      try {
        path = decodeURIComponent(u.pathname);
      } catch {
        // a malformed escape elsewhere in the path: the routes answer it as they always have
      }
      if (path.includes(NUL)) return c.json({ detail: 'Not found', hint: 'A path never contains a NUL character (%00): check the address.' }, 404);
      const p = nulParameter(u.search);
      if (p) return refuse(c, 'query', p);
    }
    // Form bodies of the API (the OAuth and device endpoints); the website's forms go through the API's JSON
    // routes (api/web/call.ts), which name the field on the page.
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.path.startsWith('/api/') && (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase() === FORM) {
      const body = await c.req.text();
      if (body.includes('%00') || body.includes(NUL)) {
        const p = nulParameter(body);
        if (p) return refuse(c, 'body', p);
      }
    }
    return next();
  };
}
