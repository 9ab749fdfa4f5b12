// Driving the authorization server as its clients do: oauth4webapi for discovery, registration, PKCE,
// the token and revocation endpoints; a cookie-keeping browser with a signed-in session for the consent.
import * as oauth from 'oauth4webapi';
import { expect } from 'vitest';
import { Browser } from '../../helpers/browser.ts';
import { sessionFor } from '../../helpers/auth.ts';
import type { TestServer } from '../../helpers/server.ts';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';
/** http://127.0.0.1 is our test issuer; oauth4webapi refuses plain http unless told. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export async function discover(srv: TestServer): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(srv.url);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
}

export interface RegisteredClient {
  client: oauth.Client;
  auth: oauth.ClientAuth;
  secret?: string;
  body: Record<string, unknown>;
}

/** Registers through oauth4webapi's request. The spec answers 200 where RFC 7591 says 201, so the body is read here. */
export async function register(as: oauth.AuthorizationServer, metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const res = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', client_name: 'Test Agent', ...metadata }, insecure);
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(200);
  const secret = body.client_secret as string | undefined;
  return {
    client: { client_id: body.client_id as string, token_endpoint_auth_method: body.token_endpoint_auth_method as string },
    auth: secret ? oauth.ClientSecretBasic(secret) : oauth.None(),
    secret,
    body,
  };
}

/** A browser holding a session of the person with this e-mail (the sign-in itself is tested elsewhere). */
export async function signedInBrowser(srv: TestServer, email: string, name?: string): Promise<{ browser: Browser; userId: string }> {
  const s = await sessionFor(srv, email, name);
  const browser = new Browser(srv.url);
  browser.cookies.set('kb_session', s.cookie.slice('kb_session='.length));
  return { browser, userId: s.userId };
}

export interface Pkce {
  verifier: string;
  challenge: string;
  state: string;
}

export async function pkce(): Promise<Pkce> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier), state: oauth.generateRandomState() };
}

export function authorizeUrl(as: oauth.AuthorizationServer, client: oauth.Client, p: Pkce, extra: Record<string, string> = {}): string {
  const u = new URL(as.authorization_endpoint!);
  u.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: p.challenge,
    code_challenge_method: 'S256',
    state: p.state,
    ...extra,
  }).toString();
  return u.href;
}

/** Opens the consent page (expects it) and answers it; returns the redirect back to the client. */
export async function consent(browser: Browser, url: string, decision: 'approve' | 'deny' = 'approve'): Promise<URL> {
  const page = await browser.request(url);
  const html = await page.text();
  expect(page.status, html.slice(0, 500)).toBe(200);
  const back = await browser.submit(html, url, /\/api\/oauth\/v2\/authorize$/, { decision }, /^http:\/\/127\.0\.0\.1:9\//);
  expect(back.status).toBe(303);
  return new URL(back.headers.get('location')!);
}

/** Registration, consent and code exchange: the whole flow, as a client sees it. */
export async function fullFlow(
  srv: TestServer,
  as: oauth.AuthorizationServer,
  opts: { email?: string; metadata?: Record<string, unknown>; scope?: string; registered?: RegisteredClient } = {},
) {
  const reg = opts.registered ?? (await register(as, opts.metadata));
  const { browser, userId } = await signedInBrowser(srv, opts.email ?? 'agent-owner@example.org');
  const p = await pkce();
  const back = await consent(browser, authorizeUrl(as, reg.client, p, opts.scope ? { scope: opts.scope } : {}));
  const params = oauth.validateAuthResponse(as, reg.client, back, p.state);
  const res = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, p.verifier, insecure);
  const tokens = await oauth.processAuthorizationCodeResponse(as, reg.client, res);
  return { reg, browser, userId, pkce: p, code: params.get('code')!, tokens };
}

export async function refresh(as: oauth.AuthorizationServer, reg: RegisteredClient, refreshToken: string): Promise<Response> {
  return oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, refreshToken, insecure);
}

/** A raw form POST to the token endpoint, for the requests oauth4webapi would not make. */
export function tokenPost(srv: TestServer, body: Record<string, string> | string, headers: Record<string, string> = {}): Promise<Response> {
  return srv.get('/api/oauth/v2/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: typeof body === 'string' ? body : new URLSearchParams(body).toString(),
  });
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** What /api/auth/me says of a token: its status, and the body. */
export async function whoAmI(srv: TestServer, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await srv.get('/api/auth/me', { headers: bearer(token) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** An OAuth error body, checked to be the RFC 6749 §5.2 shape, never cached. */
export async function oauthError(res: Response, status: number, error: string): Promise<string> {
  const body = (await res.json()) as { error: string; error_description?: string };
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.error).toBe(error);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return body.error_description ?? '';
}
