// RFC 8252 §7.3 and OAuth 2.1 §2.3.1 (issue 15, item 7): a native client registers a loopback redirect URI
// (with or without a port) and then listens on whatever port the system gives it. The authorization
// server matches loopback IP redirect URIs ignoring the port, and nothing else: host, path and query must
// still be as registered, and the code is bound to the exact URI (port included) the request named.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { discover, insecure, pkce, signedInBrowser, whoAmI } from './helpers.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true });
  as = await discover(srv);
});
afterAll(() => srv.stop());

async function registerNative(redirectUris: string[]): Promise<oauth.Client> {
  const res = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: redirectUris, token_endpoint_auth_method: 'none', client_name: 'Native App' }, insecure);
  const body = (await res.json()) as { client_id: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { client_id: body.client_id, token_endpoint_auth_method: 'none' };
}

function authorizeUrl(client: oauth.Client, redirectUri: string, challenge: string, state: string): string {
  const u = new URL(as.authorization_endpoint!);
  u.search = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state }).toString();
  return u.href;
}

/** Consent, approval, code exchange through oauth4webapi with `redirectUri`; returns the redirect and the token response. */
async function signInAt(client: oauth.Client, redirectUri: string) {
  const { browser } = await signedInBrowser(srv, 'native-user@example.org');
  const p = await pkce();
  const url = authorizeUrl(client, redirectUri, p.challenge, p.state);
  const page = await browser.request(url);
  const html = await page.text();
  expect(page.status, html.slice(0, 300)).toBe(200);
  const back = await browser.submit(html, url, /\/api\/oauth\/v2\/authorize$/, { decision: 'approve' }, /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)[:/]/);
  expect(back.status).toBe(303);
  const location = new URL(back.headers.get('location')!);
  const params = oauth.validateAuthResponse(as, client, location, p.state);
  const exchange = (uri: string) => oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, uri, p.verifier, insecure);
  return { location, exchange };
}

describe('loopback redirect URIs match on any port', () => {
  it('a client registered with http://127.0.0.1/callback (no port) signs in at http://127.0.0.1:34024/callback', async () => {
    const client = await registerNative(['http://127.0.0.1/callback']);
    const { location, exchange } = await signInAt(client, 'http://127.0.0.1:34024/callback');
    expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:34024/callback');
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange('http://127.0.0.1:34024/callback'));
    expect((await whoAmI(srv, tokens.access_token)).status).toBe(200);
  });

  it('a client registered with http://127.0.0.1:34023/callback signs in at port 34024; the code is bound to 34024', async () => {
    const client = await registerNative(['http://127.0.0.1:34023/callback']);
    const { location, exchange } = await signInAt(client, 'http://127.0.0.1:34024/callback');
    expect(location.port).toBe('34024');
    // The token request must repeat the authorization request's redirect_uri exactly, port included.
    const wrongPort = await exchange('http://127.0.0.1:34023/callback');
    expect(wrongPort.status).toBe(400);
    expect(((await wrongPort.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('holds for [::1] and localhost, and keeps the registered query', async () => {
    const v6 = await registerNative(['http://[::1]:8080/cb']);
    expect((await signInAt(v6, 'http://[::1]:51000/cb')).location.host).toBe('[::1]:51000');
    const named = await registerNative(['http://localhost/cb?app=notes']);
    const { location } = await signInAt(named, 'http://localhost:40000/cb?app=notes');
    expect(location.host).toBe('localhost:40000');
    expect(location.searchParams.get('app')).toBe('notes');
    expect(location.searchParams.get('code')).toBeTruthy();
  });
});

describe('only the port may differ', () => {
  it('refuses another path, host, query or scheme, user information, and any port of a non-loopback URI (a page, no redirect)', async () => {
    const native = await registerNative(['http://127.0.0.1:34023/callback', 'https://app.example/callback']);
    const { browser } = await signedInBrowser(srv, 'native-user@example.org');
    const p = await pkce();
    for (const uri of [
      'http://127.0.0.1:34024/callback/other',
      'http://127.0.0.1:34024/callbacks',
      'http://127.0.0.1:34024/callback?x=1',
      'http://127.0.0.1:34024/Callback',
      'http://localhost:34024/callback', // registered 127.0.0.1: another host
      'http://[::1]:34024/callback',
      'https://127.0.0.1:34024/callback',
      'http://127.0.0.1:34024@evil.example/callback',
      'http://127.0.0.1:0/callback',
      'http://127.0.0.1:65536/callback',
      'http://127.0.0.1.evil.example:34024/callback',
      'https://app.example:444/callback',
      'http://app.example/callback',
    ]) {
      const res = await browser.request(authorizeUrl(native, uri, p.challenge, p.state));
      expect(res.status, uri).toBe(400);
      expect(res.headers.get('location'), uri).toBeNull();
    }
  });
});
