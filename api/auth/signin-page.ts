// A browser sign-in that does not complete (cancelled at the identity provider, expired, started in
// another browser, the provider unreachable) ends on a page in words with a way to try again, not on the
// JSON error body. Only requests that ask for HTML get the page (a browser's navigation lists text/html);
// API clients keep the documented `{"detail", "hint"}` answers of GET /api/auth/idp/login and /callback.
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from '../errors/index.ts';
import { preferredForm } from '../static/negotiation.ts';
import { html } from '../../src/web/html.ts';
import { pageResponse } from '../web/render.ts';

/** Where each sign-in was going (the flow's `next`), kept for its failure page by the request. */
const destinations = new WeakMap<Request, string>();

/** Records where this sign-in was going, once the callback has read its flow. */
export function rememberNext(c: Context, next: string | null): void {
  if (next) destinations.set(c.req.raw, next);
}

/** A navigation of a browser: Accept names text/html and prefers it to JSON. */
function wantsPage(c: Context): boolean {
  const accept = c.req.header('accept');
  return !!accept && /\btext\/html\b/i.test(accept) && preferredForm(accept) === 'html';
}

/** What went wrong, for a person: the provider's refusal read by its OAuth error code, or the API's words. */
function reason(c: Context, err: ApiError): { title: string; text: string } {
  const code = c.req.query('error');
  if (code === 'access_denied') return { title: 'Sign-in cancelled', text: 'You cancelled the sign-in at the identity provider, so you are not signed in. Nothing was changed.' };
  if (err.status === 429) return { title: 'Too many sign-ins', text: 'Too many sign-ins were started from this address. Wait a minute and try again.' };
  if (err.status === 503) return { title: 'Sign-in is unavailable', text: 'The identity provider cannot be reached right now. Try again in a few minutes.' };
  if (err.status === 403) return { title: 'Sign-in is not available here', text: err.message.endsWith('.') ? err.message : `${err.message}.` };
  const words = err.message.replace(/^Sign-in failed:\s*/, '');
  const sentence = `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
  return { title: 'Sign-in did not complete', text: /[.!?]$/.test(sentence) ? sentence : `${sentence}.` };
}

/**
 * Middleware for /api/auth/idp/*: a sign-in error answered to a browser becomes a page (same status) with
 * the reason in words, a link to sign in again (back to where the person was going) and one home.
 */
export function signInFailurePages(config: { siteName: string; baseUrl: string }): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const err = c.error;
    if (!(err instanceof ApiError) || !wantsPage(c)) return;
    const { title, text } = reason(c, err);
    const goingTo = destinations.get(c.req.raw) ?? c.req.query('next') ?? '/';
    const again = `/api/auth/idp/login?${new URLSearchParams({ next: goingTo })}`;
    const body = html`<h1>${title}</h1>
<p role="alert">${text}</p>
<div class="actions"><a class="button primary" href="${again}">Sign in again</a> <a class="button" href="/">Go to the home page</a></div>`;
    const status = err.status === 403 || err.status === 429 || err.status === 503 ? err.status : 400;
    const page = pageResponse(c, config, { title, description: 'The sign-in did not complete.', path: c.req.path, utility: true }, body, { status, headers: err.headers });
    // Cookies the handler set or cleared (the sign-in flow's) stay.
    for (const cookie of c.res.headers.getSetCookie()) page.headers.append('Set-Cookie', cookie);
    c.res = undefined;
    c.res = page;
  };
}
