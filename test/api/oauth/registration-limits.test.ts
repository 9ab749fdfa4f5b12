// Anonymous client registration cannot grow the database or the audit log without bound (issue 13, item
// 7): a per-address limit (429, RFC 6749 body, Retry-After), clients no one ever grants anything are
// removed after OAUTH_UNUSED_CLIENT_TTL_HOURS, and a registration writes no audit event: the client enters
// the log with the first grant a person gives it.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { discover, fullFlow, oauthError, register } from './helpers.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { OAUTH_REGISTRATIONS_PER_HOUR: '4', OAUTH_UNUSED_CLIENT_TTL_HOURS: '24' } });
  as = await discover(srv);
});
afterAll(() => srv.stop());

const clients = async () => await srv.db.prepare('SELECT count(*) FROM oauth_clients').pluck().get() as number;
const registrationEvents = async () => await srv.db.prepare("SELECT count(*) FROM audit_events WHERE kind LIKE 'oauth.client%'").pluck().get() as number;

describe('dynamic client registration', () => {
  it('writes no audit event; the first grant names the client in the log', async () => {
    const { reg } = await fullFlow(srv, as, { email: 'owner@example.org', metadata: { client_name: 'Desk Agent' } });
    expect(await registrationEvents()).toBe(0);
    const grants = (await (await srv.get('/api/audit?kind=oauth.grant.create')).json()).items;
    expect(grants.at(-1).data).toMatchObject({ client_id: reg.client.client_id, client_name: 'Desk Agent' });
  });

  it('removes clients no one granted anything once they are older than the lifetime, and keeps the rest', async () => {
    const used = (await fullFlow(srv, as, { email: 'owner@example.org' })).reg.client.client_id;
    const unused = (await register(as)).client.client_id;
    await srv.db.prepare("UPDATE oauth_clients SET created_at = '2000-01-01T00:00:00.000Z' WHERE client_id IN (?, ?)").run(used, unused);
    const fresh = (await register(as)).client.client_id; // each registration sweeps
    const ids = await srv.db.prepare('SELECT client_id FROM oauth_clients').pluck().all() as string[];
    expect(ids).toContain(used);
    expect(ids).toContain(fresh);
    expect(ids).not.toContain(unused);
  });

  it('answers 429 temporarily_unavailable with Retry-After beyond the per-address limit, storing nothing', async () => {
    // The two tests above registered four clients from this address: the limit is used up.
    const before = await clients();
    const res = await srv.get('/api/oauth/v2/register', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }) });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await oauthError(res, 429, 'temporarily_unavailable')).toMatch(/Too many registrations/);
    expect(await clients()).toBe(before);
  });
});
