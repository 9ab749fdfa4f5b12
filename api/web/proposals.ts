// /proposals: the community's pending proposals against the knowledge canon, for everyone to read, with a
// form to flag one (once per person, with an optional reason) for people signed in. Flagging goes through
// POST /api/proposals/{id}/flag in process, so the API's rules decide (one flag each, rate limits, the
// auto-reject threshold, no flagging of one's own proposal where the API says so) and its message is shown.
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { html, raw, type SafeHtml } from '../../src/web/html.ts';
import { formatTime } from '../../src/web/format.ts';
import { problem, type CallApi } from './call.ts';
import { flash, formText, pageResponse, seeOther, sessionUser, signInRedirect } from './render.ts';
import type { WebDeps } from './deps.ts';
import { fieldAttrs, fieldNote, formProblem, problemSummary, type FormProblem } from './form-errors.ts';

interface Proposal {
  proposal_id: string;
  kind: string;
  title: string;
  target: { type: string; id: string } | null;
  confidence: number;
  evidence: { community_flags: { count: number; threshold: number; flags: { reason: string | null; created_at: string }[] } };
  source: string;
  created_at: string;
}

const PAGE_SIZE = 50;
/** A refused flag: which proposal, the reason as typed, and why. */
interface RefusedFlag {
  id: string;
  reason: string;
  problem: FormProblem;
}
const reasonField = (id: string) => ({ reason: { id: `reason-${id}`, name: 'the reason' } });
/** The page of each kind of thing a proposal can be about. */
export const TARGET_PAGE: Record<string, string> = { video: '/videos/', essay: '/essays/', digest: '/digests/', knowledge: '/knowledge/', persona: '/personas/', post: '/posts/' };

export function registerProposalPages(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  async function render(c: Context, notice: { ok?: string; flag?: RefusedFlag; status?: 400 | 403 | 404 | 409 | 422 | 429 } = {}) {
    const offset = Math.max(0, Number.parseInt(c.req.query('offset') ?? '0', 10) || 0);
    const r = await callApi(c, 'GET', `/api/proposals?status=pending&limit=${PAGE_SIZE}&offset=${offset}`);
    const items = r.ok ? (r.body.items as Proposal[]) : [];
    const total = r.ok ? (r.body.total as number) : 0;
    const signedIn = !!sessionUser(c);
    const done = c.req.query('done') === 'flagged' ? 'Your flag is recorded. Thank you.' : undefined;
    const body = html`<h1>Proposals</h1>
<p class="lede">Changes people and the pipeline propose to the knowledge base: new links, tag corrections, concept drafts. Moderators decide; if enough people flag a proposal, it is rejected without a moderator.</p>
${flash('ok', notice.ok ?? done)}${notice.flag ? problemSummary('Your flag was not recorded.', notice.flag.problem, reasonField(notice.flag.id)) : ''}
${!r.ok
  ? html`<p>Proposals are not available: ${problem(r)}</p>`
  : items.length === 0
    ? html`<p>No pending proposals.</p>`
    : html`<p class="muted">${total} pending, most confident first.</p><ul class="list proposals">${items.map((p) => item(p, signedIn, notice.flag))}</ul>`}
${offset + PAGE_SIZE < total ? html`<p><a href="/proposals?offset=${offset + PAGE_SIZE}">Older proposals</a></p>` : ''}
${signedIn ? '' : html`<p><a href="/api/auth/idp/login?next=${encodeURIComponent('/proposals')}">Sign in</a> to flag a proposal.</p>`}`;
    return pageResponse(
      c,
      deps.config,
      { title: 'Proposals', description: 'Pending community proposals against the knowledge canon, with their flags; people signed in can flag one.', path: '/proposals', noindex: offset > 0 },
      body,
      { status: notice.status },
    );
  }

  app.get('/proposals', (c) => render(c));

  app.post('/proposals/:id/flag', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const f = await c.req.parseBody();
    const reason = formText(f.reason).trim();
    const r = await callApi(c, 'POST', `/api/proposals/${encodeURIComponent(c.req.param('id'))}/flag`, { json: reason ? { reason } : {} });
    if (r.ok) return seeOther(`/proposals?done=flagged#proposal-${encodeURIComponent(c.req.param('id'))}`);
    const status = r.status === 403 || r.status === 404 || r.status === 409 || r.status === 422 || r.status === 429 ? r.status : 400;
    const id = c.req.param('id');
    return render(c, { flag: { id, reason, problem: formProblem(r, reasonField(id)) }, status });
  });
}

function item(p: Proposal, signedIn: boolean, refused?: RefusedFlag): SafeHtml {
  const flags = p.evidence.community_flags;
  const id = p.proposal_id;
  const mine = refused?.id === id ? refused : undefined;
  const field = reasonField(id).reason;
  const targetHref = p.target && TARGET_PAGE[p.target.type] ? `${TARGET_PAGE[p.target.type]}${encodeURIComponent(p.target.id)}` : null;
  return html`<li id="proposal-${id}"><h2>${p.title}</h2>
<p class="meta"><span>${p.kind.replace(/_/g, ' ')}</span>${p.target ? html`<span>on ${targetHref ? html`<a href="${targetHref}">${p.target.type} ${p.target.id}</a>` : `${p.target.type} ${p.target.id}`}</span>` : ''}<span>confidence ${p.confidence.toFixed(2)}</span><span>from ${p.source}</span><span>${formatTime(p.created_at)}</span></p>
<p>${flags.count} of ${flags.threshold} flags</p>
${signedIn
  ? html`<details${mine ? raw(' open') : ''}><summary>Flag this proposal<span class="visually-hidden">: ${p.title}</span></summary>
<form method="post" action="/proposals/${id}/flag">
<label for="reason-${id}">Why should it not be applied? <span class="muted">(optional; shown publicly, never with your name)</span></label>
<textarea id="reason-${id}" name="reason" maxlength="500" rows="2"${fieldAttrs(field, mine?.problem, 'reason')}>${mine?.reason ?? ''}</textarea>
${fieldNote(field, mine?.problem, 'reason')}
${mine?.problem.general.length ? html`<p class="field-error">${mine.problem.general.join(' ')}</p>` : ''}
<div class="actions"><button type="submit" class="danger">Flag<span class="visually-hidden">: ${p.title}</span></button></div>
</form></details>`
  : ''}</li>
`;
}
