// POST /signout: the header's sign-out button. Ends the session through the API, passes its cookie
// deletion on to the browser, and sends the browser on to the identity provider's sign-out (OpenID Connect
// RP-Initiated Logout), so the provider does not sign the person straight back in. The account page's
// "Sign out everywhere" ends the same way (signedOut).
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { html } from '../../src/web/html.ts';
import type { ApiAnswer, CallApi } from './call.ts';
import { pageResponse } from './render.ts';
import type { WebDeps } from './deps.ts';

export function registerSessionPages(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  app.post('/signout', async (c) => signedOut(c, deps, await callApi(c, 'POST', '/api/auth/logout')));
}

/**
 * The answer to a sign-out the API has done (`r`, from POST /api/auth/logout): its Set-Cookie, and the
 * provider's end-session URL next. A provider on this origin (the embedded one) is a redirect; one on another
 * origin is a page that moves on by itself, because the pages' form-action 'self' also holds the redirects
 * of a form post, and a browser would stop a redirect to another origin there.
 */
export function signedOut(c: Context, deps: WebDeps, r: ApiAnswer): Response {
  const to = typeof r.body?.end_session_url === 'string' && /^https?:\/\//.test(r.body.end_session_url) ? (r.body.end_session_url as string) : null;
  const cookies = r.headers.getSetCookie();
  let res: Response;
  if (!to || new URL(to).origin === new URL(deps.config.baseUrl).origin) {
    res = new Response(null, { status: 303, headers: { Location: to ?? '/', 'Cache-Control': 'no-store' } });
  } else {
    const body = html`<h1>Signed out</h1>
<meta http-equiv="refresh" content="0;url=${to}">
<p>You are signed out here. <a href="${to}">Continue to your identity provider</a> to sign out there too.</p>`;
    c.set('principal' as never, null as never); // the header shows no one signed in: no one is now
    res = pageResponse(c, deps.config, { title: 'Signed out', description: 'Signed out.', path: '/signout', utility: true }, body);
  }
  for (const cookie of cookies) res.headers.append('Set-Cookie', cookie);
  return res;
}
