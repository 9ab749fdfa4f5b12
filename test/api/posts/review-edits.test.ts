// With POSTS_AUTO_PUBLISH=false nothing a moderator has not reviewed is public (issue 13, item 6): an edit
// of a published post's fields or essay sends it back to review, in the same transaction, so readers and
// search stop seeing it until a moderator publishes the new text; with auto-publish on, edits stay live.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';

const ESSAY = 'A reviewed essay about agents in claims handling. '.repeat(6);

async function published(send: Send, author: TestSession, mod: TestSession | null, title: string) {
  const post = await (await send('/api/posts', { method: 'POST', as: author, json: { title, summary: 'Reviewed summary', body: ESSAY } })).json();
  expect((await send(`/api/posts/${post.post_id}/submit`, { method: 'POST', as: author })).status).toBe(202);
  if (mod) expect((await send(`/api/posts/${post.post_id}/review`, { method: 'POST', as: mod, json: { action: 'publish' } })).status).toBe(200);
  const now = await (await send(`/api/posts/${post.slug}`)).json();
  expect(now.status).toBe('published');
  return now as { post_id: string; slug: string };
}

describe('with POSTS_AUTO_PUBLISH=false', () => {
  let srv: TestServer;
  let send: Send;
  let author: TestSession;
  let mod: TestSession;
  beforeAll(async () => {
    srv = await startTestServer({ env: { POSTS_AUTO_PUBLISH: 'false', MODERATOR_EMAILS: 'mod@example.org', WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
    send = sender(srv);
    author = await sessionFor(srv, 'writer@example.org');
    mod = await sessionFor(srv, 'mod@example.org');
  });
  afterAll(() => srv.stop());

  const publicTitles = async () => ((await (await send('/api/posts')).json()).items as { title: string }[]).map((p) => p.title);
  const searchHits = async (q: string) => ((await (await send(`/api/search?q=${encodeURIComponent(q)}&types=post`)).json()).hits as { id: string }[]).map((h) => h.id);

  it('a changed title goes back to review: unreviewed text is never public, and returns once approved', async () => {
    const post = await published(send, author, mod, 'Quarkwise claims agents');
    const patched = await send(`/api/posts/${post.post_id}`, { method: 'PATCH', as: author, json: { title: 'Zorblefex unreviewed headline' } });
    expect(patched.status).toBe(200);
    expect((await patched.json()).status).toBe('submitted');
    expect((await send(`/api/posts/${post.slug}`)).status).toBe(404);
    expect(await publicTitles()).not.toContain('Zorblefex unreviewed headline');
    expect(await searchHits('Zorblefex')).toEqual([]);
    // The author still sees it, in review.
    expect((await (await send(`/api/posts/${post.post_id}`, { as: author })).json()).title).toBe('Zorblefex unreviewed headline');
    expect((await send(`/api/posts/${post.post_id}/review`, { method: 'POST', as: mod, json: { action: 'publish' } })).status).toBe(200);
    expect((await (await send(`/api/posts/${post.slug}`)).json()).title).toBe('Zorblefex unreviewed headline');
    expect(await searchHits('Zorblefex')).toContain(post.post_id);
  });

  it('a new essay goes back to review too', async () => {
    const post = await published(send, author, mod, 'Reviewed essay post');
    const read = await send(`/api/posts/${post.post_id}/essay`, { as: author });
    const put = await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as: author, headers: { 'If-Match': read.headers.get('etag')! }, json: { body: `${ESSAY} And an unreviewed claim.` } });
    expect(put.status).toBe(200);
    expect((await send(`/api/posts/${post.post_id}/essay`)).status).toBe(404);
    expect((await (await send(`/api/posts/${post.post_id}`, { as: author })).json()).status).toBe('submitted');
    const events = (await (await send(`/api/audit?subject_type=post&subject_id=${post.post_id}`)).json()).items as { kind: string; data: Record<string, unknown> }[];
    expect(events.at(-1)).toMatchObject({ kind: 'post.submit', data: { reason: 'edited_after_publication' } });
  });
});

describe('with POSTS_AUTO_PUBLISH=true (the default)', () => {
  it('edits of a published post stay live', async () => {
    const srv = await startTestServer({ env: { WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
    try {
      const send = sender(srv);
      const author = await sessionFor(srv, 'writer@example.org');
      const post = await published(send, author, null, 'Live post');
      const patched = await (await send(`/api/posts/${post.post_id}`, { method: 'PATCH', as: author, json: { title: 'Live post, retitled' } })).json();
      expect(patched.status).toBe('published');
      expect((await (await send(`/api/posts/${post.slug}`)).json()).title).toBe('Live post, retitled');
    } finally {
      await srv.stop();
    }
  });
});
