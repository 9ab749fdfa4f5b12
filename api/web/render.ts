// How the server's own pages are answered: the shared chrome of src/web/layout.ts, the signed-in person
// in the header, and headers for pages that show personal data: never cached, never framed, scripts and
// styles only from this origin.
import type { Context } from 'hono';
import type { Config } from '../../src/lib/config.ts';
import { documentHtml, type NavKey, type PageMeta, type SiteChrome } from '../../src/web/layout.ts';
import { html, type SafeHtml } from '../../src/web/html.ts';
import { principal } from '../auth/middleware.ts';
import type { Principal } from '../../src/lib/data/identity/index.ts';

export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': PAGE_CSP,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: under it browsers send `Origin: null` on form posts, which the CSRF check refuses.
  'Referrer-Policy': 'same-origin',
};

/** The person behind a browser session; pages are for people, so API keys and OAuth tokens do not count. */
export function sessionUser(c: Context): Principal | null {
  const p = principal(c);
  return p?.via === 'session' ? p : null;
}

export interface PageOptions {
  status?: 200 | 400 | 401 | 403 | 404 | 409 | 422 | 429 | 500 | 502 | 503;
  section?: NavKey;
  /** Unread notifications for the header badge. */
  unread?: number;
  headers?: Record<string, string>;
}

export function pageResponse(c: Context, config: Pick<Config, 'siteName' | 'baseUrl'>, meta: PageMeta, body: SafeHtml, opts: PageOptions = {}): Response {
  const p = sessionUser(c);
  const site: SiteChrome = {
    siteName: config.siteName,
    baseUrl: config.baseUrl,
    section: opts.section,
    user: p ? { handle: p.user.handle, display_name: p.user.display_name, role: p.user.role } : null,
    unread: opts.unread,
  };
  return new Response(documentHtml(meta, site, body), { status: opts.status ?? 200, headers: { ...PAGE_HEADERS, ...opts.headers } });
}

/** Where a person without a session goes: the sign-in, and back to this very page afterwards. */
export function signInRedirect(c: Context): Response {
  const url = new URL(c.req.url);
  const next = `${url.pathname}${url.search}`;
  return new Response(null, { status: 302, headers: { Location: `/api/auth/idp/login?${new URLSearchParams({ next })}`, 'Cache-Control': 'no-store' } });
}

/** After a form post: back to a page with GET (post/redirect/get), so reloading does not post again. */
export function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' } });
}

/**
 * A form field's text. Browsers send a textarea's line breaks as CRLF; what is stored (Markdown essays,
 * bios, notes) uses LF like every other text of the service.
 */
export function formText(v: unknown): string {
  return typeof v === 'string' ? v.replace(/\r\n?/g, '\n') : '';
}

/** A short message at the top of a page: a success (status) or a problem (alert). */
export function flash(kind: 'ok' | 'error', text: string | undefined | null): SafeHtml {
  if (!text) return html``;
  return kind === 'ok' ? html`<p role="status">${text}</p>` : html`<p role="alert">${text}</p>`;
}
