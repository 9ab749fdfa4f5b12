// check_redirect_uri: what a client may register and what an authorization request may name.
// - registration: absolute https URLs, or http on a loopback host (RFC 8252 §7.3); no fragment, no userinfo
// - authorization: the redirect_uri must equal a registered one exactly (string comparison, OAuth 2.1
//   §4.1.1), except that a loopback redirect URI (http on 127.0.0.1, [::1] or localhost) matches on any
//   port (RFC 8252 §7.3, OAuth 2.1 §2.3.1: native apps get an ephemeral port from the system); it may be
//   omitted only when exactly one is registered
// - a bad redirect_uri is never redirected to: the person sees an error page (RFC 6749 §4.1.2.1)
import { InvalidRedirectUri, NonRedirectableError } from './errors.ts';
import type { Client } from '../../src/lib/data/oauth/store.ts';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Throws invalid_redirect_uri unless `uri` may be registered. */
export function checkRegistrableRedirectUri(uri: unknown): string {
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > 2000) throw new InvalidRedirectUri('each redirect_uri must be a string of 1 to 2000 characters');
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    throw new InvalidRedirectUri(`${uri} is not an absolute URL`);
  }
  if (u.hash || uri.includes('#')) throw new InvalidRedirectUri(`${uri} must not contain a fragment`);
  if (u.username || u.password) throw new InvalidRedirectUri(`${uri} must not contain user information`);
  if (u.protocol === 'https:') return uri;
  if (u.protocol === 'http:' && LOOPBACK.has(u.hostname)) return uri;
  throw new InvalidRedirectUri(`${uri} must use https, or http on a loopback address (127.0.0.1, [::1], localhost)`);
}

/** The redirect_uri an authorization request names, checked against the client's registration. */
export function checkRedirectUri(client: Client, requested: string): { redirectUri: string; given: boolean } {
  if (requested === '') {
    if (client.redirect_uris.length === 1) return { redirectUri: client.redirect_uris[0], given: false };
    throw new NonRedirectableError('invalid_request', 'redirect_uri is required: this client registered more than one');
  }
  if (!client.redirect_uris.includes(requested) && !matchesLoopbackOnAnyPort(client.redirect_uris, requested)) {
    throw new NonRedirectableError('invalid_request', 'redirect_uri does not match any redirect URI registered for this client');
  }
  return { redirectUri: requested, given: true };
}

// `http://` + a loopback host + an optional port, then the path, query or the end. Only the port may differ:
// the rest is compared as written, like any other redirect URI.
const LOOPBACK_AUTHORITY = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::(\d{1,5}))?(?=[/?]|$)/i;

/** The URI with its loopback port removed, or null when it is not a loopback URI with a valid port. */
function withoutLoopbackPort(uri: string): string | null {
  const m = LOOPBACK_AUTHORITY.exec(uri);
  if (!m || (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65_535)) || !URL.canParse(uri)) return null;
  return `http://${m[1].toLowerCase()}${uri.slice(m[0].length)}`;
}

function matchesLoopbackOnAnyPort(registered: string[], requested: string): boolean {
  const asked = withoutLoopbackPort(requested);
  return asked !== null && registered.some((r) => withoutLoopbackPort(r) === asked);
}
