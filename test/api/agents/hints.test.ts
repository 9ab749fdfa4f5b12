// Item 11 of issue 16: every 4xx says what to do next. A walk through the mistakes agents make, each
// answered with a `hint` that names the parameter, the endpoint to sign in at or the scope to ask for;
// and two refusals that were wrong (a bare If-Match that named the current version; a proposer flagging
// their own proposal).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { discover, fullFlow } from '../oauth/helpers.ts';
import { connect as connectNotes, person, putNote } from '../personal-knowledge/helpers.ts';

let srv: TestServer;
let send: Send;
let ana: TestSession;
let bor: TestSession;
let video: string;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { WRITE_RATE_LIMIT_PER_MINUTE: '10000' } });
  send = sender(srv);
  ana = await sessionFor(srv, 'ana@example.org', 'Ana');
  bor = await sessionFor(srv, 'bor@example.org', 'Bor');
  video = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
});
afterAll(() => srv.stop());

async function refusal(res: Response, status: number): Promise<{ detail: unknown; hint: string }> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(typeof body.hint, JSON.stringify(body)).toBe('string');
  return body;
}

describe('who you are', () => {
  it('a 401 says where to sign in', async () => {
    const { hint } = await refusal(await send('/api/comments', { method: 'POST', json: { entity_type: 'video', entity_id: video, body: 'hi' } }), 401);
    expect(hint).toMatch(/POST \/api\/oauth\/device/);
    expect(hint).toMatch(/\/agent-login\.sh/);
    expect(hint).toMatch(/\/api\/auth\/idp\/login/);
    expect(hint).toMatch(/oauth-authorization-server/);
  });

  it('an unknown or expired token is told to refresh or sign in again', async () => {
    const { hint } = await refusal(await send('/api/posts/me', { headers: { Authorization: 'Bearer oat_nothing' } }), 401);
    expect(hint).toMatch(/refresh_token/);
  });

  it('a token without the write scope is told which scope to ask for, and how', async () => {
    const { tokens } = await fullFlow(srv, await discover(srv), { email: 'reader@example.org', scope: 'read' });
    const res = await send('/api/comments', { method: 'POST', headers: { Authorization: `Bearer ${tokens.access_token}` }, json: { entity_type: 'video', entity_id: video, body: 'hi' } });
    const { hint } = await refusal(res, 403);
    expect(hint).toMatch(/lacks the write scope/);
    expect(hint).toMatch(/"scope": "read write"/);
  });
});

describe('what you sent', () => {
  it('a body that is not JSON says which Content-Type to send', async () => {
    const res = await send('/api/comments', { method: 'POST', as: ana, headers: { 'Content-Type': 'text/plain' }, body: 'entity_type=video' });
    const { detail, hint } = await refusal(res, 422);
    expect((detail as { type: string }[])[0].type).toBe('json_invalid');
    expect(hint).toMatch(/Content-Type: application\/json/);
  });

  it('a bad or missing parameter is named, with what it should be', async () => {
    const { hint } = await refusal(await send('/api/videos?limit=0'), 422);
    expect(hint).toMatch(/Fix query parameter limit \(Input should be greater than or equal to 1\)/);
    const missing = await refusal(await send('/api/comments', { method: 'POST', as: ana, json: { entity_id: video, body: 'hi' } }), 422);
    expect(missing.hint).toMatch(/Add the missing body parameter entity_type/);
    expect(missing.hint).toMatch(/entity_type is one of video, essay/);
  });

  it('an unknown path points to /llms.txt, an unknown id to where the ids are', async () => {
    expect((await refusal(await send('/api/no-such-endpoint'), 404)).hint).toMatch(/\/llms\.txt/);
    expect((await refusal(await send('/api/videos/no-such-video'), 404)).hint).toMatch(/\/api\/search\?q=/);
    expect((await refusal(await send('/api/comments/cmt_nothing'), 404)).hint).toMatch(/GET \/api\/comments\?entity_type=/);
    expect((await refusal(await send('/api/device/lookup?user_code=BCDFGHJK'), 404)).hint).toMatch(/8 letters/);
    expect((await refusal(await send('/api/me/personal-knowledge/notes', { as: bor }), 404)).hint).toMatch(/browser session/);
  });
});

describe('posts', () => {
  const create = async (as: TestSession, body = 'Too short.') => (await (await send('/api/posts', { method: 'POST', as, json: { title: 'Hints for agents', summary: 'What an agent needs.', body } })).json()) as { post_id: string };

  it('a post submitted with a short essay is told to lengthen it, and where', async () => {
    const post = await create(ana);
    const { detail, hint } = await refusal(await send(`/api/posts/${post.post_id}/submit`, { method: 'POST', as: ana }), 409);
    expect(detail).toMatch(/shorter than 200 characters \(it has 10\)/);
    expect(hint).toContain(`PUT /api/posts/${post.post_id}/essay`);
    expect(hint).toMatch(/at least 200 characters/);
  });

  it('a co-admin voting for the post is told why not', async () => {
    const post = await create(ana, 'A long enough essay. '.repeat(12));
    expect((await send(`/api/posts/${post.post_id}/admins`, { method: 'POST', as: ana, json: { user_id: bor.userId } })).status).toBe(201);
    expect((await send(`/api/posts/${post.post_id}/submit`, { method: 'POST', as: ana })).status).toBe(202);
    const { hint } = await refusal(await send(`/api/posts/${post.post_id}/essay/vote`, { method: 'POST', as: bor }), 409);
    expect(hint).toMatch(/co-admin/);
  });

  it('takes the ETag without its quotes instead of a false "changed since you read it"', async () => {
    const post = await create(ana, 'First version.');
    const read = await (await send(`/api/posts/${post.post_id}/essay`, { as: ana })).json();
    const bare = read.etag.replace(/"/g, '');
    expect(bare).toMatch(/^pst_.+\.1$/);
    const saved = await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as: ana, headers: { 'If-Match': bare }, json: { body: 'Second version.' } });
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect((await saved.json()).revision).toBe(2);
    // A stale one is still refused, and the answer says how to merge.
    const stale = await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as: ana, headers: { 'If-Match': bare }, json: { body: 'Third.' } });
    expect((await refusal(stale, 412)).hint).toMatch(/If-Match: "pst_.+\.2"/);
    const none = await send(`/api/posts/${post.post_id}/essay`, { method: 'PUT', as: ana, json: { body: 'Fourth.' } });
    expect((await refusal(none, 428)).hint).toContain(`GET /api/posts/${post.post_id}/essay`);
  });
});

describe('proposals', () => {
  it('a proposer cannot flag their own proposal, and is told what to do instead', async () => {
    const p = await (await send('/api/proposals', { method: 'POST', as: ana, json: { kind: 'tag_correction', title: 'Retag', payload: { target: { type: 'video', id: video }, add: ['agents'], remove: [] } } })).json();
    const { detail, hint } = await refusal(await send(`/api/proposals/${p.proposal_id}/flag`, { method: 'POST', as: ana, json: {} }), 403);
    expect(detail).toBe('You cannot flag your own proposal');
    expect(hint).toMatch(/POST \/api\/proposals/);
    const after = await (await send(`/api/proposals/${p.proposal_id}`)).json();
    expect(after.evidence.community_flags.count).toBe(0);
    expect((await send(`/api/proposals/${p.proposal_id}/flag`, { method: 'POST', as: bor, json: {} })).status).toBe(200);
    expect((await refusal(await send(`/api/proposals/${p.proposal_id}/flag`, { method: 'POST', as: bor, json: {} }), 409)).hint).toMatch(/One flag per person/);
  });
});

describe('notes', () => {
  it('a note PUT without base_blob over an existing note says to send the blob it read', async () => {
    const p = await person(srv, 'noter@example.org');
    expect(await connectNotes(p)).toBe('/account?pk=connected');
    const first = await putNote(p, 'hints', '# One\n', { base_blob: null });
    expect(first.status).toBe(200);
    const again = await putNote(p, 'hints', '# Two\n');
    expect(again.status).toBe(428);
    expect(again.body.hint).toContain('GET /api/me/personal-knowledge/notes/hints');
    expect(again.body.hint).toContain('"base_blob"');
    expect(again.body.hint).toContain(first.body.blob);
  });
});

