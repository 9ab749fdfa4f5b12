// @ts-check
// Comments under an item (section.comments[data-entity-type][data-entity-id]): the thread with replies
// and reactions from /api/comments, and, for people signed in, forms to comment and reply, buttons to
// react, to edit or delete their own comments and, for moderators, to hide a comment, show it again or
// delete it. The API decides what is allowed (the same rules and CSRF check as for any client); the
// buttons only appear where it would say yes. Everything people wrote is set as text, never as HTML.
import { api, el, errorMessage, formatDate, whoAmI } from './api.js';

const REACTIONS = /** @type {const} */ ([
  ['like', '👍', 'Like'],
  ['insightful', '💡', 'Insightful'],
  ['agree', '✔', 'Agree'],
  ['disagree', '✘', 'Disagree'],
  ['question', '❓', 'Question'],
]);

/**
 * @typedef {{ comment_id: string, parent_id: string | null, author: { id: string, display_name: string, handle: string } | null,
 *   body: string, hidden: boolean, deleted: boolean, edited: boolean, reactions: Record<string, number>, created_at: string }} Comment
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
    list.replaceChildren(el('p', {}, 'The comments could not be loaded.'));
    return;
  }
  /** @type {Comment[]} */
  const comments = page.body.items;
  const thread = el('ol', { class: 'thread list' });
  /** @type {Map<string, HTMLElement>} */
  const replyLists = new Map();
  const empty = el('p', { class: 'muted' }, 'No comments yet.');

  /** @param {string} text */
  const say = (text) => {
    status.textContent = text;
  };

  /** @param {Comment} c */
  function headerOf(c) {
    const who = c.author ? el('span', {}, el('strong', {}, c.author.display_name), ` @${c.author.handle}`) : el('span', {}, 'Deleted');
    return el(
      'header',
      {},
      who,
      ' · ',
      el('time', { datetime: c.created_at }, formatDate(c.created_at)),
      c.edited && !c.deleted ? ' · edited' : '',
      c.hidden && !c.deleted ? el('span', { class: 'flag' }, ' · hidden from readers') : '',
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
    const bar = el('div', { class: 'comment-tools', role: 'group', 'aria-label': 'Comment actions' });
    const id = encodeURIComponent(c.comment_id);
    if (own) {
      const edit = el('button', { type: 'button', class: 'link', 'aria-expanded': 'false' }, 'Edit');
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
          el('label', { for: fieldId }, 'Edit your comment'),
          text,
          el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary' }, 'Save'), el('button', { type: 'button', 'data-cancel': '' }, 'Cancel')),
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
          if (!r.ok) return say(errorMessage(r));
          refresh(node, { ...c, ...r.body });
          say('Your comment is updated.');
        });
        bar.after(form);
        text.focus();
      });
      bar.append(edit);
    }
    if (moderator) {
      const hide = el('button', { type: 'button', class: 'link' }, c.hidden ? 'Show again' : 'Hide');
      hide.addEventListener('click', async () => {
        hide.disabled = true;
        const r = await api(`/api/comments/${id}/${c.hidden ? 'unhide' : 'hide'}`, { method: 'POST' });
        hide.disabled = false;
        if (!r.ok) return say(errorMessage(r));
        refresh(node, { ...c, ...r.body });
        say(r.body.hidden ? 'The comment is hidden from readers.' : 'The comment is shown again.');
      });
      bar.append(hide);
    }
    const remove = el('button', { type: 'button', class: 'link danger' }, 'Delete');
    remove.addEventListener('click', async () => {
      if (!confirm(own ? 'Delete your comment? This cannot be undone.' : 'Delete this comment? This cannot be undone.')) return;
      remove.disabled = true;
      const r = await api(`/api/comments/${id}`, { method: 'DELETE' });
      remove.disabled = false;
      if (!r.ok) return say(errorMessage(r));
      refresh(node, { ...c, deleted: true, body: '' });
      say('The comment is deleted.');
    });
    bar.append(remove);
    return bar;
  }

  /**
   * Redraws a comment in place after an edit, a hide or a delete; its replies stay.
   * @param {HTMLElement} node
   * @param {Comment} c
   */
  function refresh(node, c) {
    const replies = replyLists.get(c.comment_id);
    const fresh = commentNode(c);
    const freshReplies = fresh.querySelector(':scope > .replies');
    if (replies && freshReplies) freshReplies.replaceWith(replies);
    replyLists.set(c.comment_id, /** @type {HTMLElement} */ (replies ?? freshReplies));
    node.replaceWith(fresh);
  }

  /** @param {Comment} c */
  function commentNode(c) {
    const node = el(
      'li',
      { class: c.hidden && !c.deleted ? 'comment is-hidden' : 'comment', id: `comment-${c.comment_id}` },
      headerOf(c),
      el('p', { class: 'body' }, c.deleted ? 'This comment was deleted.' : c.body),
    );
    // The author's own hidden comment (the API lists it to them alone): told so, with nothing to act on.
    if (c.hidden && !c.deleted && !moderator) {
      node.append(el('p', { class: 'note', role: 'note' }, 'A moderator hid this comment. Only you can see it here; other readers do not.'));
      return node;
    }
    if (!c.deleted) node.append(reactions(c));
    const bar = tools(c, node);
    if (bar) node.append(bar);
    if (user && !c.deleted && !c.parent_id) {
      const reply = el('button', { type: 'button', class: 'link', 'aria-expanded': 'false' }, 'Reply');
      reply.addEventListener('click', () => {
        const open = node.querySelector(':scope > form');
        if (open) {
          open.remove();
          reply.setAttribute('aria-expanded', 'false');
          return;
        }
        reply.setAttribute('aria-expanded', 'true');
        const form = composer(`Reply to ${c.author?.display_name ?? 'this comment'}`, 'Post reply', c.comment_id);
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
    const group = el('div', { class: 'reactions', role: 'group', 'aria-label': 'Reactions' });
    for (const [kind, icon, label] of REACTIONS) {
      const count = el('span', { class: 'count' }, String(c.reactions[kind] ?? 0));
      if (!user) {
        group.append(el('span', { class: 'muted' }, el('span', { 'aria-hidden': 'true' }, icon), ` ${label} `, count));
        continue;
      }
      // Whether this person reacted already is not in the list; the answer of the first click tells.
      const button = el('button', { type: 'button', 'aria-pressed': 'false', 'data-kind': kind }, el('span', { 'aria-hidden': 'true' }, icon), ` ${label} `, count);
      button.addEventListener('click', async () => {
        const pressed = button.getAttribute('aria-pressed') === 'true';
        button.disabled = true;
        const r = pressed
          ? await api(`/api/comments/${encodeURIComponent(c.comment_id)}/react/${kind}`, { method: 'DELETE' })
          : await api(`/api/comments/${encodeURIComponent(c.comment_id)}/react`, { method: 'POST', json: { kind } });
        button.disabled = false;
        if (!r.ok) return say(errorMessage(r));
        for (const b of group.querySelectorAll('button[data-kind]')) {
          const k = /** @type {HTMLElement} */ (b).dataset.kind ?? '';
          b.setAttribute('aria-pressed', String(r.body.mine.includes(k)));
          const n = b.querySelector('.count');
          if (n) n.textContent = String(r.body.counts[k] ?? 0);
        }
      });
      group.append(button);
    }
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
    const text = el('textarea', { id, name: 'body', required: true, maxlength: '10000', rows: '4' });
    const form = el('form', { class: 'comment-form' }, el('label', { for: id }, labelText), text, el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary' }, buttonText)));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = text.value.trim();
      if (!body) return;
      const button = /** @type {HTMLButtonElement} */ (form.querySelector('button[type=submit]'));
      button.disabled = true;
      const r = await api('/api/comments', { method: 'POST', json: { entity_type: entityType, entity_id: entityId, body, ...(parentId ? { parent_id: parentId } : {}) } });
      button.disabled = false;
      if (!r.ok) return say(errorMessage(r));
      const node = commentNode(r.body);
      empty.remove();
      if (parentId) {
        replyLists.get(parentId)?.append(node);
        form.remove();
      } else {
        thread.append(node);
        text.value = '';
      }
      say(parentId ? 'Your reply is posted.' : 'Your comment is posted.');
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
    ? composer('Add a comment', 'Post comment', null)
    : el('p', {}, el('a', { href: `/api/auth/idp/login?next=${encodeURIComponent(`${location.pathname}#comments`)}` }, 'Sign in'), ' to comment and react.');
  list.after(after);
}
