// The items of /moderation (api/web/moderation.ts): a submitted post with Publish and Send back, a hidden
// comment, and a proposal as a moderator judges it: its target by title with a link, its change as a
// readable diff (tags before → after, the link to add, the concept's text, the post to promote), never a
// JSON payload, and the decisions its status allows. Titles come from the API's content reads (titles()).
import type { Context } from 'hono';
import { html, type SafeHtml } from '../../src/web/html.ts';
import { formatTime } from '../../src/web/format.ts';
import { markdownToHtml } from '../../src/web/markdown.ts';
import type { CallApi } from './call.ts';

export interface SubmittedPost {
  post_id: string;
  slug: string;
  title: string;
  summary: string;
  tags: string[];
  author: { display_name: string; handle: string };
  url: string;
  submitted_at: string | null;
}
export interface HiddenComment {
  comment_id: string;
  entity_type: string;
  entity_id: string;
  entity_url: string;
  author: { display_name: string; handle: string } | null;
  hidden_by: { display_name: string; handle: string } | null;
  body: string;
  updated_at: string;
}
export interface Proposal {
  proposal_id: string;
  kind: string;
  status: string;
  title: string;
  target: { type: string; id: string } | null;
  payload: Record<string, unknown>;
  confidence: number;
  evidence: { community_flags: { count: number; threshold: number; flags: { reason: string | null; created_at: string }[] }; rationale?: string };
  source: string;
  created_at: string;
  applied_at: string | null;
  applied: { content_changed: boolean; files: string[]; note: string } | null;
}

/** What an item the proposals name is, for people: its title, its page, and its tags where it has them. */
export interface Item {
  title: string;
  href: string;
  tags?: string[];
}
type Ref = { type: string; id: string };
const PAGE: Record<string, [api: string, page: string]> = {
  video: ['/api/videos/', '/videos/'],
  essay: ['/api/essays/', '/essays/'],
  knowledge: ['/api/knowledge/', '/knowledge/'],
  digest: ['/api/digests/', '/digests/'],
  post: ['/api/posts/', '/posts/'],
};
const key = (r: Ref) => `${r.type}:${r.id}`;

/** The items the proposals name (targets, links, posts), each read once through the API. */
export async function titles(c: Context, callApi: CallApi, proposals: Proposal[]): Promise<Map<string, Item>> {
  const refs = new Map<string, Ref>();
  for (const p of proposals) {
    if (p.target) refs.set(key(p.target), p.target);
    const link = p.payload.link as Ref | undefined;
    if (p.kind === 'link_add' && link && link.type !== 'web_page') refs.set(key(link), link);
  }
  const out = new Map<string, Item>();
  await Promise.all(
    [...refs.values()].map(async (r) => {
      const where = PAGE[r.type];
      if (!where) return;
      const a = await callApi(c, 'GET', `${where[0]}${encodeURIComponent(r.id)}`);
      if (!a.ok) return;
      const b = a.body as { title?: string; tags?: string[]; slug?: string };
      out.set(key(r), { title: b.title ?? r.id, href: `${where[1]}${encodeURIComponent(r.type === 'post' ? (b.slug ?? r.id) : r.id)}`, tags: b.tags });
    }),
  );
  return out;
}

const named = (items: Map<string, Item>, r: Ref): SafeHtml => {
  const it = items.get(key(r));
  return it ? html`<a href="${it.href}">${it.title}</a>` : html`${r.type} ${r.id} <span class="muted">(not found)</span>`;
};
const tagList = (tags: string[]) => (tags.length ? tags.join(', ') : 'none');

/** The change a proposal makes, in words and a diff. */
function change(p: Proposal, items: Map<string, Item>): SafeHtml {
  const pl = p.payload;
  if (p.kind === 'tag_correction' && p.target) {
    const add = (pl.add as string[] | undefined) ?? [];
    const remove = (pl.remove as string[] | undefined) ?? [];
    const before = items.get(key(p.target))?.tags;
    const after = before ? [...before.filter((t) => !remove.includes(t)), ...add.filter((t) => !before.includes(t))] : null;
    return html`<div class="diff"><p>Tags of the ${p.target.type} ${named(items, p.target)}:</p>
${before && after ? html`<p><span class="muted">Before</span> ${tagList(before)} → <span class="muted">after</span> <strong>${tagList(after)}</strong></p>` : ''}
<p>${add.length ? html`Adds ${add.map((t, i) => html`${i ? ', ' : ''}<ins>${t}</ins>`)}` : ''}${add.length && remove.length ? '; ' : ''}${remove.length ? html`removes ${remove.map((t, i) => html`${i ? ', ' : ''}<del>${t}</del>`)}` : ''}.</p></div>`;
  }
  if (p.kind === 'link_add') {
    const concept = { type: 'knowledge', id: String(pl.concept) };
    const link = pl.link as { type: string; id?: string; url?: string; title?: string };
    const what =
      link.type === 'web_page'
        ? html`the web page <a href="${link.url ?? ''}">${link.title ?? link.url}</a> <span class="muted">(${link.url})</span> as a source`
        : link.type === 'knowledge'
          ? html`the related concept ${named(items, link as Ref)}`
          : html`the ${link.type} ${named(items, link as Ref)} as a source`;
    return html`<p class="diff">Adds <ins>${what}</ins> to the concept ${named(items, concept)}.</p>`;
  }
  if (p.kind === 'essay_promotion') {
    const post = { type: 'post', id: String(pl.post_id) };
    return html`<p class="diff">Copies the essay of the post ${named(items, post)} into the curated essays (${pl.lang === 'sl' ? 'Slovenian' : 'English'}).</p>`;
  }
  if (p.kind === 'concept_stub') return conceptText(p);
  return html``;
}

/** A new concept: its title, summary and tags, and its text as it will be published (headings under the item's). */
function conceptText(p: Proposal): SafeHtml {
  const pl = p.payload;
  const body = typeof pl.body === 'string' ? pl.body.trim() : '';
  const tags = (pl.tags as string[] | undefined) ?? [];
  return html`<div class="diff"><p>A new concept <strong>${String(pl.title)}</strong> (knowledge/${String(pl.slug)}.md)${tags.length ? `, tagged ${tags.join(', ')}` : ''}: ${String(pl.summary)}</p>
${body
  ? html`<section class="draft-body" aria-label="Draft text"><p class="meta"><span>Draft text, as it will be published</span></p>
${markdownToHtml(body, { headingOffset: 2 })}</section>`
  : typeof pl.file === 'string'
    ? html`<p>The draft's text is not recorded in this proposal, so applying its file will be refused; reject it and draft the concept again.</p>`
    : ''}</div>`;
}

export function postItem(p: SubmittedPost): SafeHtml {
  const id = p.post_id;
  return html`<li id="post-${id}"><h3><a href="${p.url}">${p.title}</a></h3>
<p class="meta"><span>by ${p.author.display_name} (@${p.author.handle})</span>${p.submitted_at ? html`<span>submitted ${formatTime(p.submitted_at)}</span>` : ''}${p.tags.length ? html`<span>${p.tags.join(', ')}</span>` : ''}</p>
<p>${p.summary}</p>
<form method="post" action="/moderation/posts/${id}/review"><input type="hidden" name="action" value="publish">
<div class="actions"><button type="submit" class="primary">Publish<span class="visually-hidden">: ${p.title}</span></button></div></form>
<form method="post" action="/moderation/posts/${id}/review"><input type="hidden" name="action" value="reject">
<label for="reason-${id}">Why it goes back <span class="muted">(the author reads this)</span></label>
<textarea id="reason-${id}" name="note" maxlength="1000" rows="2" required></textarea>
<div class="actions"><button type="submit">Send back<span class="visually-hidden">: ${p.title}</span></button></div></form></li>
`;
}

export function hiddenItem(h: HiddenComment): SafeHtml {
  return html`<li><p class="meta"><span>${h.author ? `${h.author.display_name} (@${h.author.handle})` : 'deleted account'}</span><span>on <a href="${h.entity_url}">${h.entity_type} ${h.entity_id}</a></span><span>hidden ${h.hidden_by ? `by @${h.hidden_by.handle} ` : ''}${formatTime(h.updated_at)}</span></p>
<p class="body">${h.body}</p>
<div class="actions">
<form method="post" action="/moderation/comments/${h.comment_id}/unhide"><button type="submit">Show again</button></form>
<form method="post" action="/moderation/comments/${h.comment_id}/delete"><button type="submit" class="danger">Delete</button></form>
</div></li>
`;
}

/** The head of a proposal: title, kind, target by title, where it came from, and its flags. */
function proposalHead(p: Proposal, items: Map<string, Item>): SafeHtml {
  const flags = p.evidence.community_flags;
  return html`<h3>${p.title}</h3>
<p class="meta"><span>${p.kind.replace(/_/g, ' ')}</span>${p.target ? html`<span>on ${named(items, p.target)}</span>` : ''}<span>confidence ${p.confidence.toFixed(2)}</span><span>from ${p.source}</span><span>${formatTime(p.created_at)}</span></p>
${change(p, items)}
${p.evidence.rationale ? html`<p>Rationale: ${p.evidence.rationale}</p>` : ''}
<p><strong>${flags.count} of ${flags.threshold} flags</strong>${flags.count >= flags.threshold ? ' (at the threshold)' : ''}</p>
${flags.flags.length ? html`<ul>${flags.flags.map((f) => html`<li>${f.reason ?? 'no reason given'} <span class="muted">(${formatTime(f.created_at)})</span></li>`)}</ul>` : ''}`;
}

/** A pending proposal: accept or reject with a note, or supersede by another live proposal chosen by title. */
export function pendingItem(p: Proposal, items: Map<string, Item>, live: Proposal[]): SafeHtml {
  const id = p.proposal_id;
  const others = live.filter((o) => o.proposal_id !== id);
  return html`<li id="proposal-${id}">${proposalHead(p, items)}
<form method="post" action="/moderation/proposals/${id}/decision">
<label for="note-${id}">Note <span class="muted">(optional, shown to the author)</span></label>
<textarea id="note-${id}" name="note" maxlength="1000" rows="2"></textarea>
<div class="actions"><button type="submit" name="action" value="accept" class="primary">Accept<span class="visually-hidden">: ${p.title}</span></button>
<button type="submit" name="action" value="reject" class="danger">Reject<span class="visually-hidden">: ${p.title}</span></button></div>
</form>
${others.length
  ? html`<form method="post" action="/moderation/proposals/${id}/decision">
<input type="hidden" name="action" value="supersede">
<label for="sup-${id}">Superseded by</label>
<select id="sup-${id}" name="superseded_by" required><option value="">Choose the proposal that replaces it</option>${others.map((o) => html`<option value="${o.proposal_id}">${o.title} (${o.kind.replace(/_/g, ' ')}, ${o.status})</option>`)}</select>
<div class="actions"><button type="submit">Supersede<span class="visually-hidden">: ${p.title}</span></button></div>
</form>`
  : ''}</li>
`;
}

/** An accepted proposal: what applying it will change in the content folder, and the button that does it. */
export function acceptedItem(p: Proposal, items: Map<string, Item>): SafeHtml {
  const id = p.proposal_id;
  return html`<li id="proposal-${id}">${proposalHead(p, items)}
<form method="post" action="/moderation/proposals/${id}/decision">
<div class="actions"><button type="submit" name="action" value="apply" class="primary">Apply to the content folder<span class="visually-hidden">: ${p.title}</span></button>
<button type="submit" name="action" value="reject" class="danger">Reject<span class="visually-hidden">: ${p.title}</span></button></div>
</form></li>
`;
}

/** An applied proposal: what it changed, and the files it wrote. */
export function appliedItem(p: Proposal, items: Map<string, Item>): SafeHtml {
  const a = p.applied;
  return html`<li id="proposal-${p.proposal_id}"><h3>${p.title}</h3>
<p class="meta"><span>${p.kind.replace(/_/g, ' ')}</span>${p.target ? html`<span>on ${named(items, p.target)}</span>` : ''}<span>applied ${p.applied_at ? formatTime(p.applied_at) : ''}</span></p>
${a ? html`<p>${a.note}</p>${a.files.length ? html`<p>Changed ${a.files.map((f, i) => html`${i ? ', ' : ''}<code>${f}</code>`)}</p>` : html`<p>No file changed.</p>`}` : ''}</li>
`;
}
