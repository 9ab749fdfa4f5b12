// Reading OAuth requests: form-encoded bodies (RFC 6749 §3.2: every parameter at most once) and HTTP
// Basic client credentials (§2.3.1: client_id and secret are form-urlencoded before base64).
import type { Context } from 'hono';
import { InvalidClient, InvalidRequest } from './errors.ts';

export const FORM_ENCODED = 'application/x-www-form-urlencoded';

/** The request's media type, lower case, without parameters ('' when there is no Content-Type). */
export const mediaType = (c: Context): string => (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();

/** Parameters of an `application/x-www-form-urlencoded` body; a repeated parameter is invalid_request. */
export async function readForm(c: Context): Promise<Map<string, string>> {
  if (mediaType(c) !== FORM_ENCODED) {
    throw new InvalidRequest('the request body must be application/x-www-form-urlencoded');
  }
  return singleValued(new URLSearchParams(await c.req.text()));
}

/** The parameters as a map, refusing any that occurs twice. */
export function singleValued(params: URLSearchParams): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of params) {
    if (out.has(k)) throw new InvalidRequest(`the parameter ${k} is repeated`);
    out.set(k, v);
  }
  return out;
}

const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));

/** The client's Basic credentials, null without an Authorization header; malformed → invalid_client. */
export function basicCredentials(c: Context): { clientId: string; secret: string } | null {
  const header = c.req.header('authorization');
  if (header === undefined) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) throw new InvalidClient('unsupported or malformed Authorization header; use HTTP Basic');
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new InvalidClient('malformed Basic credentials');
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new InvalidClient('malformed Basic credentials');
  }
}
