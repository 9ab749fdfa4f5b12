// Two server processes on one PostgreSQL (issue 17), for the credentials: a session made on one instance
// works on the other; an OAuth refresh token replayed on another instance than the one that rotated it
// still revokes the family; and a device request polled on both instances at once mints one key.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres, startPostgres, type PgCluster } from '../helpers/postgres.ts';
import { signInThroughIdp, type Browser } from '../helpers/browser.ts';
import { call, startInstances, type Instance, type InstanceGroup } from './instances.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

describePostgres('two instances on one PostgreSQL: sessions, OAuth and the device flow', () => {
  let pg: PgCluster;
  let group: InstanceGroup;
  let a: Instance, b: Instance;
  let browser: Browser;
  let userId: string;

  beforeAll(async () => {
    pg = await startPostgres();
    group = await startInstances(pg, { count: 2 });
    [a, b] = group.instances;
    // The real browser sign-in, through the embedded identity provider on A (BASE_URL is A's address).
    const signedIn = await signInThroughIdp(a.url, 'owner@example.org', 'Owner');
    browser = signedIn.browser;
    expect(browser.cookies.get('kb_session')).toBeTruthy();
    const me = await call(`${b.url}/api/auth/me`, { headers: { Cookie: browser.cookieHeader() } });
    expect(me.body.authenticated, 'the session made on A is known to B').toBe(true);
    userId = me.body.user.id;
  });
  afterAll(async () => {
    await group?.stop();
    await pg?.stop();
  });

  const whoAmI = async (inst: Instance, token: string) => (await fetch(`${inst.url}/api/auth/me`, { headers: { Authorization: `Bearer ${token}` } })).status;
  const oauthError = async (res: Response) => ({ status: res.status, error: ((await res.json()) as { error: string }).error });

  it('revokes the family when a refresh token rotated on A is replayed on B', async () => {
    // A real client: discovery and dynamic registration on A, PKCE.
    const issuer = new URL(group.baseUrl);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
    expect(as.issuer).toBe(a.url);
    // The same authorization server, reached at B's address.
    const asB: oauth.AuthorizationServer = { ...as, token_endpoint: as.token_endpoint!.replace(a.url, b.url) };
    const regRes = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', client_name: 'Two-instance agent' }, insecure);
    expect(regRes.status).toBe(200);
    const client: oauth.Client = { client_id: ((await regRes.json()) as { client_id: string }).client_id, token_endpoint_auth_method: 'none' };
    const auth = oauth.None();

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      scope: 'read write',
    });
    // The consent page comes from B (the session made on A), its form is answered on A (the CSRF token B
    // made is checked by A: the shared consent key).
    const page = await browser.request(`${b.url}/api/oauth/v2/authorize?${query}`);
    const html = await page.text();
    expect(page.status, html.slice(0, 300)).toBe(200);
    const back = await browser.submit(html, `${a.url}/api/oauth/v2/authorize?${query}`, /\/api\/oauth\/v2\/authorize$/, { decision: 'approve' }, /^http:\/\/127\.0\.0\.1:9\//);
    expect(back.status).toBe(303);
    const params = oauth.validateAuthResponse(as, client, new URL(back.headers.get('location')!), state);

    // The code is exchanged on B, the refresh token rotated on A.
    const first = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(asB, client, auth, params, REDIRECT_URI, verifier, insecure));
    expect(first.refresh_token).toMatch(/^ort_/);
    const second = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token!, insecure));
    expect(second.refresh_token).toMatch(/^ort_/);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await whoAmI(b, second.access_token)).toBe(200);

    // The old refresh token, replayed on B: refused, and the whole family is revoked.
    expect(await oauthError(await oauth.refreshTokenGrantRequest(asB, client, auth, first.refresh_token!, insecure))).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await oauthError(await oauth.refreshTokenGrantRequest(as, client, auth, second.refresh_token!, insecure))).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await oauthError(await oauth.refreshTokenGrantRequest(asB, client, auth, second.refresh_token!, insecure))).toEqual({ status: 400, error: 'invalid_grant' });
    for (const inst of [a, b]) {
      for (const t of [first.access_token, second.access_token]) expect(await whoAmI(inst, t)).toBe(401);
    }
    const grants = await group.query<{ revoked_reason: string | null }>('SELECT revoked_reason FROM oauth_grants WHERE client_id = $1', [client.client_id]);
    expect(grants).toEqual([{ revoked_reason: 'refresh_token_reuse' }]);
  });

  it('mints one API key when a device request is polled on A and B at once', async () => {
    const started = await call(`${a.url}/api/oauth/device`, { method: 'POST', json: { client_name: 'twin-agent', client_host: 'box' } });
    expect(started.status).toBe(200);
    const { device_code, user_code } = started.body as { device_code: string; user_code: string };
    const poll = (inst: Instance) => call(`${inst.url}/api/oauth/token`, { method: 'POST', json: { grant_type: DEVICE_GRANT, device_code } });
    expect((await poll(b)).body.error).toBe('authorization_pending');

    // Approved on B by the person whose session A made.
    const decided = await call(`${b.url}/api/device/approve`, { method: 'POST', headers: { Cookie: browser.cookieHeader(), Origin: b.url }, json: { user_code, action: 'approve' } });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.status).toBe('approved');

    const polls = await Promise.all([...Array.from({ length: 10 }, () => poll(a)), ...Array.from({ length: 10 }, () => poll(b))]);
    const ok = polls.filter((p) => p.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0].body.access_token).toMatch(/^kb_/);
    const refused = polls.filter((p) => p.status !== 200);
    expect(refused.map((p) => [p.status, p.body.error])).toEqual(Array.from({ length: 19 }, () => [400, 'invalid_grant']));

    const keys = await group.query<{ id: string }>("SELECT id FROM api_keys WHERE user_id = $1 AND source = 'device'", [userId]);
    expect(keys).toEqual([{ id: ok[0].body.key_id }]);
    const requests = await group.query<{ status: string; api_key_id: string }>('SELECT status, api_key_id FROM device_requests');
    expect(requests).toEqual([{ status: 'consumed', api_key_id: ok[0].body.key_id }]);
    const minted = await group.query<{ n: string }>("SELECT COUNT(*) AS n FROM audit_events WHERE kind = 'device.token'");
    expect(Number(minted[0].n)).toBe(1);
    for (const inst of [a, b]) expect(await whoAmI(inst, ok[0].body.access_token)).toBe(200);
  });
});
