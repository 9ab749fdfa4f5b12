// Posts for people: /posts/me (your posts and a form for a new one), /posts/me/<post_id> (the editor) and
// /posts/<slug> (a post, with its comments). The essay editor is ETag-aware: the form carries the ETag
// of the version it shows, the save sends it as If-Match, and when someone saved in between (412) the
// page shows both versions and lets the person merge, with the newer ETag, so nothing is lost silently.
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { html, raw, type SafeHtml } from '../../src/web/html.ts';
import { formatTime, truncate } from '../../src/web/format.ts';
import { markdownToHtml } from '../../src/web/markdown.ts';
import { commentsSection, relatedSection } from '../../src/web/sections.ts';
import { t, tHtml, tn } from '../../src/web/i18n.ts';
import { problem, type ApiAnswer, type CallApi } from './call.ts';
import { flash, formText, pageResponse, seeOther, sessionUser, signInRedirect } from './render.ts';
import { fieldAttrs, fieldNote, formProblem, generalProblem, problemSummary, type FormFields, type FormProblem } from './form-errors.ts';
import type { WebDeps } from './deps.ts';

interface Post {
  post_id: string;
  slug: string;
  title: string;
  summary: string;
  tags: string[];
  lang: 'en' | 'sl';
  status: 'draft' | 'submitted' | 'published' | 'rejected';
  author: { id: string; display_name: string; handle: string };
  votes: number;
  essay_revision: number;
  url: string;
  api_url: string;
  updated_at: string;
  published_at: string | null;
}
interface Essay {
  post_id: string;
  revision: number;
  body: string;
  etag: string;
  updated_at: string | null;
  updated_by: string | null;
}

const STATUS_TEXT: Record<Post['status'], string> = {
  draft: 'Draft: only you and your co-admins see it.',
  submitted: 'Submitted: waiting for a moderator.',
  published: 'Published.',
  rejected: 'Not published by a moderator; edit it and submit again.',
};
const DONE: Record<string, string> = { saved: 'The essay is saved.', details: 'The details are saved.', submitted: 'The post is submitted.' };

const tagsFrom = (v: string) =>
  v
    .split(/[,\s]+/)
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);

/** The post's fields as the forms name them (api/web/form-errors.ts). */
const DETAILS_FIELDS: FormFields = {
  title: { id: 'post-title', name: 'the title' },
  summary: { id: 'post-summary', name: 'the summary' },
  tags: { id: 'post-tags', name: 'the tags', item: 'tag', rule: 'lower-case letters, digits and single hyphens, e.g. “ai-governance”' },
  lang: { id: 'post-lang', name: 'the language' },
};
const ESSAY_FIELDS: FormFields = { body: { id: 'essay', name: 'the essay' } };

/** Registers the post pages: your posts, the editor, and a post for readers with its votes. */
export function registerPostPages(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  registerYourPostsPages(app, deps, callApi);
  registerEditorPages(app, deps, callApi);
  registerReaderPages(app, deps, callApi);
}

/** A page of the post pages (an account page unless `section` says otherwise). */
const postPage =
  (deps: WebDeps) =>
  (c: Context, title: string, path: string, body: SafeHtml, status?: 200 | 400 | 401 | 404 | 409 | 422, section: 'account' | undefined = 'account') =>
    pageResponse(c, deps.config, { title, description: 'Write, edit and submit your posts and their essays.', path, utility: true, scripts: section ? ['/assets/editor.js'] : [] }, body, { status, section });

/** A post and its essay, or the API's answer when either is refused. */
async function loadPost(callApi: CallApi, c: Context, id: string): Promise<{ post: Post; essay: Essay } | ApiAnswer> {
  const p = await callApi(c, 'GET', `/api/posts/${encodeURIComponent(id)}`);
  if (!p.ok) return p;
  const e = await callApi(c, 'GET', `/api/posts/${encodeURIComponent(id)}/essay`);
  if (!e.ok) return e;
  return { post: p.body as Post, essay: e.body as Essay };
}

/** /posts/me: your posts and the form for a new one. */
function registerYourPostsPages(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  const page = postPage(deps);
  async function myPosts(c: Context, typed: DetailsValues = NO_DETAILS, problem?: FormProblem, status?: 422) {
    const r = await callApi(c, 'GET', '/api/posts/me?limit=200');
    if (r.status === 401) return signInRedirect(c);
    const posts = r.ok ? (r.body.items as Post[]) : [];
    return page(
      c,
      'Your posts',
      '/posts/me',
      html`<h1>Your posts</h1>
${problemSummary('The draft was not created.', problem, DETAILS_FIELDS)}
${posts.length
  ? html`<ul class="list">
${posts.map(
  (p) => html`<li><h2><a href="/posts/me/${p.post_id}">${p.title}</a></h2>
<p class="meta"><span>${p.status}</span><span>updated ${formatTime(p.updated_at)}</span>${p.status === 'published' ? html`<a href="${p.url}">view</a>` : ''}</p></li>
`,
)}</ul>`
  : html`<p>You have not written a post yet.</p>`}
<h2 id="new-post">Write a new post</h2>
<form method="post" action="/posts/me" ${guard(problem)}>
${detailsFields(typed, problem)}
<div class="actions"><button type="submit" class="primary">Create the draft</button></div>
</form>`,
      status,
    );
  }

  app.get('/posts/me', (c) => (sessionUser(c) ? myPosts(c) : signInRedirect(c)));
  app.post('/posts/me', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const typed = detailsFrom(await c.req.parseBody());
    const r = await callApi(c, 'POST', '/api/posts', { json: detailsJson(typed) });
    if (r.status === 201) return seeOther(`/posts/me/${encodeURIComponent((r.body as Post).post_id)}`);
    return myPosts(c, typed, formProblem(r, DETAILS_FIELDS), 422);
  });
}

/** What the editor shows besides the stored post: the typed text of a refused form, a conflict, a problem. */
interface EditorState {
  /** The essay form's refusal (or a submission's), with the text the person typed. */
  essay?: { text: string; problem?: FormProblem; conflict?: Essay };
  /** The details form's refusal, with what the person typed. */
  details?: { typed: DetailsValues; problem: FormProblem };
  /** Why the post could not be submitted (the essay was saved). */
  submit?: string;
  status?: 200 | 409 | 422;
}

/** /posts/me/<post_id>: the ETag-aware essay editor, the details and the submission. */
function registerEditorPages(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  const page = postPage(deps);
  async function editor(c: Context, id: string, state: EditorState = {}) {
    const loaded = await loadPost(callApi, c, id);
    if (!('post' in loaded)) return loaded.status === 401 ? signInRedirect(c) : page(c, 'Post not found', `/posts/me/${id}`, html`<h1>Post not found</h1><p>${problem(loaded)}</p>`, 404);
    const body = editorBody(loaded.post, loaded.essay, state, DONE[c.req.query('done') ?? ''], deps.config.postsAutoPublish);
    return page(c, `Edit ${loaded.post.title}`, `/posts/me/${loaded.post.post_id}`, body, state.status);
  }

  /**
   * Saves the editor's text (If-Match: the ETag the form carries) unless it is the stored version already.
   * Null when it is stored; otherwise the editor again with the text kept: a conflict beside the newer
   * version, or the refusal in words.
   */
  async function saveEssay(c: Context, id: string, text: string, etag: string): Promise<Response | null> {
    const path = `/api/posts/${encodeURIComponent(id)}/essay`;
    const current = await callApi(c, 'GET', path);
    if (current.ok && (current.body as Essay).etag === etag && (current.body as Essay).body === text) return null;
    const r = await callApi(c, 'PUT', path, { json: { body: text }, headers: etag ? { 'If-Match': etag } : {} });
    if (r.ok) return null;
    if (r.status === 412) return editor(c, id, { essay: { text, conflict: (r.body as { current: Essay }).current }, status: 409 });
    return editor(c, id, { essay: { text, problem: formProblem(r, ESSAY_FIELDS) }, status: 422 });
  }

  app.get('/posts/me/:id', (c) => (sessionUser(c) ? editor(c, c.req.param('id')) : signInRedirect(c)));

  /**
   * An essay sent after the session ended: a redirect to the sign-in would drop the text, so the page
   * keeps it in the same form, to send again once the person has signed in in another tab.
   */
  function signedOutEssay(c: Context, id: string, f: Record<string, unknown>, action: 'essay' | 'submit') {
    const body = html`<h1>Sign in to save your essay</h1>
<p class="error-summary" role="alert">You are signed out, so the essay was not saved. Your text is below: <a href="/api/auth/idp/login?next=${encodeURIComponent(`/posts/me/${id}`)}" target="_blank" rel="noopener">sign in in a new tab</a>, then come back to this page and send it again.</p>
<form method="post" action="/posts/me/${id}/${action}" data-guard="unsaved">
<input type="hidden" name="etag" value="${formText(f.etag)}">
<label for="essay">Your essay</label>
<textarea id="essay" name="body" class="editor" maxlength="100000">${formText(f.body)}</textarea>
<div class="actions"><button type="submit" class="primary">${action === 'submit' ? 'Save and submit' : 'Save essay'}</button></div>
</form>`;
    return page(c, 'Sign in to save your essay', `/posts/me/${id}`, body, 401);
  }

  app.post('/posts/me/:id/essay', async (c) => {
    const id = c.req.param('id');
    const f = await c.req.parseBody();
    if (!sessionUser(c)) return typeof f.body === 'string' ? signedOutEssay(c, id, f, 'essay') : signInRedirect(c);
    return (await saveEssay(c, id, formText(f.body), formText(f.etag))) ?? seeOther(`/posts/me/${encodeURIComponent(id)}?done=saved`);
  });

  app.post('/posts/me/:id/details', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const id = c.req.param('id');
    const typed = detailsFrom(await c.req.parseBody());
    const r = await callApi(c, 'PATCH', `/api/posts/${encodeURIComponent(id)}`, { json: detailsJson(typed) });
    return r.ok ? seeOther(`/posts/me/${encodeURIComponent(id)}?done=details`) : editor(c, id, { details: { typed, problem: formProblem(r, DETAILS_FIELDS) }, status: 422 });
  });

  // The Submit button belongs to the essay form: what is in the editor is saved first (with its ETag),
  // so submitting never throws typed text away; a conflict or a refusal stops before the submission.
  app.post('/posts/me/:id/submit', async (c) => {
    const id = c.req.param('id');
    const f = await c.req.parseBody();
    if (!sessionUser(c)) return typeof f.body === 'string' ? signedOutEssay(c, id, f, 'submit') : signInRedirect(c);
    if (typeof f.body === 'string') {
      const refused = await saveEssay(c, id, formText(f.body), formText(f.etag));
      if (refused) return refused;
    }
    const r = await callApi(c, 'POST', `/api/posts/${encodeURIComponent(id)}/submit`);
    return r.ok ? seeOther(`/posts/me/${encodeURIComponent(id)}?done=submitted`) : editor(c, id, { submit: problem(r), status: 409 });
  });
}

/** The editor's page: status, the essay form (with a conflict's two versions), the details, the submission. */
function editorBody(post: Post, essay: Essay, state: EditorState, done: string | undefined, autoPublish: boolean): SafeHtml {
  const mine = state.essay;
  const conflict = mine?.conflict;
  // In a conflict the form carries the newer ETag: saving again means "I merged, keep my text".
  const etag = conflict ? conflict.etag : essay.etag;
  const submittable = post.status === 'draft' || post.status === 'rejected';
  return html`<h1>Edit “${post.title}”</h1>
<p class="meta"><span>${STATUS_TEXT[post.status]}</span>${post.status === 'published' ? html`<a href="${post.url}">View the post</a>` : ''}<a href="/posts/me">All your posts</a></p>
${flash('ok', done)}${state.submit ? problemSummary('The post was not submitted; the essay in the editor is saved.', generalProblem(state.submit), {}) : ''}${problemSummary('The essay was not saved; your text is still in the editor.', mine?.problem, ESSAY_FIELDS)}${problemSummary('The details were not saved.', state.details?.problem, DETAILS_FIELDS)}
${conflict
  ? html`<div class="warn" role="alert" id="conflict"><h2>Someone saved a newer version while you were editing</h2>
<p>Revision ${conflict.revision} was saved ${formatTime(conflict.updated_at)}. Your text was not saved. Compare the two versions, merge what you want to keep into yours, and save again.</p></div>
<div class="grid2">
<section class="panel" aria-labelledby="theirs-title"><h3 id="theirs-title">The current version (revision ${conflict.revision})</h3>
<pre class="current-version">${conflict.body}</pre></section>
<section class="panel" aria-labelledby="mine-title"><h3 id="mine-title">Your version</h3><p class="muted">In the editor below.</p></section>
</div>`
  : ''}
<form method="post" action="/posts/me/${post.post_id}/essay" id="essay-form" ${guard(mine)}>
<input type="hidden" name="etag" value="${etag}">
<label for="essay">${conflict ? 'Your version (merge it with the current one, then save)' : html`Essay <span class="muted">(Markdown; revision ${essay.revision})</span>`}</label>
<textarea id="essay" name="body" class="editor" maxlength="100000"${fieldAttrs(ESSAY_FIELDS.body, mine?.problem, 'body')}>${mine ? mine.text : essay.body}</textarea>
${fieldNote(ESSAY_FIELDS.body, mine?.problem, 'body')}
<div class="actions"><button type="submit" class="primary">${conflict ? 'Save my merged version' : 'Save essay'}</button>${conflict ? html`<a href="/posts/me/${post.post_id}">Discard my text and load the current version</a>` : ''}</div>
</form>
<h2>Details</h2>
<form method="post" action="/posts/me/${post.post_id}/details" ${guard(state.details)}>
${detailsFields(state.details?.typed ?? { title: post.title, summary: post.summary, tags: post.tags.join(', '), lang: post.lang }, state.details?.problem)}
<div class="actions"><button type="submit">Save details</button></div>
</form>
${submittable
  ? html`<h2 id="publish">Publish</h2>
<p>A post needs a summary and an essay of at least 200 characters. ${autoPublish ? 'It is published as soon as it passes these checks.' : 'A moderator reviews it first.'} Submitting saves the essay in the editor first.</p>
${state.submit ? html`<p class="field-error" id="submit-problem">${state.submit}</p>` : ''}
<div class="actions"><button type="submit" form="essay-form" formaction="/posts/me/${post.post_id}/submit" class="primary"${state.submit ? raw(' aria-describedby="submit-problem"') : ''}>Submit for publication</button></div>`
  : ''}`;
}

/** A post's meta line in its language: who wrote it, when it was published (or its status), its votes. */
function postMeta(post: Post): SafeHtml {
  const { lang, author } = post;
  const when = post.published_at ? t(lang, 'post.published', { time: formatTime(post.published_at) }) : t(lang, `post.status.${post.status}`);
  return html`<p class="meta"><span>${t(lang, 'post.by', { name: author.display_name, handle: author.handle })}</span><span>${when}</span><span>${tn(lang, 'post.votes', post.votes)}</span></p>`;
}

/** /posts/<slug>: a post for readers, with the votes on its essay and its comments. */
function registerReaderPages(app: OpenAPIHono, deps: WebDeps, callApi: CallApi): void {
  const page = postPage(deps);
  const load = (c: Context, id: string) => loadPost(callApi, c, id);
  /** The vote form: count, whether you voted, the API's refusal (your own post, not published) shown in words. */
  async function voteControl(c: Context, post: Post, error?: string): Promise<SafeHtml> {
    const me = sessionUser(c);
    const votes = await callApi(c, 'GET', `/api/posts/${encodeURIComponent(post.post_id)}/essay/votes`);
    const count = votes.ok ? (votes.body.votes as number) : post.votes;
    const voted = votes.ok && votes.body.voted === true;
    const lang = post.lang;
    const doneKey = { voted: 'vote.counted', unvoted: 'vote.takenBack' } as const;
    const doneQuery = c.req.query('done');
    const done = doneQuery === 'voted' || doneQuery === 'unvoted' ? t(lang, doneKey[doneQuery]) : undefined;
    let control: SafeHtml;
    if (!me) {
      const link = html`<a href="/api/auth/idp/login?next=${encodeURIComponent(post.url)}">${t(lang, 'vote.signInLink')}</a>`;
      control = html`<p>${tHtml(lang, 'vote.signIn', { link })}</p>`;
    } else if (me.user.id === post.author.id) control = html`<p class="muted">${t(lang, 'vote.own')}</p>`;
    else {
      control = html`<form method="post" action="/posts/${post.slug}/vote">
<input type="hidden" name="action" value="${voted ? 'unvote' : 'vote'}">
<button type="submit" class="${voted ? '' : 'primary'}" aria-pressed="${voted ? 'true' : 'false'}">${t(lang, voted ? 'vote.unvote' : 'vote.vote')}</button>
</form>`;
    }
    return html`<section class="vote panel" aria-labelledby="vote-title" id="vote">
<h2 id="vote-title">${t(lang, 'vote.title')}</h2>
<p><strong id="vote-count">${tn(lang, 'vote.count', count)}</strong>${voted ? ` ${t(lang, 'vote.yours')}` : ''}</p>
${flash('ok', done)}${flash('error', error)}
${control}
</section>`;
  }

  app.post('/posts/:slug/vote', async (c) => {
    if (!sessionUser(c)) return signInRedirect(c);
    const slug = c.req.param('slug');
    const p = await callApi(c, 'GET', `/api/posts/${encodeURIComponent(slug)}`);
    if (!p.ok) return page(c, 'Post not found', `/posts/${slug}`, html`<h1>Post not found</h1><p>There is no published post at this address.</p>`, 404, undefined);
    const post = p.body as Post;
    const f = await c.req.parseBody();
    const unvote = f.action === 'unvote';
    const r = await callApi(c, unvote ? 'DELETE' : 'POST', `/api/posts/${encodeURIComponent(post.post_id)}/essay/vote`);
    if (r.ok) return seeOther(`/posts/${encodeURIComponent(post.slug)}?done=${unvote ? 'unvoted' : 'voted'}#vote`);
    // A refusal (your own post, a co-admin's, not published) is the post page again with the API's words.
    return readerPage(c, slug, { error: problem(r), status: r.status === 404 ? 404 : r.status === 429 ? 429 : 409 });
  });

  app.get('/posts/:slug', (c) => readerPage(c, c.req.param('slug')));

  async function readerPage(c: Context, slug: string, voteNotice?: { error: string; status: 404 | 409 | 429 }) {
    const loaded = await load(c, slug);
    if (!('post' in loaded)) {
      return page(c, 'Post not found', `/posts/${slug}`, html`<h1>Post not found</h1><p>There is no published post at this address.</p>`, 404, undefined);
    }
    const { post, essay } = loaded;
    const vote = post.status === 'published' ? await voteControl(c, post, voteNotice?.error) : '';
    const body = html`<article lang="${post.lang}">
<h1>${post.title}</h1>
${post.summary ? html`<p class="lede">${post.summary}</p>` : ''}
${postMeta(post)}
${post.tags.length ? html`<ul class="tags" aria-label="${t(post.lang, 'post.tags')}">${post.tags.map((t) => html`<li>${t}</li>`)}</ul>` : ''}
<div class="prose">${markdownToHtml(essay.body)}</div>
</article>
${vote}
${post.status === 'published' ? relatedSection('posts', post.post_id, post.title, post.lang) : ''}
${post.status === 'published' ? commentsSection('post', post.post_id, post.lang) : ''}`;
    return pageResponse(
      c,
      deps.config,
      { title: post.title, description: truncate(post.summary || post.title, 200), path: post.url, lang: post.lang, jsonTwin: post.api_url, ogType: 'article', noindex: post.status !== 'published', scripts: ['/assets/related.js', '/assets/comments.js'] },
      body,
      { status: voteNotice?.status },
    );
  }
}

/** What the details forms hold, as typed (tags as one line). */
interface DetailsValues {
  title: string;
  summary: string;
  tags: string;
  lang: 'en' | 'sl';
}
const NO_DETAILS: DetailsValues = { title: '', summary: '', tags: '', lang: 'en' };
const detailsFrom = (f: Record<string, unknown>): DetailsValues => ({ title: formText(f.title), summary: formText(f.summary), tags: formText(f.tags), lang: f.lang === 'sl' ? 'sl' : 'en' });
const detailsJson = (d: DetailsValues) => ({ title: d.title, summary: d.summary, tags: tagsFrom(d.tags), lang: d.lang });

/** Forms that hold typed text: leaving with unsaved changes asks first (public/assets/editor.js); a form
 * shown again after a refusal holds unsaved text from the start. */
const guard = (unsaved: unknown) => (unsaved ? raw('data-guard="unsaved"') : raw('data-guard'));

function detailsFields(p: DetailsValues, problem?: FormProblem): SafeHtml {
  const sel = (l: string) => (p.lang === l ? raw(' selected') : '');
  const f = DETAILS_FIELDS;
  return html`<label for="post-title">Title</label>
<input id="post-title" name="title" value="${p.title}" required minlength="3" maxlength="200"${fieldAttrs(f.title, problem, 'title')}>
${fieldNote(f.title, problem, 'title')}<label for="post-summary">Summary</label>
<textarea id="post-summary" name="summary" maxlength="1000"${fieldAttrs(f.summary, problem, 'summary')}>${p.summary}</textarea>
${fieldNote(f.summary, problem, 'summary')}<label for="post-tags">Tags</label>
<input id="post-tags" name="tags" value="${p.tags}"${fieldAttrs(f.tags, problem, 'tags', 'post-tags-help')}>
${fieldNote(f.tags, problem, 'tags')}<p id="post-tags-help" class="muted">Comma-separated, lower-case, e.g. “governance, agents”.</p>
<label for="post-lang">Language</label>
<select id="post-lang" name="lang"${fieldAttrs(f.lang, problem, 'lang')}><option value="en"${sel('en')}>English</option><option value="sl"${sel('sl')}>Slovenščina</option></select>
${fieldNote(f.lang, problem, 'lang')}`;
}
