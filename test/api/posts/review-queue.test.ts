// The moderators' review queue with POSTS_AUTO_PUBLISH=false: a submitted post is listed by
// GET /api/moderation/posts (moderators only: 401 before 422, 403 for others) and every moderator is
// notified of it; publishing it or sending it back (review with a note) takes it off the queue and tells
// the author, with the note.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';

let srv: TestServer;
let send: Send;
let author: TestSession, reader: TestSession, mod: TestSession, admin: TestSession;
const ESSAY = 'A post essay long enough to be submitted: queues, reviews and the people who keep them moving. '.repeat(3);

beforeAll(async () => {
  srv = await startTestServer({ env: { POSTS_AUTO_PUBLISH: 'false', MODERATOR_EMAILS: 'mod@example.org', ADMIN_EMAILS: 'admin@example.org', WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
  send = sender(srv);
  mod = await sessionFor(srv, 'mod@example.org', 'Mia Moderator');
  admin = await sessionFor(srv, 'admin@example.org', 'Ada Admin');
  author = await sessionFor(srv, 'author@example.org', 'Ana Author');
  reader = await sessionFor(srv, 'reader@example.org', 'Rok Reader');
});
afterAll(() => srv.stop());

const submitted = async (title: string) => {
  const post = await (await send('/api/posts', { method: 'POST', as: author, json: { title, summary: `${title}, in one line.`, body: ESSAY } })).json();
  const res = await send(`/api/posts/${post.post_id}/submit`, { method: 'POST', as: author });
  expect(res.status).toBe(202);
  expect((await res.json()).status).toBe('submitted');
  return post as { post_id: string; slug: string };
};
const queue = async () => (await (await send('/api/moderation/posts', { as: mod })).json()) as { total: number; items: { post_id: string; status: string; title: string }[] };
const notes = async (as: TestSession) => (await (await send('/api/notifications?limit=200', { as })).json()).items as { title: string; body: string; link: string | null; subject_id: string }[];

describe('the review queue of submitted posts', () => {
  it('answers 401 before 422 to anyone signed out, 403 to people who are not moderators, 422 to a bad limit', async () => {
    expect((await send('/api/moderation/posts?limit=0')).status).toBe(401);
    expect((await send('/api/moderation/posts', { as: reader })).status).toBe(403);
    expect((await send('/api/moderation/posts?limit=0', { as: mod })).status).toBe(422);
  });

  it('lists the submitted posts and tells every moderator and admin about each', async () => {
    const first = await submitted('Queues before agents');
    const second = await submitted('Review rotations that last');
    const q = await queue();
    expect(q.items.map((p) => p.post_id)).toEqual(expect.arrayContaining([first.post_id, second.post_id]));
    expect(q.total).toBe(q.items.length);
    expect(q.items.every((p) => p.status === 'submitted')).toBe(true);
    for (const who of [mod, admin]) {
      const told = (await notes(who)).filter((n) => n.subject_id === first.post_id);
      expect(told).toEqual([expect.objectContaining({ title: '“Queues before agents” waits for review', link: '/moderation#posts-title' })]);
    }
    expect((await notes(reader)).length).toBe(0);
    expect((await notes(author)).filter((n) => n.subject_id === first.post_id)).toEqual([]);
  });

  it('publishing one and sending another back takes them off the queue and tells the author, with the reason', async () => {
    const first = await submitted('Agents after queues');
    const second = await submitted('Rotations that last');
    expect((await send(`/api/posts/${first.post_id}/review`, { method: 'POST', as: mod, json: { action: 'publish' } })).status).toBe(200);
    const back = await send(`/api/posts/${second.post_id}/review`, { method: 'POST', as: mod, json: { action: 'reject', note: 'Please cite the study you mention.' } });
    expect(back.status).toBe(200);
    expect((await back.json()).status).toBe('rejected');
    const left = (await queue()).items.map((p) => p.post_id);
    expect(left).not.toContain(first.post_id);
    expect(left).not.toContain(second.post_id);
    const told = await notes(author);
    expect(told.find((n) => n.subject_id === first.post_id)?.title).toBe('Your post “Agents after queues” is published');
    expect(told.find((n) => n.subject_id === second.post_id)).toMatchObject({ title: 'Your post “Rotations that last” was not published', body: 'Please cite the study you mention.' });
  });

  it('does not notify moderators when auto-publish publishes at once', async () => {
    const auto = await startTestServer({ env: { MODERATOR_EMAILS: 'mod@example.org' } });
    try {
      const s = sender(auto);
      const m = await sessionFor(auto, 'mod@example.org');
      const a = await sessionFor(auto, 'author@example.org');
      const post = await (await s('/api/posts', { method: 'POST', as: a, json: { title: 'Published at once', summary: 'One line.', body: ESSAY } })).json();
      expect((await (await s(`/api/posts/${post.post_id}/submit`, { method: 'POST', as: a })).json()).status).toBe('published');
      expect((await (await s('/api/notifications', { as: m })).json()).total).toBe(0);
      expect((await (await s('/api/moderation/posts', { as: m })).json()).total).toBe(0);
    } finally {
      await auto.stop();
    }
  });
});
