// Several instances on one PostgreSQL: how a post published through one reaches the others' search. The
// posts trigger notifies only changes the public sees (a post published, edited while published, taken
// back to review or deleted), with the post's id; a listening instance updates its live index for that post
// alone. Before, every change to any post (drafts too) notified, and each instance re-read and re-embedded
// every published post.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import pg from 'pg';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sessionFor, type TestSession } from '../helpers/auth.ts';
import { sender } from '../helpers/http.ts';
import { describePostgres, startPostgres, type PgCluster } from '../helpers/postgres.ts';

describePostgres('posts across instances on one PostgreSQL', () => {
  let cluster: PgCluster;
  let a: TestServer;
  let b: TestServer;
  let ana: TestSession;
  let listener: pg.Client;
  const heard: string[] = [];

  beforeAll(async () => {
    cluster = await startPostgres();
    const url = await cluster.createDatabase();
    a = await startTestServer({ env: { DATABASE_URL: url, WRITE_RATE_LIMIT_PER_MINUTE: '10000' } });
    b = await startTestServer({ env: { DATABASE_URL: url } });
    ana = await sessionFor(a, 'notify-ana@example.org', 'Ana');
    listener = new pg.Client({ connectionString: url });
    await listener.connect();
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query('LISTEN kb_posts');
  }, 120_000);
  afterAll(async () => {
    await listener?.end();
    await a?.stop();
    await b?.stop();
    await cluster?.stop();
  });

  const send = (path: string, init: Parameters<ReturnType<typeof sender>>[1] = {}) => sender(a)(path, { as: ana, ...init });
  /** A notification is delivered at commit; a round trip on the listener's connection lets it arrive. */
  const settle = async () => {
    await listener.query('SELECT 1');
    await new Promise((r) => setTimeout(r, 50));
  };
  const foundOnB = async (word: string) => ((await (await b.get(`/api/search?hybrid=false&q=${word}`)).json()).hits as { id: string }[]).map((h) => h.id);
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
  };
  const essay = 'A field report on what the pilot taught the team. '.repeat(6);

  async function draft(word: string): Promise<string> {
    const res = await send('/api/posts', { method: 'POST', json: { title: `The ${word} pilot`, summary: `What ${word} taught us.`, tags: ['agents'], body: essay } });
    expect(res.status).toBe(201);
    return (await res.json()).post_id;
  }

  it('says nothing of drafts, and names a post when it is published, edited while public, or deleted', async () => {
    const id = await draft('quillwort');
    expect((await send(`/api/posts/${id}`, { method: 'PATCH', json: { title: 'The quillwort pilot, revised' } })).status).toBe(200);
    await settle();
    expect(heard).toEqual([]);

    expect((await send(`/api/posts/${id}/submit`, { method: 'POST' })).status).toBe(202);
    await settle();
    expect(heard).toEqual([id]);
    await until(async () => (await foundOnB('quillwort')).includes(id));
    expect(await foundOnB('quillwort')).toContain(id);

    // An edit of the public post (auto-publish: no review) is news for the others' index.
    expect((await send(`/api/posts/${id}`, { method: 'PATCH', json: { summary: 'What marshwort taught us.' } })).status).toBe(200);
    await settle();
    expect(heard).toEqual([id, id]);
    await until(async () => (await foundOnB('marshwort')).includes(id));
    expect(await foundOnB('marshwort')).toContain(id);

    expect((await send(`/api/posts/${id}`, { method: 'DELETE' })).status).toBe(204);
    await settle();
    expect(heard).toEqual([id, id, id]);
    await until(async () => !(await foundOnB('quillwort')).includes(id));
    expect(await foundOnB('quillwort')).not.toContain(id);
  });

  it('updates the other instance for the one post, not for every published post', async () => {
    const first = await draft('sundew');
    expect((await send(`/api/posts/${first}/submit`, { method: 'POST' })).status).toBe(202);
    await until(async () => (await foundOnB('sundew')).includes(first));
    const second = await draft('bladderwort');
    const added = vi.spyOn(b.search(), 'addDocument');
    try {
      expect((await send(`/api/posts/${second}/submit`, { method: 'POST' })).status).toBe(202);
      await until(async () => (await foundOnB('bladderwort')).includes(second));
      expect(await foundOnB('bladderwort')).toContain(second);
      await new Promise((r) => setTimeout(r, 300)); // past the listener's debounce: nothing more comes
      expect(added.mock.calls.map(([doc]) => doc.id)).toEqual([second]);
    } finally {
      added.mockRestore();
    }
  });
});
