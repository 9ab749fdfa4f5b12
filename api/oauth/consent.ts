// The consent step: the page that shows a signed-in person which app asks for what, and the CSRF token
// that binds its form to that person's session and to the exact request shown. The token is an HMAC
// (key in DATA_DIR/keys) over the session, the user and every authorization parameter, with an expiry,
// so the form cannot be replayed from another session, altered, or kept for later.
import fs from 'node:fs';
import path from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import type { Principal } from '../../src/lib/data/identity/index.ts';
import { constantTimeEqual } from '../../src/lib/data/secrets.ts';
import { keysDir } from '../../src/lib/data/keys.ts';
import { AUTHORIZE_PARAMS, type AuthorizeParams, type RedirectTarget } from './authorization_request.ts';
import { POWER_SCOPES, type Scope } from './check_scope.ts';
import type { OAuthContext } from './context.ts';
import { escapeHtml, htmlPage } from './html.ts';

const SCOPE_TEXT: Record<Scope, string> = {
  read: 'Read the knowledge base through its MCP server, and what your account can see (for example your notifications).',
  write: 'Write as you: comments, reactions, posts and proposal flags, published under your name.',
  moderate: 'Use your moderator powers: hide comments and decide on proposals.',
  admin: 'Use your administrator powers over the whole service.',
};
const ROLE_NAME: Record<string, string> = { moderate: 'a moderator', admin: 'an administrator' };

/** The consent HMAC key, created on first use (mode 0600), shared by every process of this DATA_DIR. */
export function loadConsentKey(dataDir: string): Buffer {
  const file = path.join(keysDir(dataDir), 'oauth-consent.key');
  if (fs.existsSync(file)) return fs.readFileSync(file);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, randomBytes(32), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return fs.readFileSync(file);
}

function mac(ctx: OAuthContext, who: Principal, p: AuthorizeParams, expires: number): string {
  const fields = [who.credentialId, who.user.id, ...AUTHORIZE_PARAMS.map((k) => p[k]), String(expires)];
  return createHmac('sha256', ctx.consentKey).update(JSON.stringify(fields)).digest('base64url');
}

export function consentToken(ctx: OAuthContext, who: Principal, p: AuthorizeParams): string {
  const expires = Math.floor(ctx.now().getTime() / 1000) + ctx.lifetimes.consent;
  return `${expires}.${mac(ctx, who, p, expires)}`;
}

export function checkConsentToken(ctx: OAuthContext, who: Principal, p: AuthorizeParams, token: string): boolean {
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return false;
  const expires = Number(m[1]);
  if (expires <= ctx.now().getTime() / 1000) return false;
  return constantTimeEqual(m[2], mac(ctx, who, p, expires));
}

export function consentPage(ctx: OAuthContext, who: Principal, p: AuthorizeParams, target: RedirectTarget, asked: Scope[], granted: Scope[], withheld: Scope[]): Response {
  const client = target.client;
  const name = client.client_name || 'An unnamed app';
  const redirect = new URL(target.redirectUri);
  const powers = asked.filter((s) => POWER_SCOPES.includes(s));
  const hidden = AUTHORIZE_PARAMS.map((k) => `<input type="hidden" name="${k}" value="${escapeHtml(p[k])}">`).join('\n');
  const warnings: string[] = [];
  if (powers.length > 0) {
    warnings.push(
      `<div class="warn"><strong>This app asks for ${powers.map((s) => escapeHtml(s)).join(' and ')} powers.</strong> With them it could act as ${powers
        .map((s) => ROLE_NAME[s])
        .join(' and ')} in your name: hide other people's comments, decide proposals, change the service. Allow it only if you trust this app fully.</div>`,
    );
  }
  if (withheld.length > 0) {
    warnings.push(
      `<div class="warn">You are not ${withheld.map((s) => ROLE_NAME[s]).join(' or ')}, so the app will <strong>not</strong> get ${withheld
        .map((s) => escapeHtml(s))
        .join(' or ')} powers, even if you allow it.</div>`,
    );
  }
  const body = `<h1>${escapeHtml(name)} wants to use your ${escapeHtml(ctx.siteName)} account</h1>
<p>You are signed in as <strong>${escapeHtml(who.user.display_name)}</strong> (@${escapeHtml(who.user.handle)}).</p>
<p class="note">The app's name is what it says about itself; it is not verified. After your answer you go back to
<code>${escapeHtml(redirect.origin)}</code>. App id: <code>${escapeHtml(client.client_id)}</code>.</p>
<p>If you allow it, the app may:</p>
<ul>
${granted.map((s) => `<li><strong>${s}</strong>: ${escapeHtml(SCOPE_TEXT[s])}</li>`).join('\n')}
</ul>
${warnings.join('\n')}
<form method="post" action="/api/oauth/v2/authorize">
${hidden}
<input type="hidden" name="csrf" value="${escapeHtml(consentToken(ctx, who, p))}">
<div class="actions"><button class="primary" type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form>
<p class="note">Access lasts an hour at a time and renews until you revoke it under your account's connected apps.
Tokens work only for ${escapeHtml(ctx.resource)} and this site's API.</p>`;
  return htmlPage(200, `Allow ${name}?`, body, [redirect.origin], ctx.siteName);
}
