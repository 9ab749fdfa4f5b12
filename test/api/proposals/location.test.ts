// A new proposal answers 201 with its Location and ETag (issue 42, item 5); GET there repeats the ETag,
// which community flags leave alone and a decision changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { identity, sender, type Send } from '../../helpers/http.ts';
import { fixtureContent } from '../../helpers/content.ts';

const video = loadSnapshot(fixtureContent()).videos[0];
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

describe('creating a proposal', () => {
  it('answers 201 with the Location of the new proposal and its ETag, which GET there repeats', async () => {
    const res = await send('/api/proposals', {
      method: 'POST',
      as: ana,
      json: { kind: 'tag_correction', title: 'Tag the video as a case study', payload: { target: { type: 'video', id: video.video_id }, add: ['case-study'] }, evidence: { rationale: 'One company in detail.' } },
    });
    const created = (await res.json()) as { proposal_id: string };
    expect(res.status, JSON.stringify(created)).toBe(201);
    const location = res.headers.get('location')!;
    expect(location).toBe(`${srv.url}/api/proposals/${created.proposal_id}`);
    const etag = identity(res.headers.get('etag'))!;
    expect(etag).toMatch(/^"[^"]+"$/);

    const there = await fetch(location);
    expect(there.status).toBe(200);
    expect(identity(there.headers.get('etag'))).toBe(etag);
    expect(await there.json()).toEqual(created);

    expect((await send(`/api/proposals/${created.proposal_id}/flag`, { method: 'POST', as: bor, json: { reason: 'Not a case study' } })).status).toBe(200);
    expect(identity((await fetch(location)).headers.get('etag'))).toBe(etag);
    expect((await send(`/api/proposals/${created.proposal_id}/decision`, { method: 'POST', as: mod, json: { action: 'accept' } })).status).toBe(200);
    expect(identity((await fetch(location)).headers.get('etag'))).not.toBe(etag);
  });
});
