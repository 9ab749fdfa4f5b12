// check_client_metadata: the registration request (RFC 7591 §2).
// - redirect_uris: required, 1 to 10, each per check_redirect_uri (else invalid_redirect_uri)
// - token_endpoint_auth_method: none (public, PKCE) or client_secret_basic (the RFC's default)
// - grant_types: a subset of authorization_code and refresh_token including authorization_code; both
//   when omitted, so a client that says nothing can refresh (the answer tells it what it got)
// - response_types: code; scope: known scopes; URLs and names bounded; unknown fields ignored (§2)
import { OAUTH_SCOPES } from '../../src/lib/read/discovery/shared.ts';
import { checkRegistrableRedirectUri } from './check_redirect_uri.ts';
import { InvalidClientMetadata, InvalidRedirectUri, InvalidScope } from './errors.ts';
import { parseScope } from './check_scope.ts';
import type { AuthMethod, Client } from '../../src/lib/data/oauth/store.ts';

export interface CheckedMetadata {
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: AuthMethod;
  metadata: Client['metadata'];
}

const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const OPTIONAL_URLS = ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'] as const;
const OPTIONAL_STRINGS = ['software_id', 'software_version'] as const;

function stringList(v: unknown, field: string, max: number): string[] {
  if (!Array.isArray(v) || v.length > max || v.some((x) => typeof x !== 'string')) {
    throw new InvalidClientMetadata(`${field} must be an array of at most ${max} strings`);
  }
  return v as string[];
}

export function checkClientMetadata(body: unknown): CheckedMetadata {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InvalidClientMetadata('the body must be a JSON object');
  const m = body as Record<string, unknown>;

  if (m.redirect_uris === undefined) throw new InvalidRedirectUri('redirect_uris is required');
  if (!Array.isArray(m.redirect_uris) || m.redirect_uris.length === 0 || m.redirect_uris.length > 10) {
    throw new InvalidRedirectUri('redirect_uris must be an array of 1 to 10 URLs');
  }
  const redirect_uris = [...new Set(m.redirect_uris.map(checkRegistrableRedirectUri))];

  const method = m.token_endpoint_auth_method ?? 'client_secret_basic';
  if (method !== 'none' && method !== 'client_secret_basic') {
    throw new InvalidClientMetadata('token_endpoint_auth_method must be none or client_secret_basic');
  }

  const grant_types = m.grant_types === undefined ? GRANT_TYPES : stringList(m.grant_types, 'grant_types', 2);
  if (grant_types.some((g) => !GRANT_TYPES.includes(g)) || !grant_types.includes('authorization_code')) {
    throw new InvalidClientMetadata('grant_types must include authorization_code and may add refresh_token');
  }
  const response_types = m.response_types === undefined ? ['code'] : stringList(m.response_types, 'response_types', 1);
  if (response_types.length !== 1 || response_types[0] !== 'code') throw new InvalidClientMetadata('response_types must be ["code"]');

  const metadata: Client['metadata'] = {
    redirect_uris,
    token_endpoint_auth_method: method,
    grant_types: GRANT_TYPES.filter((g) => grant_types.includes(g)),
    response_types,
  };

  let client_name = '';
  if (m.client_name !== undefined) {
    if (typeof m.client_name !== 'string' || m.client_name.trim().length === 0 || m.client_name.length > 100) {
      throw new InvalidClientMetadata('client_name must be a string of 1 to 100 characters');
    }
    client_name = m.client_name.trim();
    metadata.client_name = client_name;
  }
  if (m.scope !== undefined) {
    if (typeof m.scope !== 'string') throw new InvalidClientMetadata('scope must be a space-separated string');
    try {
      metadata.scope = parseScope(m.scope).join(' ');
    } catch (err) {
      if (err instanceof InvalidScope) throw new InvalidClientMetadata(`scope: ${err.message}`);
      throw err;
    }
    if (metadata.scope === '') throw new InvalidClientMetadata(`scope must name at least one of ${OAUTH_SCOPES.join(' ')}`);
  }
  for (const field of OPTIONAL_URLS) {
    const v = m[field];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length > 2000 || !/^https?:\/\//.test(v) || !URL.canParse(v)) {
      throw new InvalidClientMetadata(`${field} must be an http(s) URL`);
    }
    metadata[field] = v;
  }
  for (const field of OPTIONAL_STRINGS) {
    const v = m[field];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length > 200) throw new InvalidClientMetadata(`${field} must be a string of at most 200 characters`);
    metadata[field] = v;
  }
  if (m.contacts !== undefined) metadata.contacts = stringList(m.contacts, 'contacts', 10).map((s) => s.slice(0, 200));

  return { client_name, redirect_uris, token_endpoint_auth_method: method, metadata };
}
