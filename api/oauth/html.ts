// The authorization server's pages for people: the consent form and the errors that cannot go back to
// the client. Never framed (clickjacking), never cached, no scripts.
import { documentHtml } from '../../src/web/layout.ts';
import { raw } from '../../src/web/html.ts';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * A complete page in the site's look (src/web/layout.ts); `formTargets` are the origins the page's form
 * may post or be redirected to. `siteName` labels the header (error pages raised before the OAuth
 * context is at hand go without).
 */
export function htmlPage(status: 200 | 400 | 403, title: string, body: string, formTargets: string[] = [], siteName = 'Home'): Response {
  const html = documentHtml({ title, description: '', path: '/api/oauth/v2/authorize', utility: true }, { siteName, baseUrl: '' }, raw(`<div class="panel">\n${body}\n</div>`));
  return new Response(html, {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` on the consent form's POST,
      // which the CSRF rule refuses; cross-origin navigations (back to the client) still carry no Referer.
      'Referrer-Policy': 'same-origin',
      // form-action also governs where the form's answer may redirect, so the client's origin is named.
      'Content-Security-Policy': `default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self' ${formTargets.join(' ')}`.trim(),
    },
  });
}

/**
 * The page for an authorization request that cannot continue. `clientOrigin`, when the client and its
 * redirect URI are known, is offered as a plain link: the person decides whether to follow it, and the
 * client learns nothing (RFC 9700 §4.11.2: no automatic redirect before the person has seen the client).
 */
export function errorPage(status: 400 | 403, error: string, description: string, clientOrigin?: string): Response {
  const back = clientOrigin
    ? `\n<p>The app that sent you here is at <a href="${escapeHtml(clientOrigin)}/" rel="noreferrer nofollow">${escapeHtml(clientOrigin)}</a>; you were not sent back to it.</p>`
    : '';
  return htmlPage(
    status,
    'Authorization request refused',
    `<h1>This sign-in request cannot continue</h1>
<p>${escapeHtml(description)}</p>
<p class="note">Error: <code>${escapeHtml(error)}</code>. The app that sent you here may be misconfigured; nothing was shared with it.</p>${back}`,
  );
}
