// /account: the profile, where the person is signed in (each browser session, signed out one by one or
// everywhere), API keys (the secret shown once, with a copy button), connected OAuth apps with
// revoke, and the personal-knowledge connection (?pk=connected / ?pk=error after its callback). Every
// action is a plain form post to this server, which calls the API and answers with the page again (or,
// for connecting the note store, sends the browser on to the host).
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { html, raw, type SafeHtml } from '../../src/web/html.ts';
import { formatTime } from '../../src/web/format.ts';
import { problem, type CallApi } from './call.ts';
import { PAGE_CSP, flash, formText, pageResponse, seeOther, sessionUser, signInRedirect } from './render.ts';
import { signedOut } from './session.ts';
import { fieldAttrs, fieldNote, formProblem, problemSummary, type FormFields, type FormProblem } from './form-errors.ts';
import type { WebDeps } from './deps.ts';

interface Profile {
  display_name: string;
  handle: string;
  bio: string;
  role: string;
  email: string;
  created_at: string;
}
interface ApiKey {
  id: string;
  name: string;
  hint: string;
  source: 'account' | 'device';
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}
interface Session {
  id: string;
  device: string;
  created_at: string;
  last_seen_at: string;
  current: boolean;
}
interface OAuthClient {
  client_id: string;
  client_name: string;
  client_uri: string | null;
  scopes: string[];
  authorized_at: string;
  last_used_at: string | null;
}

/** The profile form as typed. */
interface ProfileValues {
  display_name: string;
  handle: string;
  bio: string;
}
/** The new-key form as typed. */
interface KeyValues {
  name: string;
  expires_in_days: string;
}
const PROFILE_FIELDS: FormFields = {
  display_name: { id: 'display_name', name: 'your name' },
  handle: { id: 'handle', name: 'the handle', rule: 'lower-case letters, digits and _, 3 to 30 characters' },
  bio: { id: 'bio', name: 'the text about you' },
};
const KEY_FIELDS: FormFields = { name: { id: 'key-name', name: 'the name of the key' }, expires_in_days: { id: 'key-expiry', name: 'the expiry' } };

/** What the account page shows besides the stored account: a new key, or a refused form with what was typed. */
interface AccountExtra {
  newKey?: ApiKey & { key: string };
  /** A refusal of a form without fields (a session, an app, the note store). */
  error?: string;
  profile?: { typed: ProfileValues; problem: FormProblem };
  key?: { typed: KeyValues; problem: FormProblem };
  status?: 200 | 400 | 409 | 422 | 429 | 502;
}

const DONE: Record<string, string> = {
  profile: 'Your profile is saved.',
  'session-ended': 'That session is signed out.',
  'key-revoked': 'The API key is revoked; it stops working at once.',
  'app-revoked': "The app's access is revoked.",
  'pk-disconnected': 'Your personal knowledge store is disconnected.',
};

/** The authorize URL in the answer of GET /api/auth/vcs/begin, whatever the field is called. */
function beginUrl(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  for (const k of ['authorize_url', 'authorization_url', 'url', 'redirect_url', 'redirect_to', 'location']) {
    if (typeof b[k] === 'string' && /^https?:\/\//.test(b[k] as string)) return b[k] as string;
  }
  return null;
}

export function registerAccountPages(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  // The connect form's answer redirects to the git host's authorize URL, and browsers hold the redirects
  // of a form post to the page's form-action too: the page names the configured host's origin there.
  const host = deps.config.vcs.host;
  const csp = host ? PAGE_CSP.replace("form-action 'self'", `form-action 'self' ${new URL(host.authorizeUrl).origin}`) : PAGE_CSP;
  async function render(c: Context, extra: AccountExtra = {}) {
    const [me, sessions, keys, clients, pk, unread] = await Promise.all([
      callApi(c, 'GET', '/api/account/me'),
      callApi(c, 'GET', '/api/account/sessions'),
      callApi(c, 'GET', '/api/account/api-keys'),
      callApi(c, 'GET', '/api/account/oauth-clients'),
      callApi(c, 'GET', '/api/me/personal-knowledge'),
      callApi(c, 'GET', '/api/notifications/unread'),
    ]);
    if (me.status === 401) return signInRedirect(c);
    const q = new URL(c.req.url).searchParams;
    const notices = html`${flash('ok', DONE[q.get('done') ?? ''])}${q.get('pk') === 'connected' ? flash('ok', 'Your personal knowledge store is connected.') : ''}${
      q.get('pk') === 'error' ? flash('error', 'Connecting your personal knowledge store failed. Nothing was changed; try again.') : ''
    }${flash('error', extra.error)}${problemSummary('Your profile was not saved.', extra.profile?.problem, PROFILE_FIELDS)}${problemSummary('The key was not created.', extra.key?.problem, KEY_FIELDS)}`;
    const body = html`<h1>Your account</h1>
${notices}
${postsSection()}
${profileSection(me.body as Profile, extra.profile)}
${sessionsSection(sessions.ok ? (sessions.body as Session[]) : [], deps.config.sessionIdleHours)}
${keysSection(keys.ok ? (keys.body as ApiKey[]) : [], extra.newKey, extra.key)}
${appsSection(clients.ok ? (clients.body as OAuthClient[]) : [])}
${personalKnowledgeSection(pk.status, pk.body)}`;
    return pageResponse(c, deps.config, { title: 'Your account', description: 'Your account: profile, sessions, API keys, connected apps and personal knowledge.', path: '/account', utility: true, scripts: ['/assets/account.js'] }, body, {
      section: 'account',
      status: extra.status,
      unread: unread.ok ? (unread.body as { unread: number }).unread : undefined,
      headers: { 'Content-Security-Policy': csp },
    });
  }

  app.get('/account', (c) => (sessionUser(c) ? render(c) : signInRedirect(c)));

  app.post('/account/profile', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const form = await c.req.parseBody();
    const typed: ProfileValues = { display_name: formText(form.display_name), handle: formText(form.handle), bio: formText(form.bio) };
    const r = await callApi(c, 'PATCH', '/api/account/me', { json: { display_name: typed.display_name, handle: typed.handle.trim().replace(/^@/, ''), bio: typed.bio } });
    if (r.ok) return seeOther('/account?done=profile');
    // A 409 is a handle someone else has.
    return render(c, { profile: { typed, problem: formProblem(r, PROFILE_FIELDS, { 409: 'handle' }) }, status: r.status === 409 ? 409 : 422 });
  });

  app.post('/account/api-keys', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const form = await c.req.parseBody();
    const typed: KeyValues = { name: formText(form.name), expires_in_days: formText(form.expires_in_days) };
    const days = typed.expires_in_days !== '' ? Number(typed.expires_in_days) : undefined;
    const r = await callApi(c, 'POST', '/api/account/api-keys', { json: { name: typed.name, ...(days ? { expires_in_days: days } : {}) } });
    // The secret is in this one answer: the page shows it now and never again (no redirect, no cache).
    if (r.status === 201) return render(c, { newKey: r.body as ApiKey & { key: string } });
    return render(c, { key: { typed, problem: formProblem(r, KEY_FIELDS) }, status: r.status === 429 ? 429 : 422 });
  });

  app.post('/account/sessions/:id/end', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const r = await callApi(c, 'DELETE', `/api/account/sessions/${encodeURIComponent(c.req.param('id'))}`);
    if (r.ok) return seeOther('/account?done=session-ended#sessions');
    return render(c, { error: problem(r), status: 400 });
  });

  // Every session of the person ends, this one too, and this browser's session at the identity provider.
  app.post('/account/sessions/end-all', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    return signedOut(c, deps, await callApi(c, 'POST', '/api/auth/logout?everywhere=true'));
  });

  app.post('/account/api-keys/:id/revoke', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const r = await callApi(c, 'DELETE', `/api/account/api-keys/${encodeURIComponent(c.req.param('id'))}`);
    if (r.ok) return seeOther('/account?done=key-revoked#keys');
    return render(c, { error: problem(r), status: 400 });
  });

  app.post('/account/oauth-clients/:id/revoke', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const r = await callApi(c, 'DELETE', `/api/account/oauth-clients/${encodeURIComponent(c.req.param('id'))}`);
    if (r.ok) return seeOther('/account?done=app-revoked#apps');
    return render(c, { error: problem(r), status: 400 });
  });

  // Connecting is a form post, never a GET: a link or a navigation from another site carries the SameSite=Lax
  // session too, and a host that remembers an earlier consent (or the embedded store) would connect the
  // note store without the person's click. The post passes the Origin rule of every cookie write. A GET
  // (an old bookmark) shows the account page with the button.
  app.get('/account/personal-knowledge/connect', (c) => (sessionUser(c) ? render(c) : signInRedirect(c)));

  app.post('/account/personal-knowledge/connect', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const r = await callApi(c, 'GET', '/api/auth/vcs/begin');
    const to = r.ok ? beginUrl(r.body) : null;
    if (to) return new Response(null, { status: 303, headers: { Location: to, 'Cache-Control': 'no-store' } });
    return render(c, { error: r.status === 404 ? 'Personal knowledge is not available on this server.' : `Connecting failed. ${problem(r)}`, status: 502 });
  });

  app.post('/account/personal-knowledge/disconnect', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const r = await callApi(c, 'DELETE', '/api/me/personal-knowledge');
    if (r.ok) return seeOther('/account?done=pk-disconnected#personal-knowledge');
    return render(c, { error: problem(r), status: 400 });
  });
}

/** Where a person finds their posts: writing one, the drafts, what is submitted and published. */
function postsSection(): SafeHtml {
  return html`<section id="posts" aria-labelledby="posts-title">
<h2 id="posts-title">Your posts</h2>
<p>Write a post with an essay, edit your drafts and submit them for publication.</p>
<p><a class="button primary" href="/posts/me">Your posts</a> <a class="button" href="/posts/me#new-post">Write a new post</a></p>
</section>`;
}

function profileSection(me: Profile, refused?: { typed: ProfileValues; problem: FormProblem }): SafeHtml {
  const v = refused?.typed ?? me;
  const p = refused?.problem;
  const f = PROFILE_FIELDS;
  return html`<section aria-labelledby="profile-title">
<h2 id="profile-title">Profile</h2>
<dl class="facts"><dt>E-mail</dt><dd>${me.email}</dd><dt>Role</dt><dd>${me.role}</dd><dt>Member since</dt><dd>${formatTime(me.created_at)}</dd></dl>
<form method="post" action="/account/profile">
<label for="display_name">Name</label>
<input id="display_name" name="display_name" value="${v.display_name}" required maxlength="100" autocomplete="name"${fieldAttrs(f.display_name, p, 'display_name')}>
${fieldNote(f.display_name, p, 'display_name')}<label for="handle">Handle</label>
<input id="handle" name="handle" value="${v.handle}" required pattern="[a-z0-9_]{3,30}"${fieldAttrs(f.handle, p, 'handle', 'handle-help')}>
${fieldNote(f.handle, p, 'handle')}<p id="handle-help" class="muted">Lower-case letters, digits and _, 3 to 30 characters. People mention you as @${me.handle}.</p>
<label for="bio">About you</label>
<textarea id="bio" name="bio" maxlength="1000"${fieldAttrs(f.bio, p, 'bio')}>${v.bio}</textarea>
${fieldNote(f.bio, p, 'bio')}
<div class="actions"><button type="submit" class="primary">Save profile</button></div>
</form>
</section>`;
}

function sessionsSection(sessions: Session[], idleHours: number): SafeHtml {
  const idle = idleHours % 24 === 0 ? `${idleHours / 24} day${idleHours === 24 ? '' : 's'}` : `${idleHours} hour${idleHours === 1 ? '' : 's'}`;
  // This browser first, then the others as the API lists them (the most recently used first).
  const ordered = [...sessions.filter((s) => s.current), ...sessions.filter((s) => !s.current)];
  const rows = ordered.map(
    (s) => html`<tr${s.current ? html` aria-current="true"` : ''}><td>${s.device}${s.current ? html` <strong>(this browser)</strong>` : ''}</td><td>${formatTime(s.created_at)}</td><td>${formatTime(s.last_seen_at)}</td>
<td><form method="post" action="${s.current ? '/signout' : `/account/sessions/${encodeURIComponent(s.id)}/end`}"><button type="submit" class="danger">Sign out<span class="visually-hidden"> ${s.current ? 'this browser' : `${s.device}, last seen ${formatTime(s.last_seen_at)}`}</span></button></form></td></tr>
`,
  );
  return html`<section id="sessions" aria-labelledby="sessions-title">
<h2 id="sessions-title">Where you are signed in</h2>
<p>Each browser you signed in with. Sign out any you do not recognise or no longer use; a session unused for ${idle} ends by itself.</p>
<table class="data"><caption class="visually-hidden">Your sessions</caption>
<thead><tr><th scope="col">Device</th><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col"><span class="visually-hidden">Sign out</span></th></tr></thead>
<tbody>
${rows}</tbody></table>
<form method="post" action="/account/sessions/end-all"><button type="submit" class="danger">Sign out everywhere</button></form>
</section>`;
}

function keysSection(keys: ApiKey[], created?: ApiKey & { key: string }, refused?: { typed: KeyValues; problem: FormProblem }): SafeHtml {
  const p = refused?.problem;
  const expiry = refused?.typed.expires_in_days ?? '90';
  const sel = (v: string) => (v === expiry ? raw(' selected') : '');
  const rows = keys.map(
    (k) => html`<tr><td>${k.name}</td><td><code>${k.hint}</code></td><td>${k.source === 'device' ? 'device sign-in' : 'you'}</td><td>${formatTime(k.created_at)}</td><td>${formatTime(k.last_used_at)}</td><td>${k.expires_at ? formatTime(k.expires_at) : 'never'}</td>
<td><form method="post" action="/account/api-keys/${encodeURIComponent(k.id)}/revoke"><button type="submit" class="danger">Revoke<span class="visually-hidden"> the key ${k.name}</span></button></form></td></tr>
`,
  );
  return html`<section id="keys" aria-labelledby="keys-title">
<h2 id="keys-title">API keys</h2>
<p>A key lets a script or an agent act as you through the API: send it as <code>Authorization: Bearer &lt;key&gt;</code>. Keys from a device sign-in appear here too.</p>
${created
  ? html`<div class="panel" id="new-key-panel">
<h3>Your new key “${created.name}”</h3>
<p><strong>Copy it now. It is shown only this once</strong>; the service keeps only a fingerprint of it.</p>
<div class="secret"><label class="visually-hidden" for="new-key">The new API key</label><input id="new-key" readonly value="${created.key}" spellcheck="false" autocomplete="off">
<button type="button" data-copy="new-key">Copy</button></div>
<p class="copy-status" role="status"></p>
</div>`
  : ''}
${keys.length
  ? html`<table class="data"><caption class="visually-hidden">Your API keys</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Made by</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Revoke</span></th></tr></thead>
<tbody>
${rows}</tbody></table>`
  : html`<p>You have no API keys.</p>`}
<h3>Create a key</h3>
<form method="post" action="/account/api-keys">
<label for="key-name">Name</label>
<input id="key-name" name="name" required maxlength="100" value="${refused?.typed.name ?? ''}"${fieldAttrs(KEY_FIELDS.name, p, 'name', 'key-name-help')}>
${fieldNote(KEY_FIELDS.name, p, 'name')}<p id="key-name-help" class="muted">Say where you will use it, e.g. “laptop agent”.</p>
<label for="key-expiry">Expires</label>
<select id="key-expiry" name="expires_in_days"${fieldAttrs(KEY_FIELDS.expires_in_days, p, 'expires_in_days')}><option value="30"${sel('30')}>in 30 days</option><option value="90"${sel('90')}>in 90 days</option><option value="365"${sel('365')}>in a year</option><option value=""${sel('')}>never</option></select>
${fieldNote(KEY_FIELDS.expires_in_days, p, 'expires_in_days')}
<div class="actions"><button type="submit" class="primary">Create key</button></div>
</form>
</section>`;
}

function appsSection(apps: OAuthClient[]): SafeHtml {
  return html`<section id="apps" aria-labelledby="apps-title">
<h2 id="apps-title">Connected apps</h2>
${apps.length
  ? html`<p>Apps you allowed to use your account through OAuth. Revoking ends their access at once.</p>
<ul class="list">
${apps.map(
  (a) => html`<li><h3>${a.client_name}</h3>
<p class="meta"><span>may ${a.scopes.join(', ')}</span><span>allowed ${formatTime(a.authorized_at)}</span><span>last used ${formatTime(a.last_used_at)}</span></p>
<form method="post" action="/account/oauth-clients/${encodeURIComponent(a.client_id)}/revoke"><button type="submit" class="danger">Revoke<span class="visually-hidden"> ${a.client_name}</span></button></form></li>
`,
)}</ul>`
  : html`<p>No app has access to your account.</p>`}
</section>`;
}

/** The status object's own words where it has them; the field names of the personal-knowledge API vary. */
function personalKnowledgeSection(status: number, body: unknown): SafeHtml {
  const head = html`<h2 id="pk-title">Personal knowledge</h2>`;
  if (status === 404 || status === 0) {
    return html`<section id="personal-knowledge" aria-labelledby="pk-title">${head}<p>Connecting a personal note store is not available on this server.</p></section>`;
  }
  const s = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const connected = s.connected === true || s.status === 'connected';
  const facts = Object.entries(s).filter(([k, v]) => (typeof v === 'string' || typeof v === 'number') && !/token|secret|key|password/i.test(k) && k !== 'status');
  return html`<section id="personal-knowledge" aria-labelledby="pk-title">${head}
<p>Keep your own notes in a store you control (a git repository); agents can read and write them for you.</p>
${connected
  ? html`<p><strong>Connected.</strong></p>
${facts.length ? html`<dl class="facts">${facts.map(([k, v]) => html`<dt>${k.replace(/_/g, ' ')}</dt><dd>${String(v)}</dd>`)}</dl>` : ''}
<form method="post" action="/account/personal-knowledge/disconnect"><button type="submit" class="danger">Disconnect</button></form>`
  : html`<p>Not connected.</p>
<form method="post" action="/account/personal-knowledge/connect"><button type="submit" class="primary">Connect a note store</button></form>`}
</section>`;
}

