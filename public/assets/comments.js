// @ts-check
// Comments under an item (section.comments[data-entity-type][data-entity-id]): the thread with replies
// and reactions from /api/comments, and, for people signed in, forms to comment and reply and buttons to
// react. Everything people wrote is set as text, never as HTML.
import { api, el, errorMessage, formatDate } from './api.js';

const REACTIONS = /** @type {const} */ ([
  ['like', '👍', 'Like'],
  ['insightful', '💡', 'Insightful'],
  ['agree', '✔', 'Agree'],
  ['disagree', '✘', 'Disagree'],
  ['question', '❓', 'Question'],
]);

/**
 * @typedef {{ comment_id: string, parent_id: string | null, author: { display_name: string, handle: string } | null,
 *   body: string, hidden: boolean, deleted: boolean, edited: boolean, reactions: Record<string, number>, created_at: string }} Comment
 * @typedef {{ handle: string, display_name: string }} Me
 */

for (const section of document.querySelectorAll('section.comments[data-entity-type]')) void start(/** @type {HTMLElement} */ (section));

/** @param {HTMLElement} section */
async function start(section) {
  const entityType = section.dataset.entityType ?? '';
  const entityId = section.dataset.entityId ?? '';
  const list = /** @type {HTMLElement} */ (section.querySelector('.comment-list'));
  const status = el('p', { role: 'status', class: 'comment-status' });
  list.after(status);
  const query = new URLSearchParams({ entity_type: entityType, entity_id: entityId, limit: '200' });
  const [me, page] = await Promise.all([api('/api/auth/me'), api(`/api/comments?${query}`)]);
  /** @type {Me | null} */
  const user = me.ok && me.body?.authenticated ? me.body.user : null;
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
  function commentNode(c) {
    const who = c.author ? el('span', {}, el('strong', {}, c.author.display_name), ` @${c.author.handle}`) : el('span', {}, 'Deleted');
    const node = el(
      'li',
      { class: 'comment', id: `comment-${c.comment_id}` },
      el('header', {}, who, ' · ', el('time', { datetime: c.created_at }, formatDate(c.created_at)), c.edited ? ' · edited' : ''),
      el('p', { class: 'body' }, c.deleted ? 'This comment was deleted.' : c.body),
    );
    if (!c.deleted) node.append(reactions(c));
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
