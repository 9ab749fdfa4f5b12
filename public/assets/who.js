// @ts-check
// The header of a prerendered page says "Account" because the file cannot know its reader. For a person
// signed in (a browser session), this swaps that link for what the server's own pages show: notifications
// with the unread count, the person's posts, moderation for moderators, the person's name, and a sign-out
// button (a form post to /signout, which the CSRF rule accepts like any form on this site). Nothing
// changes for anyone else.
import { api, el, msg, whoAmI } from './api.js';

const who = document.querySelector('header.site .who');
if (who) void fill(/** @type {HTMLElement} */ (who));

/** @param {HTMLElement} who */
async function fill(who) {
  const me = await whoAmI();
  if (!me) return;
  const unread = await api('/api/notifications/unread');
  const count = unread.ok && typeof unread.body?.unread === 'number' ? unread.body.unread : 0;
  const here = location.pathname;
  /** @param {string} href */
  const current = (href) => (here === href ? 'page' : undefined);
  const notifications = el(
    'a',
    { href: '/notifications', 'aria-current': current('/notifications') },
    msg('who.notifications'),
    count > 0 ? ' ' : null,
    count > 0 ? el('span', { class: 'badge' }, String(count), el('span', { class: 'visually-hidden' }, ` ${msg('who.unread', { n: count })}`)) : null,
  );
  const signOut = el('form', { method: 'post', action: '/signout' }, el('button', { type: 'submit', class: 'link' }, msg('who.signOut')));
  who.replaceChildren(
    notifications,
    el('a', { href: '/posts/me', 'aria-current': current('/posts/me') }, msg('who.posts')),
    me.role !== 'user' ? el('a', { href: '/moderation' }, msg('who.moderation')) : '',
    el('a', { href: '/account', 'aria-current': current('/account'), title: `@${me.handle}` }, me.display_name || `@${me.handle}`),
    signOut,
  );
  who.dataset.signedIn = me.handle;
}
