// The approval page for people, /device: type or check the code, sign in if needed, then Approve or Deny
// with a plain same-origin form post (no script; the browser's Origin header satisfies the CSRF check of
// api/auth/middleware.ts). Server-rendered HTML; everything the device reported is escaped.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ApiError } from '../errors/index.ts';
import { principal } from '../auth/middleware.ts';
import type { Principal } from '../../src/lib/data/identity/index.ts';
import { ownCaller, type CodeAccess } from './access.ts';
import { keyLifetime } from './flow.ts';
import type { DeviceRequest } from '../../src/lib/data/device/store.ts';
import { formatUserCode, USER_CODE_MAX_INPUT } from './user-code.ts';
import { grantableScope, parseScope } from '../oauth/check_scope.ts';
import { documentHtml } from '../../src/web/layout.ts';
import { raw } from '../../src/web/html.ts';

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  // No framing (clickjacking an Approve button), no scripts, forms only to ourselves.
  'Content-Security-Policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: under it browsers send `Origin: null` on form posts, which the CSRF check refuses.
  'Referrer-Policy': 'same-origin',
};

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

// The site's look (src/web/layout.ts): its stylesheet and header, as a utility page (noindex, no card).
function layout(siteName: string, title: string, body: string): string {
  return documentHtml({ title, description: 'Approve or deny a device that asks to act as you, by the code it shows.', path: '/device', utility: true }, { siteName, baseUrl: '' }, raw(`<h1>${escapeHtml(title)}</h1>\n${body}`));
}

function codeForm(value = ''): string {
  return `<form method="get" action="/device">
<p><label for="user_code">Code shown on your device</label><br>
<input id="user_code" name="user_code" value="${escapeHtml(value)}" maxlength="${USER_CODE_MAX_INPUT}" autocomplete="off" autocapitalize="characters" spellcheck="false" required></p>
<p><button type="submit">Continue</button></p>
</form>`;
}

const duration = (seconds: number) => (seconds % 86_400 === 0 ? `${seconds / 86_400} days` : seconds % 3600 === 0 ? `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}` : `${seconds} seconds`);

function requestDetails(row: DeviceRequest): string {
  return `<p>Check that your device shows this code:</p>
<p class="code"><span aria-hidden="true">${escapeHtml(formatUserCode(row.user_code))}</span><span class="visually-hidden">Code ${escapeHtml(formatUserCode(row.user_code).split('').join(' '))}</span></p>
<dl class="facts">
<dt>Program</dt><dd>${escapeHtml(row.client_name)}</dd>
<dt>Machine</dt><dd>${escapeHtml(row.client_host)}</dd>
<dt>Expires</dt><dd><time datetime="${escapeHtml(row.expires_at)}">${escapeHtml(row.expires_at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time></dd>
</dl>
<p><small>The program and machine names are what the device reported about itself.</small></p>`;
}

function approvalForm(row: DeviceRequest, p: Principal): string {
  const code = formatUserCode(row.user_code);
  const powers = p.user.role === 'user' ? '' : ` It carries your <strong>${p.user.role}</strong> powers.`;
  const email = row.sandbox ? '' : ' The device also learns your e-mail address, to label its credential file.';
  const who = `<strong>${escapeHtml(p.user.display_name)}</strong>
(@${escapeHtml(p.user.handle)})`;
  const grant = row.oauth_scope
    ? (() => {
        const { granted, withheld } = grantableScope(parseScope(row.oauth_scope), p.user.role);
        const can = granted.includes('write') ? 'read and write (comment, react, post, flag, edit your notes)' : 'read';
        return `Approving lets this device ${can} as you, ${who}, through this site's API, its MCP server and chat (scope <code>${escapeHtml(granted.join(' '))}</code>${withheld.length ? `; not ${escapeHtml(withheld.join(', '))}, which you do not hold` : ''}), for up to 30 days unless you disconnect it under connected apps in your account.${email}`;
      })()
    : `Approving gives this device an API key that acts as you, ${who}, for ${duration(keyLifetime(row))}.${powers}${email} You can revoke it any time under API keys in your account.`;
  return `${requestDetails(row)}
<p class="note">${grant}
Approve only if you started this sign-in yourself.</p>
<form method="post" action="/device">
<input type="hidden" name="user_code" value="${escapeHtml(code)}">
<div class="actions">
<button type="submit" name="action" value="approve">Approve</button>
<button type="submit" name="action" value="deny">Deny</button>
</div>
</form>`;
}

export function signInUrl(userCode: string): string {
  return `/api/auth/idp/login?next=${encodeURIComponent(`/device?user_code=${userCode}`)}&next_user_code=${encodeURIComponent(userCode)}`;
}

/**
 * For a signed-in person who followed a link from another site while this address is over its limit of
 * unknown codes: the same page again from this one, where only the person's own attempts count. Nothing is
 * said about the code, which was not looked up.
 */
function continueForm(typed: string): string {
  return `<p>Continue with the code <strong>${escapeHtml(typed)}</strong> if it is the one your device shows.</p>
<form method="get" action="/device">
<input type="hidden" name="user_code" value="${escapeHtml(typed)}">
<p><button type="submit">Continue</button></p>
</form>`;
}

function signInPrompt(row: DeviceRequest): string {
  const code = formatUserCode(row.user_code);
  return `${requestDetails(row)}
<p>Sign in to approve or deny this request.</p>
<p><a href="${escapeHtml(signInUrl(code))}">Sign in to continue</a></p>`;
}

export function registerDevicePage(app: OpenAPIHono, codes: CodeAccess, opts: { siteName: string }) {
  const page = (c: Context, status: 200 | 401 | 404 | 410 | 422 | 429, title: string, body: string, extra: Record<string, string> = {}) =>
    c.body(layout(opts.siteName, title, body), status, { ...PAGE_HEADERS, ...extra });
  // A person gets the same 404/410/429 as the API, as a page with the code form to try again.
  const problem = (c: Context, err: unknown, typed: string) => {
    if (!(err instanceof ApiError) || ![404, 410, 429].includes(err.status)) throw err;
    const title = err.status === 429 ? 'Too many attempts' : err.status === 410 ? 'Request no longer open' : 'Unknown code';
    // Signed out, the limit is this address's; signed in, it is the person's own.
    const next = err.status !== 429 ? codeForm(typed) : session(c) ? '' : `<p><a href="${escapeHtml(signInUrl(typed))}">Sign in</a> to look the code up as yourself.</p>`;
    return page(c, err.status as 404 | 410 | 429, title, `<p role="alert">${escapeHtml(err.message)}</p>\n${next}`, err.headers);
  };
  const session = (c: Context) => {
    const p = principal(c);
    return p?.via === 'session' ? p : null;
  };

  app.openAPIRegistry.registerPath(
    createRoute({
      method: 'get',
      path: '/device',
      tags: ['device'],
      summary: 'Approval page for people (HTML): enter or check the code, sign in, approve or deny',
      request: { query: z.object({ user_code: z.string().max(USER_CODE_MAX_INPUT).optional() }) },
      responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: z.string() } } } },
    }),
  );
  app.get('/device', async (c) => {
    const typed = c.req.query('user_code')?.trim() ?? '';
    if (!typed) return page(c, 200, 'Sign in a device', `<p>Enter the code your device or agent shows you.</p>\n${codeForm()}`);
    if (typed.length > USER_CODE_MAX_INPUT) return page(c, 422, 'Unknown code', `<p role="alert">A code has at most ${USER_CODE_MAX_INPUT} characters.</p>\n${codeForm(typed.slice(0, USER_CODE_MAX_INPUT))}`);
    let row: DeviceRequest;
    try {
      row = await codes.find(c, typed);
    } catch (err) {
      // Over the limit of what reads from this address may try, but the person is signed in and came by a
      // link or a script from another site (which could have spent that limit): one click goes on from here.
      if (err instanceof ApiError && err.status === 429 && session(c) && !ownCaller(c)) return page(c, 200, 'Sign in a device', continueForm(typed));
      return problem(c, err, typed);
    }
    const p = session(c);
    if (!p) return page(c, 200, 'Sign in a device', signInPrompt(row));
    return page(c, 200, 'Approve this device?', approvalForm(row, p));
  });

  app.openAPIRegistry.registerPath(
    createRoute({
      method: 'post',
      path: '/device',
      tags: ['device'],
      summary: 'The approval page\'s form post (HTML; browser session and same-origin Origin header)',
      request: {
        body: {
          content: { 'application/x-www-form-urlencoded': { schema: z.object({ user_code: z.string().max(USER_CODE_MAX_INPUT), action: z.enum(['approve', 'deny']) }) } },
        },
      },
      responses: { 200: { description: 'Outcome page', content: { 'text/html': { schema: z.string() } } } },
    }),
  );
  app.post('/device', async (c) => {
    const form = await c.req.parseBody();
    const typed = typeof form.user_code === 'string' ? form.user_code.trim() : '';
    const action = form.action;
    if (!typed || typed.length > USER_CODE_MAX_INPUT || (action !== 'approve' && action !== 'deny')) {
      return page(c, 422, 'Something is missing', `<p role="alert">Choose Approve or Deny for a code of at most ${USER_CODE_MAX_INPUT} characters.</p>\n${codeForm(typed.slice(0, USER_CODE_MAX_INPUT))}`);
    }
    const p = session(c);
    if (!p) {
      return page(c, 401, 'Sign in first', `<p>Sign in to approve or deny this request.</p>\n<p><a href="${escapeHtml(signInUrl(typed))}">Sign in to continue</a></p>`);
    }
    let row: DeviceRequest;
    try {
      row = await codes.decide(c, typed, p.user.id, action === 'approve');
    } catch (err) {
      return problem(c, err, typed);
    }
    return row.status === 'approved'
      ? page(c, 200, 'Device approved', `<p role="status">You approved <strong>${escapeHtml(row.client_name)}</strong> on <strong>${escapeHtml(row.client_host)}</strong>. It is now finishing its sign-in; you can close this page.</p>`)
      : page(c, 200, 'Request denied', `<p role="status">You denied the request from <strong>${escapeHtml(row.client_name)}</strong> on <strong>${escapeHtml(row.client_host)}</strong>. It gets no access.</p>`);
  });
}
