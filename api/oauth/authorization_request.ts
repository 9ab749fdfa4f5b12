// The authorization request (RFC 6749 §4.1.1, OAuth 2.1 §4.1.1), checked in two stages: errors of the
// first (the redirect_uri is not trusted yet) are always a page; errors of the second are a page too until
// the person has seen the consent page (RFC 9700 §4.11.2), and go back to the client with `state` after:
//   1. check_client, check_redirect_uri, no repeated client_id or redirect_uri
//   2. no repeated parameter, response_type=code, check_pkce, check_scope, check_resource
import { checkAuthorizeClient } from './check_client.ts';
import { checkCodeChallenge } from './check_pkce.ts';
import { checkRedirectUri } from './check_redirect_uri.ts';
import { checkResource } from './check_resource.ts';
import { checkRequestedScope, type Scope } from './check_scope.ts';
import type { OAuthContext } from './context.ts';
import { InvalidRequest, NonRedirectableError, UnsupportedResponseType } from './errors.ts';
import type { Client } from '../../src/lib/data/oauth/store.ts';

export const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'scope', 'state', 'resource'] as const;
export type AuthorizeParams = Record<(typeof AUTHORIZE_PARAMS)[number], string>;

export interface RedirectTarget {
  client: Client;
  redirectUri: string;
  redirectUriGiven: boolean;
}

export interface CheckedRequest {
  codeChallenge: string;
  scopes: Scope[];
  resource: string;
}

export async function checkRedirectTarget(ctx: OAuthContext, p: AuthorizeParams, repeated: string[]): Promise<RedirectTarget> {
  for (const name of ['client_id', 'redirect_uri']) {
    if (repeated.includes(name)) throw new NonRedirectableError('invalid_request', `the parameter ${name} is repeated`);
  }
  const client = await checkAuthorizeClient(ctx.store, p.client_id);
  const { redirectUri, given } = checkRedirectUri(client, p.redirect_uri);
  return { client, redirectUri, redirectUriGiven: given };
}

export function checkRequest(ctx: OAuthContext, p: AuthorizeParams, target: RedirectTarget, repeated: string[]): CheckedRequest {
  if (repeated.length > 0) throw new InvalidRequest(`the parameter ${repeated[0]} is repeated`);
  if (p.response_type === '') throw new InvalidRequest('response_type is required');
  if (p.response_type !== 'code') throw new UnsupportedResponseType('only response_type=code is supported');
  const codeChallenge = checkCodeChallenge(p.code_challenge, p.code_challenge_method);
  const scopes = checkRequestedScope(target.client, p.scope);
  const resource = checkResource(p.resource, ctx.resource);
  return { codeChallenge, scopes, resource };
}

/** The redirect back to the client: its URI with our parameters appended, plus `iss` (RFC 9207). */
export function clientRedirect(ctx: OAuthContext, redirectUri: string, params: Record<string, string>, state: string): string {
  const q = new URLSearchParams(params);
  if (state !== '') q.set('state', state);
  q.set('iss', ctx.issuer);
  const u = new URL(redirectUri);
  // Appended to the registered query as it is written, so its own encoding is kept.
  return `${u.origin}${u.pathname}${u.search ? `${u.search}&` : '?'}${q}`;
}
