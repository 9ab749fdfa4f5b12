// Posts: drafts, the essay with ETag/If-Match, submission and review, co-admins, votes, visibility.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';

const ESSAY = 'Adoption is a management problem before it is a technical one. '.repeat(5);
let srv: TestServer;
let send: Send;
let author: TestSession, helper: TestSession, reader: TestSession;

beforeAll(async () => {
  srv = await startTestServer({ env: { WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
  send = sender(srv);
  author = await sessionFor(srv, 'author@example.org', 'Author');
  helper = await sessionFor(srv, 'helper@example.org', 'Helper');
  reader = await sessionFor(srv, 'reader@example.org', 'Reader');
});
afterAll(() => srv.stop());

async function newPost(as = author, extra: Record<string, unknown> = {}) {
  const res = await send('/api/posts', { method: 'POST', as, json: { title: 'What our first agent taught us', summary: 'Lessons from a pilot.', tags: ['agents', 'operating-model'], ...extra } });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}
async function publish(post: { post_id: string }, as = author) {
  const put = await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as, json: { body: ESSAY } });
  expect(put.status).toBe(200);
  const res = await send(`/api/posts/${post.post_id}/submit`, { method: 'POST', as });
  expect(res.status).toBe(202);
  return res.json();
}

describe('drafts and visibility', () => {
  it('creates a draft with a slug that only its author (and co-admins) can see', async () => {
    const post = await newPost();
    expect(post).toMatchObject({ status: 'draft', slug: 'what-our-first-agent-taught-us', tags: ['agents', 'operating-model'], author: { display_name: 'Author' } });
    const second = await newPost();
    expect(second.slug).toBe('what-our-first-agent-taught-us-2');
    expect((await send(`/api/posts/${post.slug}`, { as: author })).status).toBe(200);
    expect((await send(`/api/posts/${post.slug}`)).status).toBe(404);
    expect((await send(`/api/posts/${post.slug}`, { as: reader })).status).toBe(404);
    const mine = await (await send('/api/posts/me', { as: author })).json();
    expect(mine.items.map((p: { post_id: string }) => p.post_id)).toEqual(expect.arrayContaining([post.post_id, second.post_id]));
    expect((await (await send('/api/posts')).json()).items.some((p: { post_id: string }) => p.post_id === post.post_id)).toBe(false);
  });

  it('validates posts and their list parameters', async () => {
    const bad = await send('/api/posts', { method: 'POST', as: author, json: { title: 'x', tags: ['Not Kebab'], lang: 'de' } });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail.map((d: { loc: (string | number)[] }) => d.loc.join('.')).sort()).toEqual(['body.lang', 'body.tags.0', 'body.title']);
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'sort=random', `tag=${'x'.repeat(65)}`]) expect((await send(`/api/posts?${q}`)).status, q).toBe(422);
    for (const q of ['limit=0', 'limit=201', 'offset=-1']) expect((await send(`/api/posts/me?${q}`, { as: author })).status, q).toBe(422);
    expect((await send('/api/posts', { method: 'POST', json: { title: 'Anonymous' } })).status).toBe(401);
  });
});

describe('the post essay', () => {
  it('guards every save with If-Match: a second editor with a stale ETag gets 412 and both versions', async () => {
    const post = await newPost();
    await send(`/api/posts/${post.post_id}/admins`, { method: 'POST', as: author, json: { user_id: helper.userId } });
    const empty = await send(`/api/posts/${post.post_id}/essay`, { as: author });
    expect(empty.headers.get('etag')).toBe(`"${post.post_id}.0"`);
    const first = await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as: author, json: { body: 'Draft one' } });
    expect(first.status).toBe(200);
    // Both editors read the same version…
    const read = await send(`/api/posts/${post.post_id}/essay`, { as: helper });
    const etag = read.headers.get('etag')!;
    expect((await read.json()).body).toBe('Draft one');
    // …the author saves first…
    const a = await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as: author, headers: { 'If-Match': etag }, json: { body: 'Author version' } });
    expect(a.status).toBe(200);
    expect(a.headers.get('etag')).toBe(`"${post.post_id}.2"`);
    // …and the co-admin's save with the old ETag is refused, with the current text to merge.
    const b = await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as: helper, headers: { 'If-Match': etag }, json: { body: 'Helper version' } });
    expect(b.status).toBe(412);
    const conflict = await b.json();
    expect(conflict.current).toMatchObject({ body: 'Author version', revision: 2 });
    expect((await (await send(`/api/posts/${post.post_id}/essay`, { as: author })).json()).body).toBe('Author version');
    const noHeader = await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as: helper, json: { body: 'Blind write' } });
    expect(noHeader.status).toBe(428);
    const merged = await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as: helper, headers: { 'If-Match': conflict.current.etag }, json: { body: 'Merged version' } });
    expect(merged.status).toBe(200);
    const revisions = await srv.db.prepare('SELECT body FROM post_essay_revisions WHERE post_id = ? ORDER BY revision').pluck().all(post.post_id);
    expect(revisions).toEqual(['Draft one', 'Author version', 'Merged version']);
    expect((await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as: reader, headers: { 'If-Match': '*' }, json: { body: 'vandal' } })).status).toBe(404);
  });
});

describe('submission, review and the public list', () => {
  it('refuses to submit an empty essay, then publishes at once under the auto-publish rule', async () => {
    const post = await newPost(author, { tags: ['governance'] });
    const early = await send(`/api/posts/${post.post_id}/submit`, { method: 'POST', as: author });
    expect(early.status).toBe(409);
    expect((await early.json()).detail).toMatch(/essay is empty/);
    const published = await publish(post);
    expect(published.status).toBe('published');
    expect((await send(`/api/posts/${post.slug}`)).status).toBe(200);
    const list = await (await send('/api/posts?tag=governance')).json();
    expect(list.items.map((p: { post_id: string }) => p.post_id)).toEqual([post.post_id]);
    expect((await send(`/api/posts/${post.post_id}/submit`, { method: 'POST', as: author })).status).toBe(409);
  });

  it('sorts newest or oldest first', async () => {
    const a = await publish(await newPost(author, { title: 'Older post', tags: ['sorting'] }));
    const b = await publish(await newPost(author, { title: 'Newer post', tags: ['sorting'] }));
    const newest = await (await send('/api/posts?tag=sorting')).json();
    expect(newest.items.map((p: { post_id: string }) => p.post_id)).toEqual([b.post_id, a.post_id]);
    const oldest = await (await send('/api/posts?tag=sorting&sort=oldest&limit=1')).json();
    expect(oldest).toMatchObject({ total: 2, limit: 1 });
    expect(oldest.items[0].post_id).toBe(a.post_id);
  });

  it('queues submissions for a moderator when auto-publish is off', async () => {
    const strict = await startTestServer({ env: { POSTS_AUTO_PUBLISH: 'false', MODERATOR_EMAILS: 'mod@example.org' } });
    try {
      const s = sender(strict);
      const writer = await sessionFor(strict, 'writer@example.org');
      const mod = await sessionFor(strict, 'mod@example.org');
      const post = await (await s('/api/posts', { method: 'POST', as: writer, json: { title: 'Needs review', summary: 'S', body: ESSAY } })).json();
      const submitted = await s(`/api/posts/${post.post_id}/submit`, { method: 'POST', as: writer });
      expect(submitted.status).toBe(202);
      expect((await submitted.json()).status).toBe('submitted');
      expect((await s(`/api/posts/${post.slug}`)).status).toBe(404);
      expect((await s(`/api/posts/${post.post_id}/review`, { method: 'POST', as: writer, json: { action: 'publish' } })).status).toBe(403);
      const reviewed = await s(`/api/posts/${post.post_id}/review`, { method: 'POST', as: mod, json: { action: 'publish', note: 'Good' } });
      expect((await reviewed.json()).status).toBe('published');
      const note = (await (await s('/api/notifications?filter=system', { as: writer })).json()).items[0];
      expect(note.title).toMatch(/is published/);
    } finally {
      await strict.stop();
    }
  });
});

describe('who may change a post', () => {
  it('lets the author and co-admins edit, only the author delete and manage co-admins', async () => {
    const draft = await newPost();
    // On a draft, a stranger learns nothing, not even that it exists.
    expect((await send(`/api/posts/${draft.post_id}`, { method: 'PATCH', as: helper, json: { title: 'Hijacked' } })).status).toBe(404);
    const post = await publish(await newPost(author, { title: 'Shared work' }));
    expect((await send(`/api/posts/${post.post_id}`, { method: 'PATCH', as: helper, json: { title: 'Hijacked' } })).status).toBe(403);
    expect((await send(`/api/posts/${post.post_id}/admins`, { method: 'POST', as: helper, json: { user_id: helper.userId } })).status).toBe(403);
    const granted = await send(`/api/posts/${post.post_id}/admins`, { method: 'POST', as: author, json: { user_id: helper.userId } });
    expect(granted.status).toBe(201);
    expect((await granted.json()).admins.map((u: { id: string }) => u.id)).toEqual([helper.userId]);
    expect((await send(`/api/posts/${post.post_id}/admins`, { method: 'POST', as: author, json: { user_id: helper.userId } })).status).toBe(409);
    expect((await send(`/api/posts/${post.post_id}/admins`, { method: 'POST', as: author, json: { user_id: 'usr_nobody' } })).status).toBe(404);
    const notes = (await (await send('/api/notifications', { as: helper })).json()).items;
    expect(notes.some((n: { kind: string; subject_id: string }) => n.kind === 'co_admin' && n.subject_id === post.post_id)).toBe(true);
    const edited = await send(`/api/posts/${post.post_id}`, { method: 'PATCH', as: helper, json: { title: 'A better title', tags: ['rag'] } });
    expect(edited.status).toBe(200);
    expect(await edited.json()).toMatchObject({ title: 'A better title', tags: ['rag'], slug: post.slug });
    expect((await send(`/api/posts/${post.post_id}`, { method: 'DELETE', as: helper })).status).toBe(403);
    expect((await send(`/api/posts/${post.post_id}/admins/${helper.userId}`, { method: 'DELETE', as: author })).status).toBe(204);
    expect((await send(`/api/posts/${post.post_id}`, { method: 'PATCH', as: helper, json: { title: 'Again' } })).status).toBe(403);
    expect((await send(`/api/posts/${post.post_id}`, { method: 'DELETE', as: author })).status).toBe(204);
    expect((await send(`/api/posts/${post.slug}`, { as: author })).status).toBe(404);
  });
});

describe('votes and comments on posts', () => {
  it('counts one vote per reader, never the author, and tells the author', async () => {
    const post = await publish(await newPost(author, { title: 'Vote for me' }));
    expect((await send(`/api/posts/${post.post_id}/essay/vote`, { method: 'POST', as: author })).status).toBe(409);
    const v = await send(`/api/posts/${post.post_id}/essay/vote`, { method: 'POST', as: reader });
    expect(await v.json()).toEqual({ post_id: post.post_id, votes: 1, voted: true });
    expect((await (await send(`/api/posts/${post.post_id}/essay/vote`, { method: 'POST', as: reader })).json()).votes).toBe(1);
    expect(await (await send(`/api/posts/${post.post_id}/essay/votes`)).json()).toEqual({ post_id: post.post_id, votes: 1, voted: false });
    expect((await (await send('/api/notifications', { as: author })).json()).items.some((n: { kind: string }) => n.kind === 'vote')).toBe(true);
    expect((await send(`/api/posts/${post.post_id}/essay/vote`, { method: 'DELETE', as: reader })).status).toBe(204);
    expect((await send(`/api/posts/${post.post_id}/essay/vote`, { method: 'DELETE', as: reader })).status).toBe(404);
    expect((await (await send(`/api/posts/${post.post_id}/essay/votes`)).json()).votes).toBe(0);
    expect((await send(`/api/posts/${post.post_id}/essay/vote`, { method: 'POST' })).status).toBe(401);
  });

  it('takes comments on published posts and notifies the author', async () => {
    const post = await publish(await newPost(author, { title: 'Discuss me' }));
    const c = await send('/api/comments', { method: 'POST', as: reader, json: { entity_type: 'post', entity_id: post.post_id, body: 'Nice post' } });
    expect(c.status).toBe(201);
    expect((await (await send('/api/notifications', { as: author })).json()).items.some((n: { kind: string }) => n.kind === 'post_comment')).toBe(true);
    const draft = await newPost(author, { title: 'Private draft' });
    expect((await send('/api/comments', { method: 'POST', as: reader, json: { entity_type: 'post', entity_id: draft.post_id, body: 'peek' } })).status).toBe(404);
  });

  it('records every post write in the audit log', async () => {
    const kinds = new Set((await (await send('/api/audit?limit=200&subject_type=post')).json()).items.map((e: { kind: string }) => e.kind));
    for (const k of ['post.create', 'post.update', 'post.delete', 'post.submit', 'post.publish', 'post.essay_update', 'post.co_admin_grant', 'post.co_admin_revoke', 'post.vote', 'post.unvote']) {
      expect(kinds.has(k), k).toBe(true);
    }
  });
});
