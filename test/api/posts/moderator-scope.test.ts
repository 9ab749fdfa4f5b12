// A moderator's powers over posts and comments need the `moderate` scope on an OAuth token, as every
// other moderator power does: a token the moderator granted an app for `read write` reads no one's
// drafts and hides no comments, while the moderator's own session and a `moderate` token do.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';
import { bearer, discover, fullFlow } from '../oauth/helpers.ts';

const MOD = 'scoped-mod@example.org';
let srv: TestServer;
let send: Send;
let author: TestSession;
let draftId: string;
let plainToken: string;
let moderateToken: string;

beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { MODERATOR_EMAILS: MOD } });
  send = sender(srv);
  author = await sessionFor(srv, 'draft-author@example.org');
  const draft = await send('/api/posts', { method: 'POST', as: author, json: { title: 'A private draft', summary: 'Not for others yet.' } });
  expect(draft.status).toBe(201);
  draftId = (await draft.json()).post_id;
  const as: oauth.AuthorizationServer = await discover(srv);
  plainToken = (await fullFlow(srv, as, { email: MOD, scope: 'read write' })).tokens.access_token;
  moderateToken = (await fullFlow(srv, as, { email: MOD, scope: 'read write moderate' })).tokens.access_token;
});
afterAll(() => srv.stop());

describe("a moderator's OAuth token", () => {
  it('without moderate does not read another person’s draft (404, as for anyone)', async () => {
    expect((await srv.get(`/api/posts/${draftId}`, { headers: bearer(plainToken) })).status).toBe(404);
    expect((await srv.get(`/api/posts/${draftId}/essay`, { headers: bearer(plainToken) })).status).toBe(404);
  });

  it('with moderate does, like the moderator’s own session', async () => {
    expect((await srv.get(`/api/posts/${draftId}`, { headers: bearer(moderateToken) })).status).toBe(200);
    expect((await send(`/api/posts/${draftId}`, { as: await sessionFor(srv, MOD) })).status).toBe(200);
  });
});
