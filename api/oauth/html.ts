// The authorization server's pages for people: the consent form and the errors that cannot go back to
// the client. Never framed (clickjacking), never cached, no scripts.
const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f5f4;color:#1c1917}
main{max-width:34rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:.75rem;box-shadow:0 1px 3px #0002}
h1{font-size:1.35rem;margin-top:0}code{background:#f5f5f4;padding:0 .25rem;border-radius:.25rem;word-break:break-all}
.warn{background:#fef3c7;border-left:4px solid #d97706;padding:.75rem 1rem;margin:1rem 0}
.note{color:#57534e;font-size:.9rem}ul{padding-left:1.25rem}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}button{font:inherit;padding:.6rem 1.4rem;border-radius:.5rem;border:1px solid #a8a29e;background:#fff;cursor:pointer}
button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff}`;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** A complete page; `formTargets` are the origins the page's form may post or be redirected to. */
export function htmlPage(status: 200 | 400 | 403, title: string, body: string, formTargets: string[] = []): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body></html>
`;
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
      'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self' ${formTargets.join(' ')}`.trim(),
    },
  });
}

export function errorPage(status: 400 | 403, error: string, description: string): Response {
  return htmlPage(
    status,
    'Authorization request refused',
    `<h1>This sign-in request cannot continue</h1>
<p>${escapeHtml(description)}</p>
<p class="note">Error: <code>${escapeHtml(error)}</code>. The app that sent you here may be misconfigured; nothing was shared with it.</p>`,
  );
}
