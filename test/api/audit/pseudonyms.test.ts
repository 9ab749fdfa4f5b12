// The public audit log links no pseudonym to a person (issue 13, item 3): after sign-ins, comments, a
// post, API keys and a flag by the same people, no actor pseudonym spans two subjects, the flag's matches
// no other event, and no public field of any event carries a user id beside a pseudonym of that user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';

interface Event {
  seq: number;
  kind: string;
  subject_type: string;
  subject_id: string;
  actor: string;
  data: Record<string, unknown>;
}

let srv: TestServer;
let send: Send;
let ana: TestSession;
let bor: TestSession;
let events: Event[];
let flagEvent: Event;

beforeAll(async () => {
  srv = await startTestServer({ env: { WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
  send = sender(srv);
  ana = await sessionFor(srv, 'ana@example.org', 'Ana');
  bor = await sessionFor(srv, 'bor@example.org', 'Bor');
  const again = await sessionFor(srv, 'ana@example.org', 'Ana'); // a second sign-in
  const video = (await (await send('/api/videos?limit=1')).json()).items[0].video_id;
  for (const who of [ana, bor]) {
    expect((await send('/api/comments', { method: 'POST', as: who, json: { entity_type: 'video', entity_id: video, body: 'A thought.' } })).status).toBe(201);
    expect((await send('/api/account/api-keys', { method: 'POST', as: who, json: { name: 'agent' } })).status).toBe(201);
  }
  expect((await send('/api/posts', { method: 'POST', as: ana, json: { title: 'My notes on agents', summary: 'S' } })).status).toBe(201);
  const proposal = await (await send('/api/proposals', { method: 'POST', as: bor, json: { kind: 'tag_correction', title: 'Tag it', payload: { target: { type: 'video', id: video }, add: ['case-study'] }, evidence: { rationale: 'r' } } })).json();
  expect((await send(`/api/proposals/${proposal.proposal_id}/flag`, { method: 'POST', as: ana, json: { reason: 'Not a case study' } })).status).toBe(200);
  expect((await send('/api/auth/logout', { method: 'POST', as: again })).status).toBe(200);
  events = (await (await send('/api/audit?limit=200')).json()).items;
  flagEvent = events.find((e) => e.kind === 'proposal.flag')!;
});
afterAll(() => srv.stop());

describe('actor pseudonyms in the public log', () => {
  it('never span two subjects', () => {
    const subjects = new Map<string, Set<string>>();
    for (const e of events.filter((x) => x.actor.startsWith('u_'))) {
      const set = subjects.get(e.actor) ?? new Set<string>();
      set.add(`${e.subject_type}:${e.subject_id}`);
      subjects.set(e.actor, set);
    }
    expect(subjects.size).toBeGreaterThan(4);
    for (const [actor, set] of subjects) expect([...set], actor).toHaveLength(1);
  });

  it('of a flag match no other event, not even the sign-ins of the person who flagged', () => {
    expect(flagEvent.actor).toMatch(/^u_/);
    expect(events.filter((e) => e.actor === flagEvent.actor).map((e) => e.seq)).toEqual([flagEvent.seq]);
  });

  it('let no one follow when a person signs in or out (issue 39, item 7)', async () => {
    const signIns = events.filter((e) => e.kind === 'auth.sign_in');
    const signOuts = events.filter((e) => e.kind === 'auth.sign_out');
    expect(signIns).toHaveLength(3);
    expect(signOuts).toHaveLength(1);
    const userIds = [ana.userId, bor.userId];
    for (const e of [...signIns, ...signOuts]) {
      // The event names a session by a keyed pseudonym, never the person or the session's own id.
      expect(e.subject_type, e.kind).toBe('session');
      expect(e.subject_id).toMatch(/^ses_[0-9a-f]{24}$/);
      expect(userIds.filter((id) => JSON.stringify(e).includes(id))).toEqual([]);
    }
    // Each sign-in is its own subject and actor: Ana's two sign-ins share nothing a reader could match.
    expect(new Set(signIns.map((e) => e.subject_id)).size).toBe(3);
    expect(new Set(signIns.map((e) => e.actor)).size).toBe(3);
    // A sign-out names the session it ends (the last sign-in, Ana's second), so a session can be followed, not a person.
    expect(signOuts[0].subject_id).toBe(signIns[2].subject_id);
    // What the log says under a person's public id: that the account was opened, and nothing of their visits.
    const about = async (id: string) => ((await (await send(`/api/audit?subject_type=user&subject_id=${id}&limit=200`)).json()).items as Event[]).map((e) => e.kind);
    expect(await about(ana.userId)).toEqual(['user.create']);
    expect(await about(bor.userId)).toEqual(['user.create']);
  });

  it('are never published beside a user id of the same person', () => {
    const userIds = [ana.userId, bor.userId];
    for (const e of events) {
      const publicValues = JSON.stringify({ ...e, subject_type: undefined });
      const named = userIds.filter((id) => publicValues.includes(id));
      if (!named.length) continue;
      // Only events about the user themselves name them, and their pseudonym is used nowhere else.
      expect(e.subject_type, `${e.kind} names a user`).toBe('user');
      expect(events.filter((x) => x.actor === e.actor).every((x) => x.subject_type === 'user' && x.subject_id === e.subject_id), e.kind).toBe(true);
    }
  });
});
