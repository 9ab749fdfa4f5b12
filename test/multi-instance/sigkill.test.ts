// Two server processes on one PostgreSQL (issue 17), one of them SIGKILLed in the middle of a write load:
// every comment that was answered 2xx is stored with its audit event, the audit log stays gapless and
// verifiable, and the other instance keeps answering (the dead one's transaction and lock go with it).
import { beforeAll, expect, it } from 'vitest';
import { describePostgres } from '../helpers/postgres.ts';
import { auditVerify, call, range, writersOnTwoInstances, type Instance, type InstanceGroup } from './instances.ts';

const USERS = 4;
const TOTAL = 400; // requests, alternating between A and B
const IN_FLIGHT = 16; // at once, across both
const KILL_AFTER = 120; // answers received before A is killed

interface Outcome {
  target: 'A' | 'B';
  startedAfterKill: boolean;
  /** HTTP status, or null when the request failed at the connection level. */
  status: number | null;
  id?: string;
  error?: string;
}

describePostgres('two instances on one PostgreSQL: one is SIGKILLed under write load', () => {
  const w = writersOnTwoInstances(range(USERS).map((i) => `load${i}`));
  let a: Instance, b: Instance, group: InstanceGroup, keys: string[], video: string;
  beforeAll(() => ({ a, b, group, keys, video } = w));

  it('keeps every answered comment with its audit event, a gapless log, and B answering', async () => {
    const eventsBefore = Number((await group.query<{ n: string }>('SELECT COUNT(*) AS n FROM audit_events'))[0].n);
    expect(eventsBefore).toBeGreaterThanOrEqual(USERS * 2);
    let killed = false;
    let killing: Promise<void> | null = null;
    let answered = 0;
    const outcomes: Outcome[] = [];
    let next = 0;

    const one = async (i: number): Promise<void> => {
      const target = i % 2 ? 'B' : 'A';
      const inst = target === 'A' ? a : b;
      const startedAfterKill = killed;
      try {
        const res = await fetch(`${inst.url}/api/comments`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${keys[i % USERS]}` },
          body: JSON.stringify({ entity_type: 'video', entity_id: video, body: `kill load ${i}` }),
        });
        const body = (await res.json().catch(() => null)) as { comment_id?: string } | null;
        outcomes.push({ target, startedAfterKill, status: res.status, id: body?.comment_id });
      } catch (err) {
        outcomes.push({ target, startedAfterKill, status: null, error: String((err as Error).cause ?? err) });
      }
      if (++answered === KILL_AFTER) {
        killed = true;
        killing = a.kill();
      }
    };
    const worker = async () => {
      while (next < TOTAL) await one(next++);
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    await killing;
    expect(killed).toBe(true);
    expect(a.child.signalCode).toBe('SIGKILL');

    const summary = JSON.stringify({
      A_before: outcomes.filter((o) => o.target === 'A' && !o.startedAfterKill).map((o) => o.status ?? o.error),
      B_failed: outcomes.filter((o) => o.target === 'B' && o.status !== 201),
    }).slice(0, 3000);
    const ofA = outcomes.filter((o) => o.target === 'A');
    const ofB = outcomes.filter((o) => o.target === 'B');
    expect(outcomes).toHaveLength(TOTAL);
    // B answered everything, before and after the kill.
    expect(ofB.map((o) => o.status), summary).toEqual(Array.from({ length: TOTAL / 2 }, () => 201));
    expect(ofB.filter((o) => o.startedAfterKill).length).toBeGreaterThan(100);
    // A: 201 until the kill; what was in flight then, and everything sent after it, fails at the connection level.
    const aAfter = ofA.filter((o) => o.startedAfterKill);
    expect(aAfter.length).toBeGreaterThan(100);
    expect(aAfter.filter((o) => o.status !== null), summary).toEqual([]);
    const aBefore = ofA.filter((o) => !o.startedAfterKill);
    expect(aBefore.filter((o) => o.status !== 201 && o.status !== null), summary).toEqual([]);
    const aAnswered = aBefore.filter((o) => o.status === 201);
    const aLost = aBefore.filter((o) => o.status === null); // in flight at the kill
    expect(aAnswered.length).toBeGreaterThan(30);
    expect(aLost.length).toBeLessThanOrEqual(IN_FLIGHT);

    // Every 2xx comment is stored, with its comment.create event; a request lost with A may have committed
    // (its answer died with the process) or not, nothing else is there.
    const answeredIds = outcomes.filter((o) => o.status === 201).map((o) => o.id!);
    expect(answeredIds).toHaveLength(ofB.length + aAnswered.length);
    const stored = (await group.query<{ id: string }>("SELECT id FROM comments WHERE body LIKE 'kill load %'")).map((r) => r.id);
    const storedSet = new Set(stored);
    expect(answeredIds.filter((id) => !storedSet.has(id))).toEqual([]);
    expect(stored.length - answeredIds.length).toBeGreaterThanOrEqual(0);
    expect(stored.length - answeredIds.length).toBeLessThanOrEqual(aLost.length);
    const events = (await group.query<{ subject_id: string }>("SELECT subject_id FROM audit_events WHERE kind = 'comment.create'")).map((r) => r.subject_id);
    expect([...events].sort()).toEqual([...stored].sort());

    // The audit log: seq 1..N with no gap and no duplicate, as B serves it too, and it verifies.
    const seqs = (await group.query<{ seq: string | number }>('SELECT seq FROM audit_events ORDER BY seq')).map((r) => Number(r.seq));
    expect(seqs).toEqual(range(seqs.length));
    expect(seqs.length).toBe(eventsBefore + stored.length);
    let covered = 0;
    for (let t = 0; t < 50 && covered < seqs.length; t++) {
      covered = Number((await (await fetch(`${b.url}/api/audit/checkpoint`)).text()).split('\n')[1]);
      if (covered < seqs.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(covered).toBe(seqs.length);
    const key = (await call(`${b.url}/api/audit/pubkey`)).body.verifier_key as string;
    const v = await auditVerify(b.url, key);
    expect(v.code, `${v.stdout}${v.stderr}`).toBe(0);
    expect(v.stdout).toMatch(new RegExp(`^OK: ${seqs.length} events, `, 'm'));

    // And B still writes after all that.
    const after = await call(`${b.url}/api/comments`, { method: 'POST', headers: { Authorization: `Bearer ${keys[0]}` }, json: { entity_type: 'video', entity_id: video, body: 'after the kill' } });
    expect(after.status).toBe(201);
  });
});
