// A database restart is an outage of the database, not of the service (issue 40). Two server processes on
// one PostgreSQL, under a steady write load through both, while the database is restarted
// (`pg_ctl restart -m fast`) and then stopped for 5 s and started again: both processes stay up; a write
// meanwhile answers 201 or 503 with Retry-After — never a 500, never a refused connection; reads that need
// no database are answered throughout; /api/health says degraded and /api/ready 503 while the database is
// away; writing resumes by itself within 5 s of the database's return on each instance; and every
// acknowledged comment is stored with its audit event, in a gapless log that `npm run audit:verify` accepts.
import { beforeAll, expect, it } from 'vitest';
import { describePostgres } from '../helpers/postgres.ts';
import { auditVerify, call, range, writersOnTwoInstances, type Writers } from './instances.ts';

const USERS = 4;
const IN_FLIGHT = 8;

interface Outcome {
  instance: number;
  /** HTTP status, or null when the request failed at the connection level. */
  status: number | null;
  retryAfter?: string | null;
  id?: string;
  at: number;
  error?: string;
}

/** Comments through both instances, IN_FLIGHT at a time, until stopped; every outcome recorded. */
function writeLoad(w: Writers) {
  const outcomes: Outcome[] = [];
  let running = true;
  let n = 0;
  const one = async () => {
    const i = n++;
    const instance = i % 2;
    const url = (instance ? w.b : w.a).url;
    try {
      const res = await fetch(`${url}/api/comments`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${w.keys[i % USERS]}` },
        body: JSON.stringify({ entity_type: 'video', entity_id: w.video, body: `restart load ${i}` }),
      });
      const body = (await res.json().catch(() => null)) as { comment_id?: string } | null;
      outcomes.push({ instance, status: res.status, retryAfter: res.headers.get('retry-after'), id: body?.comment_id, at: Date.now() });
    } catch (err) {
      outcomes.push({ instance, status: null, at: Date.now(), error: String((err as Error).cause ?? err) });
    }
    // A 503 says when to come back: a client that honours it a little keeps the load honest.
    if (outcomes.at(-1)?.status === 503) await new Promise((r) => setTimeout(r, 50));
  };
  const worker = async () => {
    while (running) await one();
  };
  const workers = Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return {
    outcomes,
    async stop() {
      running = false;
      await workers;
    },
  };
}

/** Reads that need no database, and the probes, on both instances every 50 ms until stopped. */
function readLoad(w: Writers) {
  const seen: { path: string; status: number | null; body: string; at: number }[] = [];
  let running = true;
  const paths = ['/api/latest', '/api/videos?limit=1', '/api/health', '/api/ready'];
  const loop = (async () => {
    while (running) {
      for (const base of [w.a.url, w.b.url]) {
        for (const p of paths) {
          const res = await fetch(`${base}${p}`).catch(() => null);
          seen.push({ path: p, status: res?.status ?? null, body: res ? await res.text() : '', at: Date.now() });
        }
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    seen,
    async stop() {
      running = false;
      await loop;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until each instance has answered a comment 201 after `since`; the time it took on each. */
async function resumed(outcomes: Outcome[], since: number, limitMs: number): Promise<number[]> {
  const deadline = since + limitMs + 10_000; // wait longer than the limit, so a failure says by how much
  for (;;) {
    const firsts = [0, 1].map((i) => outcomes.find((o) => o.instance === i && o.status === 201 && o.at >= since)?.at);
    if (firsts.every((t) => t !== undefined)) return firsts.map((t) => t! - since);
    if (Date.now() > deadline) return firsts.map((t) => (t === undefined ? Number.POSITIVE_INFINITY : t - since));
    await sleep(50);
  }
}

describePostgres('two instances on one PostgreSQL while the database restarts under write load', () => {
  const w = writersOnTwoInstances(range(USERS).map((i) => `restart${i}`));
  let eventsBefore = 0;
  beforeAll(async () => {
    eventsBefore = Number((await w.group.query<{ n: string }>('SELECT COUNT(*) AS n FROM audit_events'))[0].n);
  });

  it('answers 201 or 503 with Retry-After throughout, stays up, resumes by itself, and loses no acknowledged write', async () => {
    const writes = writeLoad(w);
    const reads = readLoad(w);
    await sleep(1500);

    // 1. pg_ctl restart -m fast (about a second).
    await w.cluster.restart();
    const restartedAt = Date.now();
    const afterRestart = await resumed(writes.outcomes, restartedAt, 5000);

    // 2. Stopped for 5 s, then started again.
    await sleep(1000);
    await w.cluster.pause();
    const downAt = Date.now();
    await sleep(5000);
    await w.cluster.resume();
    const upAt = Date.now();
    const afterStop = await resumed(writes.outcomes, upAt, 5000);
    await sleep(1000);
    await writes.stop();
    await reads.stop();

    const out = writes.outcomes;
    const summary = JSON.stringify({ afterRestart, afterStop, odd: out.filter((o) => o.status !== 201 && o.status !== 503).slice(0, 5) });
    // Both processes are alive, and answered every request: 201, or 503 with Retry-After.
    expect(w.a.child.exitCode, w.a.output().slice(-2000)).toBeNull();
    expect(w.b.child.exitCode, w.b.output().slice(-2000)).toBeNull();
    expect(out.filter((o) => o.status !== 201 && o.status !== 503), summary).toEqual([]);
    expect(out.filter((o) => o.status === 503 && o.retryAfter !== '2')).toEqual([]);
    const during = out.filter((o) => o.at > downAt && o.at < upAt);
    expect(during.length).toBeGreaterThan(10);
    expect(during.filter((o) => o.status === 503).length).toBeGreaterThan(10);
    // Writing resumed by itself, on each instance, within 5 s of the database's return.
    for (const ms of [...afterRestart, ...afterStop]) expect(ms, summary).toBeLessThan(5000);

    // Reads that need no database were answered throughout; the probes told the outage while it lasted.
    const reads200 = (p: string) => reads.seen.filter((r) => r.path === p);
    for (const p of ['/api/latest', '/api/videos?limit=1', '/api/health']) expect(reads200(p).filter((r) => r.status !== 200), p).toEqual([]);
    const whileDown = reads.seen.filter((r) => r.at > downAt + 3000 && r.at < upAt);
    expect(whileDown.some((r) => r.path === '/api/health' && r.body.includes('"degraded"'))).toBe(true);
    expect(whileDown.some((r) => r.path === '/api/ready' && r.status === 503)).toBe(true);
    expect(reads.seen.filter((r) => r.path === '/api/ready' && r.at > upAt + 4000).every((r) => r.status === 200)).toBe(true);

    // Every acknowledged comment is stored, with its comment.create event; the log is gapless and verifies.
    const acknowledged = out.filter((o) => o.status === 201).map((o) => o.id!);
    const stored = new Set((await w.group.query<{ id: string }>("SELECT id FROM comments WHERE body LIKE 'restart load %'")).map((r) => r.id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    const events = (await w.group.query<{ subject_id: string }>("SELECT subject_id FROM audit_events WHERE kind = 'comment.create'")).map((r) => r.subject_id);
    expect([...events].sort()).toEqual([...stored].sort());
    const seqs = (await w.group.query<{ seq: string | number }>('SELECT seq FROM audit_events ORDER BY seq')).map((r) => Number(r.seq));
    expect(seqs).toEqual(range(seqs.length));
    expect(seqs.length).toBe(eventsBefore + stored.size);
    let covered = 0;
    for (let t = 0; t < 100 && covered < seqs.length; t++) {
      covered = Number((await (await fetch(`${w.b.url}/api/audit/checkpoint`)).text()).split('\n')[1]);
      if (covered < seqs.length) await sleep(100);
    }
    expect(covered).toBe(seqs.length);
    const key = (await call(`${w.b.url}/api/audit/pubkey`)).body.verifier_key as string;
    const v = await auditVerify(w.b.url, key);
    expect(v.code, `${v.stdout}${v.stderr}`).toBe(0);
  }, 180_000);
});
