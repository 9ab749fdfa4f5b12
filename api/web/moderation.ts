// /moderation, for moderators: the submitted posts waiting for review (publish, or send back with a reason
// the author reads), hidden comments (show again or delete), pending proposals with their community flags
// (accept, reject, or supersede by another proposal chosen by title), accepted ones to apply to the
// content folder, and the latest applied with the files they changed. Everyone else gets a 403 page.
// Items are rendered by moderation-items.ts; a concept stub's text goes through the sanitising Markdown
// renderer (it is AI-generated from pages anyone can add).
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { html } from '../../src/web/html.ts';
import { problem, type ApiAnswer, type CallApi } from './call.ts';
import { acceptedItem, appliedItem, hiddenItem, pendingItem, postItem, titles, type HiddenComment, type Proposal, type SubmittedPost } from './moderation-items.ts';
import { flash, formText, pageResponse, seeOther, sessionUser, signInRedirect } from './render.ts';
import type { WebDeps } from './deps.ts';

const DONE: Record<string, string> = {
  unhidden: 'The comment is visible again.',
  deleted: 'The comment is deleted.',
  decided: 'The decision is recorded; the author is told.',
  accepted: 'The proposal is accepted; apply it below to change the content folder.',
  applied: 'The proposal is applied; the files it changed are listed under Recently applied.',
  published: 'The post is published; its author is told.',
  sent_back: 'The post is sent back to its author with your reason.',
};
const META = { title: 'Moderation', description: 'Submitted posts, hidden comments and proposals, for moderators.', path: '/moderation', utility: true };
const count = (a: ApiAnswer) => (a.ok ? ` (${a.body.total})` : '');

export function registerModerationPages(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  const isModerator = (c: Context) => {
    const p = sessionUser(c);
    return !!p && (p.user.role === 'moderator' || p.user.role === 'admin');
  };
  const forbidden = (c: Context) =>
    pageResponse(c, deps.config, { ...META, title: 'Moderators only' }, html`<h1>Moderators only</h1><p>This page is for moderators.</p>`, { status: 403 });

  async function render(c: Context, error?: string, status?: 400 | 409 | 422) {
    const [posts, hidden, pending, decided] = await Promise.all([
      callApi(c, 'GET', '/api/moderation/posts?limit=100'),
      callApi(c, 'GET', '/api/moderation/comments?limit=100'),
      callApi(c, 'GET', '/api/proposals?status=pending&limit=50'),
      callApi(c, 'GET', '/api/proposals?status=decided&limit=100'),
    ]);
    const queue = posts.ok ? (posts.body.items as SubmittedPost[]) : [];
    const comments = hidden.ok ? (hidden.body.items as HiddenComment[]) : [];
    const open = pending.ok ? (pending.body.items as Proposal[]) : [];
    const recent = decided.ok ? (decided.body.items as Proposal[]) : [];
    const accepted = recent.filter((p) => p.status === 'accepted');
    const applied = recent.filter((p) => p.status === 'applied').slice(0, 10);
    const items = await titles(c, callApi, [...open, ...accepted, ...applied]);
    const live = [...open, ...accepted];
    const section = (id: string, title: string, a: ApiAnswer, body: unknown) =>
      html`<section aria-labelledby="${id}"><h2 id="${id}">${title}${count(a)}</h2>${a.ok ? body : flash('error', problem(a))}</section>
`;
    const body = html`<h1>Moderation</h1>
${flash('ok', DONE[c.req.query('done') ?? ''])}${flash('error', error)}
${section('posts-title', 'Submitted posts', posts, queue.length === 0 ? html`<p>No posts wait for review.${deps.config.postsAutoPublish ? ' Posts are published when submitted (POSTS_AUTO_PUBLISH).' : ''}</p>` : html`<ul class="list">${queue.map(postItem)}</ul>`)}
${section('hidden-title', 'Hidden comments', hidden, comments.length === 0 ? html`<p>No hidden comments.</p>` : html`<ul class="list">${comments.map(hiddenItem)}</ul>`)}
${section('proposals-title', 'Pending proposals', pending, open.length === 0 ? html`<p>No pending proposals.</p>` : html`<ul class="list">${open.map((p) => pendingItem(p, items, live))}</ul>`)}
${accepted.length ? html`<section aria-labelledby="accepted-title"><h2 id="accepted-title">Accepted, to apply (${accepted.length})</h2><ul class="list">${accepted.map((p) => acceptedItem(p, items))}</ul></section>` : ''}
${applied.length ? html`<section aria-labelledby="applied-title"><h2 id="applied-title">Recently applied</h2><ul class="list">${applied.map((p) => appliedItem(p, items))}</ul></section>` : ''}`;
    return pageResponse(c, deps.config, META, body, { status });
  }

  app.get('/moderation', (c) => (!sessionUser(c) ? signInRedirect(c) : isModerator(c) ? render(c) : forbidden(c)));

  app.post('/moderation/comments/:id/:action{unhide|delete}', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    if (!isModerator(c)) return forbidden(c);
    const id = encodeURIComponent(c.req.param('id'));
    const action = c.req.param('action');
    const r = action === 'unhide' ? await callApi(c, 'POST', `/api/comments/${id}/unhide`) : await callApi(c, 'DELETE', `/api/comments/${id}`);
    return r.ok ? seeOther(`/moderation?done=${action === 'unhide' ? 'unhidden' : 'deleted'}`) : render(c, problem(r), 400);
  });

  app.post('/moderation/proposals/:id/decision', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    if (!isModerator(c)) return forbidden(c);
    const f = await c.req.parseBody();
    const note = formText(f.note).trim() || undefined;
    const supersededBy = typeof f.superseded_by === 'string' && f.superseded_by.trim() ? f.superseded_by.trim() : undefined;
    const r = await callApi(c, 'POST', `/api/proposals/${encodeURIComponent(c.req.param('id'))}/decision`, {
      json: { action: f.action, ...(note ? { note } : {}), ...(supersededBy ? { superseded_by: supersededBy } : {}) },
    });
    if (!r.ok) return render(c, problem(r), r.status === 409 ? 409 : 422);
    return seeOther(f.action === 'apply' ? '/moderation?done=applied#applied-title' : f.action === 'accept' ? '/moderation?done=accepted#accepted-title' : '/moderation?done=decided');
  });

  app.post('/moderation/posts/:id/review', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    if (!isModerator(c)) return forbidden(c);
    const f = await c.req.parseBody();
    const note = formText(f.note).trim();
    if (f.action === 'reject' && !note) return render(c, 'Say why the post goes back: its author reads the reason.', 422);
    const r = await callApi(c, 'POST', `/api/posts/${encodeURIComponent(c.req.param('id'))}/review`, { json: { action: f.action, ...(note ? { note } : {}) } });
    if (!r.ok) return render(c, problem(r), r.status === 409 ? 409 : 422);
    return seeOther(`/moderation?done=${f.action === 'publish' ? 'published' : 'sent_back'}`);
  });
}
