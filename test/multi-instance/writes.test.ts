// Two server processes on one PostgreSQL (issue 17): what one writes the other reads; 200 comments written
// at once through both are all stored, each with its audit event, and the audit log stays one gapless,
// verifiable sequence; a post published through one is found by the other's search within seconds.
import { beforeAll, expect, it } from 'vitest';
import { describePostgres } from '../helpers/postgres.ts';
import { auditEventsOf, auditVerify, call, range, writersOnTwoInstances, type Instance, type InstanceGroup } from './instances.ts';

const USERS = 4;
const LOAD = 200;
const ESSAY = 'Adoption is a management problem before it is a technical one, say the Quorblewick notes. '.repeat(4);

describePostgres('two instances on one PostgreSQL: writes', () => {
  const w = writersOnTwoInstances(range(USERS).map((i) => `writer${i - 1}`));
  let a: Instance, b: Instance, group: InstanceGroup, keys: string[], video: string;
  beforeAll(() => ({ a, b, group, keys, video } = w));

  const bearer = (i: number) => ({ Authorization: `Bearer ${keys[i % keys.length]}` });
  const postComment = (inst: Instance, i: number, body: string) =>
    call(`${inst.url}/api/comments`, { method: 'POST', headers: bearer(i), json: { entity_type: 'video', entity_id: video, body } });

  it('reads through B a comment written through A', async () => {
    const created = await postComment(a, 0, 'Written through A, read through B.');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.comment_id as string;

    const list = await call(`${b.url}/api/comments?entity_type=video&entity_id=${encodeURIComponent(video)}&limit=200`);
    expect(list.status).toBe(200);
    expect(list.body.items.filter((c: { comment_id: string }) => c.comment_id === id)).toEqual([
      expect.objectContaining({ comment_id: id, body: 'Written through A, read through B.', author: expect.objectContaining({ display_name: 'writer0' }) }),
    ]);
    const one = await call(`${b.url}/api/comments/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.body).toBe('Written through A, read through B.');
  });

  it(`stores exactly ${LOAD} comments written at once through A and B, with a gapless, verifiable audit log`, async () => {
    const before = Number((await group.query<{ n: string }>('SELECT COUNT(*) AS n FROM comments'))[0].n);
    const results = await Promise.all(range(LOAD).map((i) => postComment(i % 2 ? b : a, i, `load comment ${i}`)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s !== 201), JSON.stringify(results.find((r) => r.status !== 201)?.body)).toEqual([]);
    const ids = results.map((r) => r.body.comment_id as string);
    expect(new Set(ids).size).toBe(LOAD);

    // The database: exactly the 200 comments, each with exactly one comment.create event.
    const stored = await group.query<{ id: string }>("SELECT id FROM comments WHERE body LIKE 'load comment %'");
    expect(stored.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(Number((await group.query<{ n: string }>('SELECT COUNT(*) AS n FROM comments'))[0].n)).toBe(before + LOAD);
    const events = await group.query<{ subject_id: string }>("SELECT subject_id FROM audit_events WHERE kind = 'comment.create' AND subject_id = ANY($1)", [ids]);
    expect(events.map((e) => e.subject_id).sort()).toEqual([...ids].sort());

    // Audit seq: 1..N, no gap, no duplicate, in the database and as both instances serve it.
    const seqs = (await group.query<{ seq: string | number }>('SELECT seq FROM audit_events ORDER BY seq')).map((r) => Number(r.seq));
    const n = seqs.length;
    expect(n).toBeGreaterThanOrEqual(LOAD + 1 + USERS * 2);
    expect(seqs).toEqual(range(n));
    const fromA = await auditEventsOf(a.url);
    const fromB = await auditEventsOf(b.url);
    expect(fromA.map((e) => e.seq)).toEqual(range(n));
    expect(fromB).toEqual(fromA);

    // Both instances checkpoint (AUDIT_CHECKPOINT_INTERVAL_SECONDS=1) with the one shared key: wait until
    // the latest checkpoint covers the whole log, then verify it through each instance with A's key pinned.
    const key = (await call(`${a.url}/api/audit/pubkey`)).body.verifier_key as string;
    expect((await call(`${b.url}/api/audit/pubkey`)).body.verifier_key).toBe(key);
    let covered = 0;
    for (let t = 0; t < 50 && covered < n; t++) {
      const note = await (await fetch(`${b.url}/api/audit/checkpoint`)).text();
      covered = Number(note.split('\n')[1]);
      if (covered < n) await new Promise((r) => setTimeout(r, 100));
    }
    expect(covered).toBe(n);
    for (const inst of [a, b]) {
      const v = await auditVerify(inst.url, key);
      expect(v.code, `${v.stdout}${v.stderr}`).toBe(0);
      expect(v.stdout).toMatch(new RegExp(`^OK: ${n} events, \\d+ signed checkpoints verified`, 'm'));
    }
  });

  it('finds through B’s search, within 5 s, a post published through A', async () => {
    const hits = async (inst: Instance) => {
      const r = await call(`${inst.url}/api/search?q=Quorblewick&types=post`);
      expect(r.status).toBe(200);
      return (r.body.hits as { id: string }[]).map((h) => h.id);
    };
    expect(await hits(b)).toEqual([]);

    const post = await call(`${a.url}/api/posts`, { method: 'POST', headers: bearer(1), json: { title: 'The Quorblewick rollout', summary: 'Lessons from a pilot.', tags: ['agents'] } });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    const id = post.body.post_id as string;
    expect((await call(`${a.url}/api/posts/${id}/essay`, { method: 'PUT', headers: bearer(1), json: { body: ESSAY } })).status).toBe(200);
    const submitted = await call(`${a.url}/api/posts/${id}/submit`, { method: 'POST', headers: bearer(1) });
    expect(submitted.status).toBe(202);
    expect(submitted.body.status).toBe('published');

    const t0 = Date.now();
    let found: string[] = [];
    while (Date.now() - t0 < 5000) {
      found = await hits(b);
      if (found.includes(id)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(found, `B did not find the post within 5 s\n--- B's output ---\n${b.output()}`).toEqual([id]);
    expect(await hits(a)).toEqual([id]);
  });
});
