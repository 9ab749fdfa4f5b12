// Posts carry their versions (issue 42, items 5 and 6): a create answers 201 with Location and the post's
// ETag, and the essay's ETag in essay_etag, so the first essay PUT needs no GET; If-Match on the essay uses
// the strong comparison (a weak W/ ETag never matches), and If-Match on PATCH and DELETE of the post is
// honoured (412 with the current post, its ETag and a hint).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { identity, sender, type Send } from '../../helpers/http.ts';

let srv: TestServer;
let send: Send;
let author: TestSession, voter: TestSession;

beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
  send = sender(srv);
  author = await sessionFor(srv, 'author@example.org', 'Author');
  voter = await sessionFor(srv, 'voter@example.org', 'Voter');
});
afterAll(() => srv.stop());

interface Post {
  post_id: string;
  title: string;
  etag: string;
  essay_etag: string;
  essay_revision: number;
}
const ESSAY = 'Adoption is a management problem before it is a technical one. '.repeat(5);

async function create(extra: Record<string, unknown> = {}): Promise<{ post: Post; etag: string; location: string }> {
  const res = await send('/api/posts', { method: 'POST', as: author, json: { title: 'Versions all the way down', summary: 'On ETags.', ...extra } });
  const post = (await res.json()) as Post;
  expect(res.status, JSON.stringify(post)).toBe(201);
  const etag = res.headers.get('etag')!;
  expect(etag).toMatch(/^"[^"]+"$/);
  expect(identity(etag)).toBe(post.etag);
  return { post, etag, location: res.headers.get('location')! };
}
const putEssay = (id: string, body: string, ifMatch?: string) => send(`/api/posts/${id}/essay`, { method: 'PUT', as: author, json: { body }, headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch } });
const essayOf = async (id: string) => (await srv.db.prepare('SELECT MAX(revision) FROM post_essay_revisions WHERE post_id = ?').pluck().get(id)) as number | null;

describe('creating a post', () => {
  it('answers 201 with the Location of the new post and its ETag, which GET there repeats', async () => {
    const { post, etag, location } = await create();
    expect(location).toBe(`${srv.url}/api/posts/${post.post_id}`);
    const there = await fetch(location, { headers: author.headers });
    expect(there.status).toBe(200);
    expect(there.headers.get('etag')).toBe(etag);
    expect(await there.json()).toMatchObject({ post_id: post.post_id, etag: post.etag, essay_etag: post.essay_etag });
  });

  it('gives the essay\'s ETag in essay_etag: the first essay PUT needs no GET, with or without a first version', async () => {
    const withBody = (await create({ body: 'The first version.' })).post;
    expect(withBody).toMatchObject({ essay_revision: 1, essay_etag: `"${withBody.post_id}.1"` });
    const saved = await putEssay(withBody.post_id, 'The second version.', withBody.essay_etag);
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect((await saved.json()).revision).toBe(2);

    const empty = (await create()).post;
    expect(empty.essay_etag).toBe(`"${empty.post_id}.0"`);
    expect((await putEssay(empty.post_id, 'Written at once.', empty.essay_etag)).status).toBe(200);
  });
});

describe('If-Match on the essay', () => {
  it('uses the strong comparison: a weak W/ ETag never matches, not even the current one', async () => {
    const { post } = await create({ body: 'Strongly versioned essay.' });
    const weak = await putEssay(post.post_id, 'Weakly matched?', `W/${post.essay_etag}`);
    expect(weak.status).toBe(412);
    expect(identity(weak.headers.get('etag'))).toBe(post.essay_etag);
    expect(await essayOf(post.post_id)).toBe(1);
    expect((await putEssay(post.post_id, 'Strongly matched.', post.essay_etag)).status).toBe(200);
    expect(await essayOf(post.post_id)).toBe(2);
  });
});

describe('If-Match on the post', () => {
  it('PATCH takes the current ETag and refuses a stale or weak one with 412, the current post and a hint', async () => {
    const { post, etag } = await create();
    const first = await send(`/api/posts/${post.post_id}`, { method: 'PATCH', as: author, json: { title: 'Renamed on the laptop' }, headers: { 'If-Match': etag } });
    expect(first.status).toBe(200);
    const next = identity(first.headers.get('etag'))!;
    expect(next).not.toBe(post.etag);
    for (const ifMatch of [etag, `W/${next}`, '"bogus-etag"']) {
      const res = await send(`/api/posts/${post.post_id}`, { method: 'PATCH', as: author, json: { title: 'Renamed on the phone' }, headers: { 'If-Match': ifMatch } });
      const body = (await res.json()) as { hint: string; current: Post };
      expect(res.status, ifMatch).toBe(412);
      expect(body.current).toMatchObject({ title: 'Renamed on the laptop', etag: next });
      expect(identity(res.headers.get('etag'))).toBe(next);
      expect(body.hint).toContain(`If-Match: ${next}`);
    }
    expect(await srv.db.prepare('SELECT title FROM posts WHERE id = ?').pluck().get(post.post_id)).toBe('Renamed on the laptop');
  });

  it('DELETE with a stale ETag is 412 and the post stays; with the current one it goes', async () => {
    const { post, etag } = await create({ body: 'To be deleted, perhaps.' });
    await putEssay(post.post_id, 'A newer essay.', post.essay_etag);
    const del = (ifMatch: string) => send(`/api/posts/${post.post_id}`, { method: 'DELETE', as: author, headers: { 'If-Match': ifMatch } });
    expect((await del(etag)).status).toBe(412);
    expect((await send(`/api/posts/${post.post_id}`, { as: author })).status).toBe(200);
    const current = (await send(`/api/posts/${post.post_id}`, { as: author })).headers.get('etag')!;
    expect((await del(current)).status).toBe(204);
    expect((await send(`/api/posts/${post.post_id}`, { as: author })).status).toBe(404);
  });

  it('keeps the post\'s ETag across votes (they are not the post)', async () => {
    const { post } = await create({ body: ESSAY });
    const submitted = await send(`/api/posts/${post.post_id}/submit`, { method: 'POST', as: author });
    expect(submitted.status).toBe(202);
    const published = identity(submitted.headers.get('etag'));
    expect(published).toBe(((await submitted.json()) as Post).etag);
    expect((await send(`/api/posts/${post.post_id}/essay/vote`, { method: 'POST', as: voter })).status).toBe(200);
    expect(identity((await send(`/api/posts/${post.post_id}`)).headers.get('etag'))).toBe(published);
  });
});
