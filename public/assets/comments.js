// @ts-check
// Comments under an item (section.comments[data-entity-type][data-entity-id]): the thread with replies
// and reactions from /api/comments, and, for people signed in, forms to comment and reply, buttons to
// react, to edit or delete their own comments and, for moderators, to hide a comment, show it again or
// delete it. The API decides what is allowed (the same rules and CSRF check as for any client); the
// buttons only appear where it would say yes. Everything people wrote is set as text, never as HTML.
// After a write, focus goes to the comment it concerns and the status line says what happened; a link to
// one comment (#comment-<id>, as notifications give) lands on it once the thread is there.
import { api, el, errorMessage, formatDate, msg, msgWithLink, whoAmI } from './api.js';

/**
 * How sentences name a comment's text (public/assets/sentences.js). English, as the sentences around it
 * are: sentences.js words the API's refusals in English on every page.
 */
const WORDS = { body: { name: 'your comment' } };

// Their names are the catalogue's reaction.* strings.
const REACTIONS = /** @type {const} */ ([
  ['like', '👍'],
  ['insightful', '💡'],
  ['agree', '✔'],
  ['disagree', '✘'],
  ['question', '❓'],
]);

/**
 * @typedef {{ comment_id: string, parent_id: string | null, author: { id: string, display_name: string, handle: string } | null,
 *   body: string, hidden: boolean, deleted: boolean, edited: boolean, reactions: Record<string, number>, mine?: string[], created_at: string }} Comment
 */

for (const section of document.querySelectorAll('section.comments[data-entity-type]')) void start(/** @type {HTMLElement} */ (section));

/** @param {HTMLElement} section */
async function start(section) {
  const entityType = section.dataset.entityType ?? '';
  const entityId = section.dataset.entityId ?? '';
  const list = /** @type {HTMLElement} */ (section.querySelector('.comment-list'));
  const status = el('p', { role: 'status', class: 'comment-status' });
  list.after(status);
  const user = await whoAmI();
  const moderator = !!user && user.role !== 'user';
  // Moderators see hidden comments too, marked as such, so they can show them again.
  const query = new URLSearchParams({ entity_type: entityType, entity_id: entityId, limit: '200', ...(moderator ? { include_hidden: 'true' } : {}) });
  const page = await api(`/api/comments?${query}`);
  if (!page.ok) {
    list.replaceChildren(el('p', {}, msg('comments.loadFailed')));
    return;
  }
  /** @type {Comment[]} */
  const comments = page.body.items;
  const thread = el('ol', { class: 'thread list' });
  /** @type {Map<string, HTMLElement>} */
  const replyLists = new Map();
  const empty = el('p', { class: 'muted' }, msg('comments.empty'));

  /** @param {string} text */
  const say = (text) => {
    status.textContent = text;
  };

  /**
   * A refused comment: the sentence under its text box (which keeps the text) and in the status line;
   * null clears it. The box's other descriptions (the composer's hint) stay.
   * @param {HTMLTextAreaElement} text
   * @param {string | null} problem
   */
  function fieldProblem(text, problem) {
    const id = `${text.id}-error`;
    document.getElementById(id)?.remove();
    const others = (text.getAttribute('aria-describedby') ?? '').split(' ').filter((d) => d && d !== id);
    text.removeAttribute('aria-invalid');
    if (others.length) text.setAttribute('aria-describedby', others.join(' '));
    else text.removeAttribute('aria-describedby');
    if (!problem) return;
    text.after(el('p', { class: 'field-error', id }, problem));
    text.setAttribute('aria-invalid', 'true');
    text.setAttribute('aria-describedby', [...others, id].join(' '));
    say(problem);
  }

  /**
   * Focus on a comment after a write (keyboard users would otherwise be sent to the top of the page when
   * the control they used goes away).
   * @param {HTMLElement} node
   */
  const focusOn = (node) => {
    node.tabIndex = -1;
    node.focus();
  };

  /** @param {Comment} c */
  function headerOf(c) {
    const who = c.author ? el('span', {}, el('strong', {}, c.author.display_name), ` @${c.author.handle}`) : el('span', {}, msg('comments.deletedAuthor'));
    return el(
      'header',
      {},
      who,
      ' · ',
      el('time', { datetime: c.created_at }, formatDate(c.created_at)),
      c.edited && !c.deleted ? ` · ${msg('comments.edited')}` : '',
      c.hidden && !c.deleted ? el('span', { class: 'flag' }, ` · ${msg('comments.hiddenFlag')}`) : '',
    );
  }

  /**
   * Edit and delete for the author; hide or show again and delete for moderators.
   * @param {Comment} c
   * @param {HTMLElement} node
   */
  function tools(c, node) {
    const own = !!user && c.author?.id === user.id;
    if (!user || c.deleted || (!own && !moderator)) return null;
    const bar = el('div', { class: 'comment-tools', role: 'group', 'aria-label': msg('comments.actions') });
    const id = encodeURIComponent(c.comment_id);
    if (own) {
      const edit = el('button', { type: 'button', class: 'link', 'aria-expanded': 'false' }, msg('comments.edit'));
      edit.addEventListener('click', () => {
        const open = node.querySelector(':scope > form.edit-form');
        if (open) {
          open.remove();
          edit.setAttribute('aria-expanded', 'false');
          return;
        }
        edit.setAttribute('aria-expanded', 'true');
        const fieldId = `comment-edit-${c.comment_id}`;
        const text = el('textarea', { id: fieldId, name: 'body', required: true, maxlength: '10000', rows: '4' });
        text.value = c.body;
        const form = el(
          'form',
          { class: 'comment-form edit-form' },
          el('label', { for: fieldId }, msg('comments.editLabel')),
          text,
          el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary' }, msg('comments.save')), el('button', { type: 'button', 'data-cancel': '' }, msg('comments.cancel'))),
        );
        form.querySelector('[data-cancel]')?.addEventListener('click', () => {
          form.remove();
          edit.setAttribute('aria-expanded', 'false');
          edit.focus();
        });
        form.addEventListener('submit', async (e) => {
          e.preventDefault();
          const body = text.value.trim();
          if (!body) return;
          const r = await api(`/api/comments/${id}`, { method: 'PATCH', json: { body } });
          if (!r.ok) return fieldProblem(text, errorMessage(r, WORDS));
          focusOn(refresh(node, { ...c, ...r.body }));
          say(msg('comments.updated'));
        });
        bar.after(form);
        text.focus();
      });
      bar.append(edit);
    }
    if (moderator) {
      const hide = el('button', { type: 'button', class: 'link' }, msg(c.hidden ? 'comments.show' : 'comments.hide'));
      hide.addEventListener('click', async () => {
        hide.disabled = true;
        const r = await api(`/api/comments/${id}/${c.hidden ? 'unhide' : 'hide'}`, { method: 'POST' });
        hide.disabled = false;
        if (!r.ok) return say(errorMessage(r));
        focusOn(refresh(node, { ...c, ...r.body }));
        say(msg(r.body.hidden ? 'comments.hidden' : 'comments.shown'));
      });
      bar.append(hide);
    }
    const remove = el('button', { type: 'button', class: 'link danger' }, msg('comments.delete'));
    remove.addEventListener('click', async () => {
      if (!confirm(msg(own ? 'comments.confirmDeleteOwn' : 'comments.confirmDelete'))) return;
      remove.disabled = true;
      const r = await api(`/api/comments/${id}`, { method: 'DELETE' });
      remove.disabled = false;
      if (!r.ok) return say(errorMessage(r));
      focusOn(refresh(node, { ...c, deleted: true, body: '' }));
      say(msg('comments.deleted'));
    });
    bar.append(remove);
    return bar;
  }

  /**
   * Redraws a comment in place after an edit, a hide or a delete; its replies stay.
   * @param {HTMLElement} node
   * @param {Comment} c
   * @returns {HTMLElement} the new node
   */
  function refresh(node, c) {
    const replies = replyLists.get(c.comment_id);
    const fresh = commentNode(c);
    const freshReplies = fresh.querySelector(':scope > .replies');
    if (replies && freshReplies) freshReplies.replaceWith(replies);
    replyLists.set(c.comment_id, /** @type {HTMLElement} */ (replies ?? freshReplies));
    node.replaceWith(fresh);
    return fresh;
  }

  /** @param {Comment} c */
  function commentNode(c) {
    const node = el(
      'li',
      { class: c.hidden && !c.deleted ? 'comment is-hidden' : 'comment', id: `comment-${c.comment_id}` },
      headerOf(c),
      el('p', { class: 'body' }, c.deleted ? msg('comments.deletedBody') : c.body),
    );
    // The author's own hidden comment (the API lists it to them alone): told so, with nothing to act on.
    if (c.hidden && !c.deleted && !moderator) {
      node.append(el('p', { class: 'note', role: 'note' }, msg('comments.hiddenNote')));
      return node;
    }
    if (!c.deleted) node.append(reactions(c));
    const bar = tools(c, node);
    if (bar) node.append(bar);
    if (user && !c.deleted && !c.parent_id) {
      const reply = el('button', { type: 'button', class: 'link', 'aria-expanded': 'false' }, msg('comments.reply'));
      reply.addEventListener('click', () => {
        const open = node.querySelector(':scope > form');
        if (open) {
          open.remove();
          reply.setAttribute('aria-expanded', 'false');
          return;
        }
        reply.setAttribute('aria-expanded', 'true');
        const form = composer(c.author ? msg('comments.replyTo', { name: c.author.display_name }) : msg('comments.replyToThis'), msg('comments.postReply'), c.comment_id);
        reply.after(form);
        form.querySelector('textarea')?.focus();
      });
      node.append(reply);
    }
    const replies = el('ol', { class: 'replies list' });
    replyLists.set(c.comment_id, replies);
    node.append(replies);
    return node;
  }

  /** @param {Comment} c */
  function reactions(c) {
    const group = el('div', { class: 'reactions', role: 'group', 'aria-label': msg('comments.reactions') });
    if (!user) {
      for (const [kind, icon] of REACTIONS) {
        group.append(el('span', { class: 'muted' }, el('span', { 'aria-hidden': 'true' }, icon), ` ${msg(`reaction.${kind}`)} `, el('span', { class: 'count' }, String(c.reactions[kind] ?? 0))));
      }
      return group;
    }
    // `held`: this person's reactions as the server last said (the list's `mine`, then each answer);
    // `wanted`: as their clicks left them. A click flips `wanted` at once, and requests go one at a time
    // until the server holds what is wanted: a second click takes the reaction back, a double click ends
    // where it began, and no click is lost while a request is under way.
    let held = new Set(c.mine ?? []);
    let counts = { ...c.reactions };
    const wanted = new Set(held);
    let sending = false;
    const show = () => {
      for (const b of group.querySelectorAll('button[data-kind]')) {
        const k = /** @type {HTMLElement} */ (b).dataset.kind ?? '';
        b.setAttribute('aria-pressed', String(wanted.has(k)));
        const n = b.querySelector('.count');
        if (n) n.textContent = String((counts[k] ?? 0) + Number(wanted.has(k)) - Number(held.has(k)));
      }
    };
    const differing = () => REACTIONS.map(([k]) => k).find((k) => wanted.has(k) !== held.has(k));
    async function sync() {
      if (sending) return;
      sending = true;
      const id = encodeURIComponent(c.comment_id);
      // Each answer sets `held`; the bound only stops a runaway loop should the server not keep a change.
      for (let k = differing(), tries = 0; k && tries < 20; k = differing(), tries++) {
        const r = wanted.has(k) ? await api(`/api/comments/${id}/react`, { method: 'POST', json: { kind: k } }) : await api(`/api/comments/${id}/react/${k}`, { method: 'DELETE' });
        if (!r.ok) {
          say(errorMessage(r));
          wanted.clear();
          for (const h of held) wanted.add(h);
          break;
        }
        held = new Set(r.body.mine);
        counts = r.body.counts;
        show();
      }
      sending = false;
      show();
    }
    for (const [kind, icon] of REACTIONS) {
      const button = el('button', { type: 'button', 'aria-pressed': 'false', 'data-kind': kind }, el('span', { 'aria-hidden': 'true' }, icon), ` ${msg(`reaction.${kind}`)} `, el('span', { class: 'count' }));
      button.addEventListener('click', () => {
        if (wanted.has(kind)) wanted.delete(kind);
        else wanted.add(kind);
        show();
        void sync();
      });
      group.append(button);
    }
    show();
    return group;
  }

  /**
   * A form to write a comment or a reply.
   * @param {string} labelText
   * @param {string} buttonText
   * @param {string | null} parentId
   */
  function composer(labelText, buttonText, parentId) {
    const id = `comment-text-${parentId ?? 'new'}`;
    const text = el('textarea', { id, name: 'body', required: true, maxlength: '10000', rows: '4', 'aria-describedby': `${id}-hint` });
    const form = el(
      'form',
      { class: 'comment-form' },
      el('label', { for: id }, labelText),
      text,
      el('p', { id: `${id}-hint`, class: 'muted hint' }, msg('comments.mentionHint')),
      el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary' }, buttonText)),
    );
    // Not `disabled` while sending: a disabled button loses focus, and keyboard users land at the top.
    let sending = false;
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = text.value.trim();
      if (!body || sending) return;
      const button = /** @type {HTMLButtonElement} */ (form.querySelector('button[type=submit]'));
      sending = true;
      button.setAttribute('aria-disabled', 'true');
      const r = await api('/api/comments', { method: 'POST', json: { entity_type: entityType, entity_id: entityId, body, ...(parentId ? { parent_id: parentId } : {}) } });
      sending = false;
      button.removeAttribute('aria-disabled');
      if (!r.ok) return fieldProblem(text, errorMessage(r, WORDS));
      fieldProblem(text, null);
      const node = commentNode(r.body);
      empty.remove();
      if (parentId) {
        replyLists.get(parentId)?.append(node);
        form.previousElementSibling?.setAttribute('aria-expanded', 'false');
        form.remove();
      } else {
        thread.append(node);
        text.value = '';
      }
      focusOn(node);
      say(msg(parentId ? 'comments.replyPosted' : 'comments.posted'));
    });
    return form;
  }

  for (const c of comments) {
    const node = commentNode(c);
    const parent = c.parent_id ? replyLists.get(c.parent_id) : undefined;
    (parent ?? thread).append(node);
  }
  list.replaceChildren(thread);
  if (!comments.length) list.prepend(empty);
  const after = user
    ? composer(msg('comments.add'), msg('comments.post'), null)
    : el('p', {}, ...msgWithLink('comments.signIn', el('a', { href: `/api/auth/idp/login?next=${encodeURIComponent(`${location.pathname}#comments`)}` }, msg('comments.signInLink'))));
  list.after(after);
  land();
}

/**
 * A link to one comment (#comment-<id>) found nothing when the page loaded: the thread came later. Now
 * that it is there, navigate to the fragment again, so the browser scrolls to the comment and it matches
 * :target.
 */
function land() {
  if (!location.hash.startsWith('#comment-') || !document.getElementById(decodeURIComponent(location.hash.slice(1)))) return;
  const url = location.href;
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  location.replace(url);
}
