// The author of a hidden comment is told (issue 43): a notification when a moderator hides it, and the
// comment stays in the list the author gets, marked hidden, while every other reader's list leaves it out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';

let srv: TestServer;
let send: Send;
let author: TestSession, reader: TestSession, mod: TestSession;
let videoId: string;

beforeAll(async () => {
  srv = await startTestServer({ env: { MODERATOR_EMAILS: 'mod@example.org' } });
  send = sender(srv);
  author = await sessionFor(srv, 'author@example.org', 'Ana Author');
  reader = await sessionFor(srv, 'reader@example.org', 'Rok Reader');
  mod = await sessionFor(srv, 'mod@example.org', 'Mia Moderator');
  videoId = (await (await send('/api/videos?limit=1')).json()).items[0].video_id;
});
afterAll(() => srv.stop());

const listed = async (as?: TestSession) =>
  (await (await send(`/api/comments?entity_type=video&entity_id=${videoId}`, as ? { as } : {})).json()).items as { comment_id: string; hidden: boolean }[];

describe('a hidden comment, for its author', () => {
  it('is listed to its author alone, marked hidden, the author is notified once, and it is back for everyone when shown again', async () => {
    const c = await (await send('/api/comments', { method: 'POST', as: author, json: { entity_type: 'video', entity_id: videoId, body: 'Buy my course at example.org!' } })).json();
    const visible = await (await send('/api/comments', { method: 'POST', as: reader, json: { entity_type: 'video', entity_id: videoId, body: 'A useful talk.' } })).json();
    expect((await send(`/api/comments/${c.comment_id}/hide`, { method: 'POST', as: mod })).status).toBe(200);

    expect((await listed(author)).map((x) => [x.comment_id, x.hidden])).toEqual([[c.comment_id, true], [visible.comment_id, false]]);
    expect((await listed(reader)).map((x) => x.comment_id)).toEqual([visible.comment_id]);
    expect((await listed()).map((x) => x.comment_id)).toEqual([visible.comment_id]);

    const told = (await (await send('/api/notifications', { as: author })).json()).items as { title: string; body: string; link: string; category: string }[];
    expect(told).toEqual([expect.objectContaining({ title: 'A moderator hid your comment', category: 'system', link: `/videos/${videoId}#comment-${c.comment_id}` })]);
    expect(told[0].body).toContain('Buy my course');
    expect((await (await send('/api/notifications', { as: reader })).json()).total).toBe(0);

    // Shown again: listed to everyone, and no second notification.
    expect((await send(`/api/comments/${c.comment_id}/unhide`, { method: 'POST', as: mod })).status).toBe(200);
    expect((await (await send('/api/notifications', { as: author })).json()).total).toBe(1);
    expect((await listed(reader)).map((x) => x.comment_id)).toContain(c.comment_id);
  });
});
