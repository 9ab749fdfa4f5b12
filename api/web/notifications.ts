// /notifications: your notifications with filters (all, unread, mentions, system), mark read, dismiss and
// mark all read, each a form post through the API.
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { html, raw } from '../../src/web/html.ts';
import { formatTime } from '../../src/web/format.ts';
import { problem, type CallApi } from './call.ts';
import { TARGET_PAGE } from './proposals.ts';
import { flash, pageResponse, seeOther, sessionUser, signInRedirect } from './render.ts';
import type { WebDeps } from './deps.ts';

interface Notification {
  id: string;
  kind: string;
  category: string;
  title: string;
  body: string;
  link: string | null;
  subject_type: string | null;
  subject_id: string | null;
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
 * Where a notification points, for people: links stay on this site, a post's API address becomes its
 * page, and no other API address (raw JSON) is offered.
 */
export function pageLink(link: string | null): string | null {
  if (!link || !link.startsWith('/') || link.startsWith('//')) return null;
  const page = link.replace(/^\/api\/posts\//, '/posts/');
  return page.startsWith('/api/') ? null : page;
}

interface ProposalSeen {
  proposal_id: string;
  kind: string;
  status: string;
  target: { type: string; id: string } | null;
  applied?: { files: string[] } | null;
}

/**
 * The page a proposal's notification opens (there is no public page of one proposal; /moderation's
 * #proposal-<id> is for moderators only): a pending one on /proposals; a decided one on its target's page,
 * where an applied change shows (an applied essay_promotion on the essay it wrote); /proposals when the
 * target has no page (a concept draft that was never published).
 */
export function proposalPage(p: ProposalSeen): string {
  if (p.status === 'pending') return `/proposals#proposal-${encodeURIComponent(p.proposal_id)}`;
  // An applied essay_promotion's change is a new essay (essays/<slug>/<lang>.md), not the post.
  const essay = p.kind === 'essay_promotion' && p.status === 'applied' ? p.applied?.files.map((f) => /^essays\/([^/]+)\/[a-z]{2}\.md$/.exec(f)?.[1]).find(Boolean) : undefined;
  if (essay) return `/essays/${encodeURIComponent(essay)}`;
  const base = p.target ? TARGET_PAGE[p.target.type] : undefined;
  if (!p.target || !base || (p.kind === 'concept_stub' && p.status !== 'applied')) return '/proposals';
  return `${base}${encodeURIComponent(p.target.id)}`;
}

/** Each notification's link for people; a proposal's is looked up (once per proposal) for its page. */
async function linksOf(c: Context, callApi: CallApi, items: Notification[]): Promise<Map<string, string | null>> {
  const proposals = new Map<string, Promise<string>>();
  for (const n of items) {
    if (n.subject_type !== 'proposal' || !n.subject_id || proposals.has(n.subject_id)) continue;
    const r = callApi(c, 'GET', `/api/proposals/${encodeURIComponent(n.subject_id)}`);
    proposals.set(n.subject_id, r.then((a) => (a.ok ? proposalPage(a.body as ProposalSeen) : '/proposals')));
  }
  const out = new Map<string, string | null>();
  for (const n of items) out.set(n.id, n.subject_type === 'proposal' && n.subject_id ? await proposals.get(n.subject_id)! : pageLink(n.link));
  return out;
}

export function registerNotificationPages(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  async function render(c: Context, error?: string) {
    const filter = filterOf(c.req.query('filter'));
    const [list, unread] = await Promise.all([callApi(c, 'GET', `/api/notifications?filter=${filter}&limit=100`), callApi(c, 'GET', '/api/notifications/unread')]);
    if (list.status === 401) return signInRedirect(c);
    const items = list.ok ? (list.body.items as Notification[]) : [];
    const links = await linksOf(c, callApi, items);
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
  const link = links.get(n.id);
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
