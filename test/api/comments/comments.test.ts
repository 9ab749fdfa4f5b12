// Comments, replies, mentions, edits, deletes, moderation, reactions and the GET-only creation path.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor, sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { failAuditEvents } from '../../helpers/db-faults.ts';
import { fixtureContent } from '../../helpers/content.ts';

const snap = loadSnapshot(fixtureContent());
const video = snap.videos[0].video_id;
let srv: TestServer;
let send: Send;
let ana: TestSession, bor: TestSession, mod: TestSession;

beforeAll(async () => {
  srv = await startTestServer({ env: { MODERATOR_EMAILS: 'mod@example.org', WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
  send = sender(srv);
  ana = await sessionFor(srv, 'ana@example.org', 'Ana');
  bor = await sessionFor(srv, 'bor@example.org', 'Bor');
  mod = await sessionFor(srv, 'mod@example.org', 'Moderator');
  await send('/api/account/me', { method: 'PATCH', as: ana, json: { handle: 'ana' } });
});
afterAll(() => srv.stop());

const comment = async (as: TestSession, body: string, extra: Record<string, unknown> = {}, entity = { entity_type: 'video', entity_id: video }) => {
  const res = await send('/api/comments', { method: 'POST', as, json: { ...entity, body, ...extra } });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};
const notificationsOf = async (as: TestSession) => (await (await send('/api/notifications?limit=200', { as })).json()).items;

describe('creating and reading comments', () => {
  it('creates a comment on any content item and lists it', async () => {
    const c = await comment(ana, 'Useful case study.');
    expect(c).toMatchObject({ entity_type: 'video', entity_id: video, parent_id: null, body: 'Useful case study.', hidden: false, deleted: false, edited: false, author: { display_name: 'Ana' } });
    expect(c.comment_id).toMatch(/^cmt_/);
    for (const [type, id] of [['essay', snap.essays[0].slug], ['digest', snap.digests[0].date], ['knowledge', snap.concepts[0].slug], ['persona', snap.personas[0].persona_id]]) {
      await comment(bor, `On a ${type}`, {}, { entity_type: type, entity_id: id });
    }
    const list = await (await send(`/api/comments?entity_type=video&entity_id=${video}`)).json();
    expect(list.items.map((x: { comment_id: string }) => x.comment_id)).toContain(c.comment_id);
    expect((await (await send(`/api/comments/${c.comment_id}`)).json()).body).toBe('Useful case study.');
  });

  it('answers 404 for unknown items and 422 for bad input', async () => {
    expect((await send('/api/comments', { method: 'POST', as: ana, json: { entity_type: 'video', entity_id: 'nope', body: 'x' } })).status).toBe(404);
    expect((await send(`/api/comments?entity_type=video&entity_id=nope`)).status).toBe(404);
    const bad = await send('/api/comments', { method: 'POST', as: ana, json: { entity_type: 'planet', entity_id: video, body: '' } });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.body', 'body.entity_type']);
    expect((await send('/api/comments', { method: 'POST', as: ana, json: { entity_type: 'video', entity_id: video, body: 'x'.repeat(10_001) } })).status).toBe(422);
    for (const q of ['limit=0', 'limit=201', 'offset=-1', 'include_hidden=maybe']) {
      expect((await send(`/api/comments?entity_type=video&entity_id=${video}&${q}`)).status, q).toBe(422);
    }
    expect((await send(`/api/comments?entity_id=${video}`)).status).toBe(422);
    expect((await send('/api/comments', { method: 'POST', json: { entity_type: 'video', entity_id: video, body: 'anon' } })).status).toBe(401);
  });

  it('pages with total, limit and offset', async () => {
    const entity = { entity_type: 'digest', entity_id: snap.digests[1].date };
    for (let i = 0; i < 5; i++) await comment(ana, `paged ${i}`, {}, entity);
    const page = await (await send(`/api/comments?entity_type=digest&entity_id=${entity.entity_id}&limit=2&offset=2`)).json();
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 2 });
    expect(page.items.map((x: { body: string }) => x.body)).toEqual(['paged 2', 'paged 3']);
  });
});

describe('replies, mentions and notifications', () => {
  it('notifies the parent author of a reply and a mentioned person, not the actor', async () => {
    const parent = await comment(ana, 'What do you think?');
    const reply = await comment(bor, 'Agree, and @ana should see this too.', { parent_id: parent.comment_id });
    expect(reply.parent_id).toBe(parent.comment_id);
    // One notice, not two, and a mention: a reply that names its parent's author is listed under Mentions.
    const about = (items: { subject_id: string; kind: string }[], id: string) => items.filter((n) => n.subject_id === id).map((n) => n.kind);
    expect(about(await notificationsOf(ana), reply.comment_id)).toEqual(['mention']);
    const plain = await comment(bor, 'A reply that names nobody.', { parent_id: parent.comment_id });
    expect(about(await notificationsOf(ana), plain.comment_id)).toEqual(['reply']);
    const direct = await comment(bor, 'Pinging @Ana directly.'); // handles are lower case; the mention is not
    const mentions = await (await send('/api/notifications?filter=mentions', { as: ana })).json();
    expect(mentions.items[0]).toMatchObject({ kind: 'mention', category: 'mention', read: false, subject_id: direct.comment_id, link: `/videos/${video}#comment-${direct.comment_id}` });
    expect(about(mentions.items, reply.comment_id)).toEqual(['mention']);
    expect((await notificationsOf(bor)).some((n: { kind: string }) => n.kind === 'reply')).toBe(false);
    expect((await send('/api/comments', { method: 'POST', as: bor, json: { entity_type: 'video', entity_id: snap.videos[1].video_id, body: 'x', parent_id: parent.comment_id } })).status).toBe(404);
  });
});

describe('editing, deleting and moderation', () => {
  it('lets only the author edit, keeping the earlier text', async () => {
    const c = await comment(ana, 'First words');
    expect((await send(`/api/comments/${c.comment_id}`, { method: 'PATCH', as: bor, json: { body: 'hijack' } })).status).toBe(403);
    const edited = await (await send(`/api/comments/${c.comment_id}`, { method: 'PATCH', as: ana, json: { body: 'Better words' } })).json();
    expect(edited).toMatchObject({ body: 'Better words', edited: true });
    const history = await srv.db.prepare('SELECT body FROM comment_edits WHERE comment_id = ?').pluck().all(c.comment_id);
    expect(history).toEqual(['First words']);
  });

  it('lets the author or a moderator delete; a comment with replies stays as a tombstone', async () => {
    const lonely = await comment(ana, 'Nobody answers this');
    expect((await send(`/api/comments/${lonely.comment_id}`, { method: 'DELETE', as: bor })).status).toBe(403);
    expect((await send(`/api/comments/${lonely.comment_id}`, { method: 'DELETE', as: ana })).status).toBe(204);
    expect((await send(`/api/comments/${lonely.comment_id}`)).status).toBe(404);
    const parent = await comment(bor, 'Parent');
    await comment(ana, 'Child', { parent_id: parent.comment_id });
    expect((await send(`/api/comments/${parent.comment_id}`, { method: 'DELETE', as: mod })).status).toBe(204);
    const tomb = await (await send(`/api/comments/${parent.comment_id}`)).json();
    expect(tomb).toMatchObject({ deleted: true, body: '', author: null, reply_count: 1 });
    const listed = await (await send(`/api/comments?entity_type=video&entity_id=${video}&limit=200`)).json();
    expect(listed.items.some((x: { comment_id: string }) => x.comment_id === lonely.comment_id)).toBe(false);
    expect(listed.items.find((x: { comment_id: string }) => x.comment_id === parent.comment_id).deleted).toBe(true);
  });

  it('lets moderators hide and unhide; hidden comments are gone for everyone else', async () => {
    const c = await comment(bor, 'Spam spam');
    expect((await send(`/api/comments/${c.comment_id}/hide`, { method: 'POST', as: ana })).status).toBe(403);
    expect((await send(`/api/comments/${c.comment_id}/hide`, { method: 'POST', as: mod })).status).toBe(200);
    expect((await send(`/api/comments/${c.comment_id}`)).status).toBe(404);
    const q = `/api/comments?entity_type=video&entity_id=${video}&limit=200`;
    expect((await (await send(q)).json()).items.some((x: { comment_id: string }) => x.comment_id === c.comment_id)).toBe(false);
    expect((await send(`${q}&include_hidden=true`, { as: ana })).status).toBe(403);
    const modView = await (await send(`${q}&include_hidden=true`, { as: mod })).json();
    expect(modView.items.find((x: { comment_id: string }) => x.comment_id === c.comment_id).hidden).toBe(true);
    await send(`/api/comments/${c.comment_id}/unhide`, { method: 'POST', as: mod });
    expect((await send(`/api/comments/${c.comment_id}`)).status).toBe(200);
  });
});

describe('reactions', () => {
  it('counts one reaction per person per kind and takes them back', async () => {
    const c = await comment(ana, 'React to me');
    const r1 = await (await send(`/api/comments/${c.comment_id}/react`, { method: 'POST', as: bor, json: { kind: 'insightful' } })).json();
    expect(r1).toMatchObject({ comment_id: c.comment_id, mine: ['insightful'] });
    expect(r1.counts.insightful).toBe(1);
    const again = await (await send(`/api/comments/${c.comment_id}/react`, { method: 'POST', as: bor, json: { kind: 'insightful' } })).json();
    expect(again.counts.insightful).toBe(1);
    await send(`/api/comments/${c.comment_id}/react`, { method: 'POST', as: ana, json: { kind: 'insightful' } });
    await send(`/api/comments/${c.comment_id}/react`, { method: 'POST', as: ana, json: { kind: 'like' } });
    expect((await (await send(`/api/comments/${c.comment_id}`)).json()).reactions).toMatchObject({ insightful: 2, like: 1 });
    // Each reader learns their own reactions from the list and the comment; anonymous readers, none.
    const listed = async (as?: TestSession) => (await (await send(`/api/comments?entity_type=video&entity_id=${video}&limit=200`, { as })).json()).items.find((x: { comment_id: string }) => x.comment_id === c.comment_id);
    expect((await listed(ana)).mine).toEqual(['insightful', 'like']);
    expect((await listed(bor)).mine).toEqual(['insightful']);
    expect((await listed()).mine).toEqual([]);
    expect((await (await send(`/api/comments/${c.comment_id}`, { as: bor })).json()).mine).toEqual(['insightful']);
    const back = await send(`/api/comments/${c.comment_id}/react/insightful`, { method: 'DELETE', as: bor });
    expect(back.status).toBe(200);
    expect((await back.json()).counts.insightful).toBe(1);
    expect((await send(`/api/comments/${c.comment_id}/react`, { method: 'POST', as: bor, json: { kind: 'love' } })).status).toBe(422);
    expect((await send(`/api/comments/${c.comment_id}/react/love`, { method: 'DELETE', as: bor })).status).toBe(422);
    expect((await send(`/api/comments/${c.comment_id}/react`, { method: 'POST', json: { kind: 'like' } })).status).toBe(401);
  });
});

describe('GET /api/comments/create', () => {
  const url = (key: string, body: string, entity = video) =>
    `/api/comments/create?entity_type=video&entity_id=${entity}&body=${encodeURIComponent(body)}&idempotency_key=${key}`;

  it('needs a bearer token, not a cookie', async () => {
    expect((await send(url(randomUUID(), 'hi'), { as: ana })).status).toBe(401);
    expect((await send(url(randomUUID(), 'hi'))).status).toBe(401);
  });

  it('creates once per key: a replay returns the first comment, another body is a 409', async () => {
    const key = await bearerFor(srv, bor.userId);
    const k = randomUUID();
    const first = await send(url(k, 'From a sandbox'), { headers: key.headers });
    expect(first.status).toBe(201);
    const created = await first.json();
    const count = () => srv.db.prepare("SELECT COUNT(*) FROM comments WHERE body = 'From a sandbox'").pluck().get();
    const replay = await send(url(k, 'From a sandbox'), { headers: key.headers });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await replay.json()).comment_id).toBe(created.comment_id);
    expect(await count()).toBe(1);
    expect((await send(url(k, 'Something else'), { headers: key.headers })).status).toBe(409);
    expect(await count()).toBe(1);
  });

  it('validates body length, the key and the entity', async () => {
    const key = await bearerFor(srv, bor.userId);
    const tooLong = await send(url(randomUUID(), 'x'.repeat(1501)), { headers: key.headers });
    expect(tooLong.status).toBe(422);
    expect((await tooLong.json()).detail[0]).toMatchObject({ loc: ['query', 'body'], type: 'string_too_long' });
    expect((await send(url('not-a-uuid', 'x'), { headers: key.headers })).status).toBe(422);
    const noKey = await send(`/api/comments/create?entity_type=video&entity_id=${video}&body=x`, { headers: key.headers });
    expect((await noKey.json()).detail[0]).toMatchObject({ loc: ['query', 'idempotency_key'], type: 'missing' });
    expect((await send(url(randomUUID(), 'x', 'nope'), { headers: key.headers })).status).toBe(404);
  });
});

describe('limits and atomicity', () => {
  it('rate-limits writes per person with 429 and Retry-After', async () => {
    const small = await startTestServer({ env: { WRITE_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const s = await sessionFor(small, 'fast@example.org');
      const post = () => sender(small)('/api/comments', { method: 'POST', as: s, json: { entity_type: 'video', entity_id: video, body: 'quick' } });
      for (let i = 0; i < 3; i++) expect((await post()).status).toBe(201);
      const limited = await post();
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      const other = await sessionFor(small, 'slow@example.org');
      expect((await sender(small)('/api/comments', { method: 'POST', as: other, json: { entity_type: 'video', entity_id: video, body: 'me too' } })).status).toBe(201);
    } finally {
      await small.stop();
    }
  });

  it('refuses bodies over 1 MB with 413', async () => {
    const res = await send('/api/comments', { method: 'POST', as: ana, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ entity_type: 'video', entity_id: video, body: 'x'.repeat(1_100_000) }) });
    expect(res.status).toBe(413);
  });

  it('rolls the comment back when its audit event cannot be written', async () => {
    const restoreComment = await failAuditEvents(srv.db, 'comment.create');
    try {
      const before = await srv.db.prepare('SELECT COUNT(*) FROM comments').pluck().get();
      const res = await send('/api/comments', { method: 'POST', as: ana, json: { entity_type: 'video', entity_id: video, body: 'Must not survive @bor' } });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ detail: 'Internal server error' });
      expect(await srv.db.prepare('SELECT COUNT(*) FROM comments').pluck().get()).toBe(before);
      expect(await srv.db.prepare("SELECT COUNT(*) FROM notifications WHERE body LIKE 'Must not survive%'").pluck().get()).toBe(0);
    } finally {
      await restoreComment();
    }
  });

  it('records every comment write in the audit log', async () => {
    const kinds = new Set((await (await send('/api/audit?limit=200&subject_type=comment')).json()).items.map((e: { kind: string }) => e.kind));
    for (const k of ['comment.create', 'comment.edit', 'comment.delete', 'comment.hide', 'comment.unhide', 'reaction.add', 'reaction.remove']) expect(kinds.has(k), k).toBe(true);
  });
});
