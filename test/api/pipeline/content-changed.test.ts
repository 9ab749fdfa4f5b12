// POST /api/admin/content-changed (issue 41): an admin's git hook or CI asks the content pipeline to publish
// what changed. Only an admin acting as one gets 202 (an OAuth token needs the admin scope); the request is
// an audit event, and the scheduler's source (pipeline/lib/content-requests.ts) reads each one once, also a
// request made while it was stopped. On SQLite and PostgreSQL. (The chain it runs through npm start, and
// the change served: test/scripts/start-content-changes.test.ts.)
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor, sessionFor } from '../../helpers/auth.ts';
import { bearer, discover, fullFlow } from '../oauth/helpers.ts';
import { contentRequests } from '../../../pipeline/lib/content-requests.ts';

const ADMIN = 'pipeline-admin@example.org';
let srv: TestServer;
let adminKey: Record<string, string>;
let userKey: Record<string, string>;
let plainToken: string;
let adminToken: string;

beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { ADMIN_EMAILS: ADMIN } });
  adminKey = (await bearerFor(srv, (await sessionFor(srv, ADMIN)).userId)).headers;
  userKey = (await bearerFor(srv, (await sessionFor(srv, 'editor@example.org')).userId)).headers;
  const as: oauth.AuthorizationServer = await discover(srv);
  plainToken = (await fullFlow(srv, as, { email: ADMIN, scope: 'read write' })).tokens.access_token;
  adminToken = (await fullFlow(srv, as, { email: ADMIN, scope: 'read write admin' })).tokens.access_token;
});
afterAll(() => srv.stop());

const post = (headers: Record<string, string> = {}) => srv.get('/api/admin/content-changed', { method: 'POST', headers });

describe('POST /api/admin/content-changed', () => {
  it('answers 401 without a valid credential and 403 to anyone not acting as an admin, queuing nothing', async () => {
    const requests = await contentRequests(srv.db, srv.dataDir);
    const anonymous = await post();
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await post({ Authorization: 'Bearer kb_not-a-key' })).status).toBe(401);
    expect((await post(userKey)).status).toBe(403);
    // The admin's own token, granted for read write only: not the admin's powers.
    expect((await post(bearer(plainToken))).status).toBe(403);
    expect(await requests.poll()).toBe(0);
    expect((await (await srv.get('/api/audit?kind=pipeline.content_changed')).json()).items).toEqual([]);
  });

  it('answers 202 with what it queued to an admin’s key, session or admin-scoped token; the scheduler reads each request once', async () => {
    const requests = await contentRequests(srv.db, srv.dataDir);
    const admin = await sessionFor(srv, ADMIN);
    for (const headers of [adminKey, bearer(adminToken), admin.headers]) {
      const res = await post(headers);
      expect(res.status).toBe(202);
      expect(res.headers.get('cache-control')).toMatch(/no-store/);
      expect(await res.json()).toMatchObject({ request_id: expect.any(Number), requested_at: expect.any(String), queued: ['update-index', 'rebuild-site'] });
    }
    expect(await requests.poll()).toBe(3);
    expect(await requests.poll()).toBe(0);
    // Each is an audit event, its actor a pseudonym.
    const events = (await (await srv.get('/api/audit?kind=pipeline.content_changed')).json()).items as { subject_type: string; subject_id: string; actor: string; data: unknown }[];
    expect(events).toHaveLength(3);
    for (const e of events) expect(e).toMatchObject({ subject_type: 'pipeline', subject_id: 'content', actor: expect.stringMatching(/^u_/), data: { jobs: ['update-index', 'rebuild-site'] } });

    // A request made while the scheduler is stopped is read when it starts again (DATA_DIR/pipeline/requests.json).
    expect((await post(adminKey)).status).toBe(202);
    expect(await (await contentRequests(srv.db, srv.dataDir)).poll()).toBe(1);
  });
});
