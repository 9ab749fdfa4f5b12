// /moderation, for moderators: hidden comments (show again or delete) and pending proposals with their
// community flags (accept, reject or supersede, with a note). Everyone else gets a 403 page. A concept
// stub shows the draft's body as it will be published (apply refuses a file that differs from it), through
// the sanitising Markdown renderer: the text is AI-generated from pages anyone can add.
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { html, type SafeHtml } from '../../src/web/html.ts';
import { formatTime } from '../../src/web/format.ts';
import { markdownToHtml } from '../../src/web/markdown.ts';
import { problem, type CallApi } from './call.ts';
import { flash, formText, pageResponse, seeOther, sessionUser, signInRedirect } from './render.ts';
import type { WebDeps } from './deps.ts';

interface HiddenComment {
  comment_id: string;
  entity_type: string;
  entity_id: string;
  entity_url: string;
  author: { display_name: string; handle: string } | null;
  hidden_by: { display_name: string; handle: string } | null;
  body: string;
  updated_at: string;
}
interface Proposal {
  proposal_id: string;
  kind: string;
  title: string;
  target: { type: string; id: string } | null;
  payload: Record<string, unknown>;
  confidence: number;
  evidence: { community_flags: { count: number; threshold: number; flags: { reason: string | null; created_at: string }[] }; rationale?: string };
  source: string;
  created_at: string;
}

const DONE: Record<string, string> = {
  unhidden: 'The comment is visible again.',
  deleted: 'The comment is deleted.',
  decided: 'The decision is recorded.',
};

export function registerModerationPages(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  const isModerator = (c: Context) => {
    const p = sessionUser(c);
    return !!p && (p.user.role === 'moderator' || p.user.role === 'admin');
  };
  const forbidden = (c: Context) =>
    pageResponse(c, deps.config, { title: 'Moderators only', description: 'Hidden comments and pending proposals, for moderators.', path: '/moderation', utility: true }, html`<h1>Moderators only</h1><p>This page is for moderators.</p>`, { status: 403 });

  async function render(c: Context, error?: string, status?: 400 | 409 | 422) {
    const [hidden, proposals] = await Promise.all([callApi(c, 'GET', '/api/moderation/comments?limit=100'), callApi(c, 'GET', '/api/proposals?status=pending&limit=50')]);
    const comments = hidden.ok ? (hidden.body.items as HiddenComment[]) : [];
    const pending = proposals.ok ? (proposals.body.items as Proposal[]) : [];
    const body = html`<h1>Moderation</h1>
${flash('ok', DONE[c.req.query('done') ?? ''])}${flash('error', error)}
<section aria-labelledby="hidden-title">
<h2 id="hidden-title">Hidden comments${hidden.ok ? ` (${hidden.body.total})` : ''}</h2>
${!hidden.ok ? flash('error', problem(hidden)) : comments.length === 0 ? html`<p>No hidden comments.</p>` : html`<ul class="list">${comments.map(hiddenItem)}</ul>`}
</section>
<section aria-labelledby="proposals-title">
<h2 id="proposals-title">Pending proposals${proposals.ok ? ` (${proposals.body.total})` : ''}</h2>
${!proposals.ok
  ? html`<p>Proposals are not available: ${problem(proposals)}</p>`
  : pending.length === 0
    ? html`<p>No pending proposals.</p>`
    : html`<ul class="list">${pending.map(proposalItem)}</ul>`}
</section>`;
    return pageResponse(c, deps.config, { title: 'Moderation', description: 'Hidden comments and pending proposals, for moderators.', path: '/moderation', utility: true }, body, { status });
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
    return r.ok ? seeOther('/moderation?done=decided') : render(c, problem(r), r.status === 409 ? 409 : 422);
  });
}

function hiddenItem(h: HiddenComment): SafeHtml {
  return html`<li><p class="meta"><span>${h.author ? `${h.author.display_name} (@${h.author.handle})` : 'deleted account'}</span><span>on <a href="${h.entity_url}">${h.entity_type} ${h.entity_id}</a></span><span>hidden ${h.hidden_by ? `by @${h.hidden_by.handle} ` : ''}${formatTime(h.updated_at)}</span></p>
<p class="body">${h.body}</p>
<div class="actions">
<form method="post" action="/moderation/comments/${h.comment_id}/unhide"><button type="submit">Show again</button></form>
<form method="post" action="/moderation/comments/${h.comment_id}/delete"><button type="submit" class="danger">Delete</button></form>
</div></li>
`;
}

/** What applying a concept_stub would publish: its body, headings demoted under the item's <h3>. */
function draftBody(p: Proposal): SafeHtml | '' {
  if (p.kind !== 'concept_stub') return '';
  const body = typeof p.payload.body === 'string' ? p.payload.body.trim() : '';
  if (!body) return typeof p.payload.file === 'string' ? html`<p>The draft's text is not recorded in this proposal, so applying its file will be refused; reject it and draft the concept again.</p>` : '';
  return html`<section class="draft-body" aria-label="Draft text"><p class="meta"><span>Draft text, as it will be published</span></p>
${markdownToHtml(body, { headingOffset: 2 })}</section>`;
}

function proposalItem(p: Proposal): SafeHtml {
  const flags = p.evidence.community_flags;
  const id = p.proposal_id;
  // A stub's body is shown rendered above, not a second time as JSON.
  const { body: _body, ...rest } = p.payload;
  const shown = p.kind === 'concept_stub' ? rest : p.payload;
  return html`<li><h3>${p.title}</h3>
<p class="meta"><span>${p.kind.replace(/_/g, ' ')}</span>${p.target ? html`<span>on ${p.target.type} ${p.target.id}</span>` : ''}<span>confidence ${p.confidence.toFixed(2)}</span><span>from ${p.source}</span><span>${formatTime(p.created_at)}</span></p>
<p><strong>${flags.count} of ${flags.threshold} flags</strong>${flags.count >= flags.threshold ? ' (at the threshold)' : ''}</p>
${flags.flags.length ? html`<ul>${flags.flags.map((f) => html`<li>${f.reason ?? 'no reason given'} <span class="muted">(${formatTime(f.created_at)})</span></li>`)}</ul>` : ''}
${p.evidence.rationale ? html`<p>Rationale: ${p.evidence.rationale}</p>` : ''}
${draftBody(p)}
<details><summary>Payload</summary><pre>${JSON.stringify(shown, null, 2)}</pre></details>
<form method="post" action="/moderation/proposals/${id}/decision">
<label for="note-${id}">Note <span class="muted">(optional, shown to the author)</span></label>
<textarea id="note-${id}" name="note" maxlength="1000" rows="2"></textarea>
<div class="actions"><button type="submit" name="action" value="accept" class="primary">Accept<span class="visually-hidden">: ${p.title}</span></button>
<button type="submit" name="action" value="reject" class="danger">Reject<span class="visually-hidden">: ${p.title}</span></button></div>
</form>
<form method="post" action="/moderation/proposals/${id}/decision">
<input type="hidden" name="action" value="supersede">
<label for="sup-${id}">Superseded by proposal</label>
<input id="sup-${id}" name="superseded_by" required maxlength="100">
<div class="actions"><button type="submit">Supersede<span class="visually-hidden">: ${p.title}</span></button></div>
</form></li>
`;
}
