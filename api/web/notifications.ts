// /notifications: your notifications with filters (all, unread, mentions, system), mark read, dismiss and
// mark all read, each a form post through the API.
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { html, raw } from '../../src/web/html.ts';
import { formatTime } from '../../src/web/format.ts';
import { problem, type CallApi } from './call.ts';
import { flash, pageResponse, seeOther, sessionUser, signInRedirect } from './render.ts';
import type { WebDeps } from './deps.ts';

interface Notification {
  id: string;
  kind: string;
  category: string;
  title: string;
  body: string;
  link: string | null;
  created_at: string;
  read: boolean;
}

const FILTERS = [
  { value: 'all', label: 'All' },
  { value: 'unread', label: 'Unread' },
  { value: 'mentions', label: 'Mentions' },
  { value: 'system', label: 'System' },
] as const;
type Filter = (typeof FILTERS)[number]['value'];
const filterOf = (v: unknown): Filter => (FILTERS.some((f) => f.value === v) ? (v as Filter) : 'all');

/**
 * Where a notification points, for people: links stay on this site, and a post's API address becomes
 * its page.
 */
export function pageLink(link: string | null): string | null {
  if (!link || !link.startsWith('/') || link.startsWith('//')) return null;
  return link.replace(/^\/api\/posts\//, '/posts/');
}

export function registerNotificationPages(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  async function render(c: Context, error?: string) {
    const filter = filterOf(c.req.query('filter'));
    const [list, unread] = await Promise.all([callApi(c, 'GET', `/api/notifications?filter=${filter}&limit=100`), callApi(c, 'GET', '/api/notifications/unread')]);
    if (list.status === 401) return signInRedirect(c);
    const items = list.ok ? (list.body.items as Notification[]) : [];
    const count = unread.ok ? (unread.body as { unread: number }).unread : 0;
    const back = html`<input type="hidden" name="filter" value="${filter}">`;
    const body = html`<h1>Notifications</h1>
${flash('error', error ?? (list.ok ? null : problem(list)))}
<nav aria-label="Show"><ul class="tags">
${FILTERS.map((f) => html`<li><a href="/notifications${f.value === 'all' ? '' : `?filter=${f.value}`}"${f.value === filter ? raw(' aria-current="page"') : ''}>${f.label}</a></li>\n`)}</ul></nav>
${count > 0 ? html`<form method="post" action="/notifications/read-all">${back}<button type="submit">Mark all ${count} as read</button></form>` : ''}
${items.length === 0
  ? html`<p>Nothing here.</p>`
  : html`<ul class="list">
${items.map((n) => {
  const link = pageLink(n.link);
  return html`<li${n.read ? '' : raw(' class="unread"')}>
<h2>${n.read ? '' : html`<span class="badge">new</span> `}${link ? html`<a href="${link}">${n.title}</a>` : n.title}</h2>
${n.body ? html`<p>${n.body}</p>` : ''}<p class="meta"><time datetime="${n.created_at}">${formatTime(n.created_at)}</time><span>${n.category}</span></p>
<div class="actions">
${n.read ? '' : html`<form method="post" action="/notifications/${n.id}/read">${back}<button type="submit">Mark read<span class="visually-hidden">: ${n.title}</span></button></form>`}
<form method="post" action="/notifications/${n.id}/dismiss">${back}<button type="submit">Dismiss<span class="visually-hidden">: ${n.title}</span></button></form>
</div></li>
`;
})}</ul>`}`;
    return pageResponse(c, deps.config, { title: 'Notifications', description: 'Your notifications: replies, mentions and decisions on your posts and proposals.', path: '/notifications', utility: true }, body, { section: 'account', unread: count });
  }

  const backTo = async (c: Context) => {
    const form = await c.req.parseBody();
    const filter = filterOf(form.filter);
    return filter === 'all' ? '/notifications' : `/notifications?filter=${filter}`;
  };

  app.get('/notifications', (c) => (sessionUser(c) ? render(c) : signInRedirect(c)));
  app.post('/notifications/read-all', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const r = await callApi(c, 'POST', '/api/notifications/mark-all-read');
    return r.ok ? seeOther(await backTo(c)) : render(c, problem(r));
  });
  for (const [action, method, suffix] of [['read', 'POST', '/read'], ['dismiss', 'DELETE', '']] as const) {
    app.post(`/notifications/:id/${action}`, async (c) => {
      if (!sessionUser(c)) return signInRedirect(c);
      const r = await callApi(c, method, `/api/notifications/${encodeURIComponent(c.req.param('id'))}${suffix}`);
      return r.ok ? seeOther(await backTo(c)) : render(c, problem(r));
    });
  }
}
