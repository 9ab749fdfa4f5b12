// Comments carry a version (issue 42, items 5 and 6): every create answers 201 with Location and the new
// comment's ETag (POST and the GET alias), GET and PATCH give the ETag, and If-Match on PATCH and DELETE is
// honoured with the strong comparison: a stale or weak ETag writes nothing and answers 412 with the
// comment as it is now, its ETag and a hint.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor, sessionFor, type TestSession } from '../../helpers/auth.ts';
import { identity, sender, type Send } from '../../helpers/http.ts';
import { fixtureContent } from '../../helpers/content.ts';

const video = loadSnapshot(fixtureContent()).videos[0].video_id;
let srv: TestServer;
let send: Send;
let ana: TestSession, bor: TestSession, mod: TestSession;

beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { MODERATOR_EMAILS: 'mod@example.org', WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
  send = sender(srv);
  ana = await sessionFor(srv, 'ana@example.org', 'Ana');
  bor = await sessionFor(srv, 'bor@example.org', 'Bor');
  mod = await sessionFor(srv, 'mod@example.org', 'Moderator');
});
afterAll(() => srv.stop());

interface Comment {
  comment_id: string;
  body: string;
  etag: string;
}

async function created(res: Response): Promise<{ comment: Comment; etag: string; location: string }> {
  const comment = (await res.json()) as Comment;
  expect(res.status, JSON.stringify(comment)).toBe(201);
  const etag = res.headers.get('etag')!;
  expect(etag).toMatch(/^"[^"]+"$/); // strong
  expect(identity(etag)).toBe(comment.etag);
  return { comment, etag, location: res.headers.get('location')! };
}
const post = (as: TestSession, body: string) => send('/api/comments', { method: 'POST', as, json: { entity_type: 'video', entity_id: video, body } });
const patch = (id: string, body: string, ifMatch?: string, as = ana) => send(`/api/comments/${id}`, { method: 'PATCH', as, json: { body }, headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch } });
const stored = async (id: string) => (await srv.db.prepare('SELECT body, deleted_at FROM comments WHERE id = ?').get(id)) as { body: string; deleted_at: string | null };
const audited = async (kind: string, id: string) => (await srv.db.prepare('SELECT COUNT(*) FROM audit_events WHERE kind = ? AND subject_id = ?').pluck().get(kind, id)) as number;

async function stale(res: Response, id: string, body: string) {
  const answer = (await res.json()) as { detail: string; hint: string; current: Comment };
  expect(res.status, JSON.stringify(answer)).toBe(412);
  expect(answer.current).toMatchObject({ comment_id: id, body });
  expect(identity(res.headers.get('etag'))).toBe(answer.current.etag);
  expect(answer.hint).toContain(`If-Match: ${answer.current.etag}`);
  return answer.current.etag;
}

describe('creating a comment', () => {
  it('answers 201 with the Location of the new comment and its ETag, which GET there repeats', async () => {
    const { comment, etag, location } = await created(await post(ana, 'A comment with a home.'));
    expect(location).toBe(`${srv.url}/api/comments/${comment.comment_id}`);
    const there = await fetch(location);
    expect(there.status).toBe(200);
    expect(there.headers.get('etag')).toBe(etag);
    expect(await there.json()).toMatchObject({ comment_id: comment.comment_id, body: 'A comment with a home.', etag });
  });

  it('does the same through GET /api/comments/create; its replay names the same comment and version', async () => {
    const key = await bearerFor(srv, bor.userId);
    const url = `/api/comments/create?entity_type=video&entity_id=${video}&body=${encodeURIComponent('From a sandbox, versioned')}&idempotency_key=${randomUUID()}`;
    const { comment, etag, location } = await created(await send(url, { headers: key.headers }));
    expect(location).toBe(`${srv.url}/api/comments/${comment.comment_id}`);
    const replay = await send(url, { headers: key.headers });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('etag')).toBe(etag);
    expect(replay.headers.get('content-location')).toBe(location);
    // The sandbox edits it at once, with the ETag the create gave.
    const edited = await send(`/api/comments/${comment.comment_id}`, { method: 'PATCH', headers: { ...key.headers, 'Content-Type': 'application/json', 'If-Match': etag }, body: JSON.stringify({ body: 'Edited from a sandbox' }) });
    expect(edited.status).toBe(200);
  });
});

describe('If-Match on PATCH', () => {
  it('refuses a bogus ETag with 412, the current comment and its ETag, and writes nothing', async () => {
    const { comment, etag } = await created(await post(ana, 'Original words.'));
    const current = await stale(await patch(comment.comment_id, 'Lost update?', '"bogus-etag"'), comment.comment_id, 'Original words.');
    expect(current).toBe(etag);
    expect((await stored(comment.comment_id)).body).toBe('Original words.');
    expect(await audited('comment.edit', comment.comment_id)).toBe(0);
  });

  it('takes the current ETag, answers the new one, and refuses the old one afterwards: the second editor does not overwrite the first', async () => {
    const { comment, etag } = await created(await post(ana, 'Version one.'));
    const first = await patch(comment.comment_id, 'Version two, from the laptop.', etag);
    expect(first.status).toBe(200);
    const next = first.headers.get('etag')!;
    expect(next).not.toBe(etag);
    expect((await first.json()).etag).toBe(identity(next));
    // The phone read version one too: its edit is refused, and it gets version two to merge with.
    const current = await stale(await patch(comment.comment_id, 'Version two, from the phone.', etag), comment.comment_id, 'Version two, from the laptop.');
    expect(current).toBe(next);
    expect((await stored(comment.comment_id)).body).toBe('Version two, from the laptop.');
    expect((await patch(comment.comment_id, 'Merged: laptop and phone.', current)).status).toBe(200);
    expect((await stored(comment.comment_id)).body).toBe('Merged: laptop and phone.');
  });

  it('uses the strong comparison: a weak W/ ETag never matches, not even the current one', async () => {
    const { comment, etag } = await created(await post(ana, 'Strongly versioned.'));
    await stale(await patch(comment.comment_id, 'Weakly matched?', `W/${etag}`), comment.comment_id, 'Strongly versioned.');
    expect((await patch(comment.comment_id, 'Strongly matched.', `"other", ${etag}`)).status).toBe(200);
    expect((await patch(comment.comment_id, 'Any version.', '*')).status).toBe(200);
  });

  it('matches the ETag of a compressed GET (its -br variant names the same version)', async () => {
    const long = 'A comment long enough to be sent compressed. '.repeat(40);
    const { comment } = await created(await post(ana, long));
    const res = await srv.get(`/api/comments/${comment.comment_id}`, { headers: { 'Accept-Encoding': 'br' } });
    expect(res.headers.get('content-encoding')).toBe('br');
    const variant = res.headers.get('etag')!;
    expect(variant).toMatch(/-br"$/);
    expect((await patch(comment.comment_id, 'Short now.', variant)).status).toBe(200);
  });

  it('keeps the ETag across reactions (they are not the comment) and changes it when a moderator hides it', async () => {
    const { comment, etag } = await created(await post(ana, 'React, do not edit.'));
    await send(`/api/comments/${comment.comment_id}/react`, { method: 'POST', as: bor, json: { kind: 'like' } });
    expect((await send(`/api/comments/${comment.comment_id}`)).headers.get('etag')).toBe(etag);
    const hidden = await send(`/api/comments/${comment.comment_id}/hide`, { method: 'POST', as: mod });
    expect(hidden.headers.get('etag')).not.toBe(etag);
    await send(`/api/comments/${comment.comment_id}/unhide`, { method: 'POST', as: mod });
    await stale(await patch(comment.comment_id, 'Edited after moderation', etag), comment.comment_id, 'React, do not edit.');
  });

  it('still edits without If-Match, and checks who may edit before the version', async () => {
    const { comment, etag } = await created(await post(ana, 'No precondition.'));
    expect((await patch(comment.comment_id, 'Someone else', '"bogus"', bor)).status).toBe(403);
    expect((await patch(comment.comment_id, 'Edited without If-Match.')).status).toBe(200);
    expect((await stored(comment.comment_id)).body).toBe('Edited without If-Match.');
    expect((await send(`/api/comments/${comment.comment_id}`)).headers.get('etag')).not.toBe(etag);
  });
});

describe('If-Match on DELETE', () => {
  it('deletes only the version read: a stale ETag is 412 and the comment stays', async () => {
    const { comment, etag } = await created(await post(ana, 'Delete me, maybe.'));
    const edited = await patch(comment.comment_id, 'Changed my mind: keep me.', etag);
    const del = (ifMatch: string, as = ana) => send(`/api/comments/${comment.comment_id}`, { method: 'DELETE', as, headers: { 'If-Match': ifMatch } });
    await stale(await del(etag), comment.comment_id, 'Changed my mind: keep me.');
    await stale(await del(`W/${edited.headers.get('etag')!}`, mod), comment.comment_id, 'Changed my mind: keep me.');
    expect((await stored(comment.comment_id)).deleted_at).toBeNull();
    expect(await audited('comment.delete', comment.comment_id)).toBe(0);
    expect((await del(edited.headers.get('etag')!)).status).toBe(204);
    expect((await stored(comment.comment_id)).deleted_at).not.toBeNull();
  });
});
