// The embedded provider's pages: the e-mail sign-in form and an error page. Plain, accessible HTML.
const esc = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
  body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#14212b}
  h1{font-size:1.4rem} label{display:block;margin:1rem 0 .25rem;font-weight:600}
  input{width:100%;padding:.5rem;font:inherit;border:1px solid #5c6f7d;border-radius:4px;box-sizing:border-box}
  button{margin-top:1.25rem;padding:.6rem 1.2rem;font:inherit;border:0;border-radius:4px;background:#0f4c75;color:#fff;cursor:pointer}
  button.secondary{background:#e8edf1;color:#14212b;margin-left:.5rem}
  .note{background:#fff4d6;border-left:4px solid #b7791f;padding:.5rem .75rem;font-size:.9rem}
  .error{color:#a11;font-weight:600}
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function loginPage(uid: string, error?: string, values: { email?: string; name?: string } = {}): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p class="note">Development sign-in: no password is asked. Use it on your own machine only.</p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/idp/interaction/${esc(uid)}/login">
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="email" required value="${esc(values.email ?? '')}">
  <label for="name">Name <span>(optional)</span></label>
  <input id="name" name="name" type="text" autocomplete="name" maxlength="100" value="${esc(values.name ?? '')}">
  <button type="submit">Sign in</button>
</form>
<form method="post" action="/idp/interaction/${esc(uid)}/abort">
  <button type="submit" class="secondary">Cancel</button>
</form>`,
  );
}

export function errorPage(message: string): string {
  return page('Sign-in problem', `<h1>Sign-in problem</h1><p>${esc(message)}</p><p><a href="/">Back to the knowledge base</a></p>`);
}

/**
 * The provider's sign-out step (RP-initiated logout from /signout): `form` is oidc-provider's form with its
 * CSRF token; `logout=yes` ends the whole provider session, and the page submits it at once. The provider
 * pages carry no Content-Security-Policy, so the inline script runs (as in oidc-provider's own form_post).
 */
export function logoutPage(form: string): string {
  const withChoice = form.replace('</form>', '<input type="hidden" name="logout" value="yes"/></form>');
  return page(
    'Signing out',
    `<h1>Signing out</h1>
<p>Ending the development sign-in for this browser too, so the next sign-in asks for an e-mail again.</p>
${withChoice}
<noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript>
<script>document.getElementById('op.logoutForm').submit()</script>`,
  );
}

export function signedOutPage(): string {
  return page('Signed out', `<h1>Signed out</h1><p>You are signed out of the development sign-in.</p><p><a href="/">Back to the knowledge base</a></p>`);
}
