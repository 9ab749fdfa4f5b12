// What a client should do next, for every 4xx the API answers: the `hint` beside `detail`. A route that
// knows better passes its own (ApiError's `hint`); otherwise the status, the challenge and the failing
// parameters decide. Agents act on these, so each names the parameter, endpoint or scope concerned.
import type { ValidationDetail } from '../validation/index.ts';

export const SIGN_IN_HINT =
  'Sign in, then send Authorization: Bearer <token>. Agents: the device flow (POST /api/oauth/device with {"client_name","client_host"}, ' +
  'plus "resource": "<base_url>/mcp" and "scope": "read write" for OAuth tokens that also work at /mcp and for chat; or run /agent-login.sh), ' +
  'or OAuth 2.1 with PKCE (/.well-known/oauth-authorization-server). People: /api/auth/idp/login in a browser.';

export const INVALID_TOKEN_HINT =
  'The bearer token is unknown, expired or revoked: refresh an OAuth token (grant_type=refresh_token at /api/oauth/v2/token) or sign in again ' +
  '(POST /api/oauth/device, or /agent-login.sh).';

/** The way to a token with `scope`, for a caller whose token lacks it. */
export const scopeHint = (scope: string) =>
  `This OAuth token lacks the ${scope} scope. Get a token that has it: start the device flow with "resource": "<base_url>/mcp" and ` +
  `"scope": "read ${scope}" (POST /api/oauth/device), or authorize again with scope="read ${scope}" at /api/oauth/v2/authorize. API keys act with your full rights.`;

export const NOT_FOUND_PATH_HINT =
  'No endpoint has this path. /llms.txt lists the documents, /openapi.json every operation, /api the reference in prose.';

export const JSON_BODY_HINT =
  'Send the body as a JSON object with the header Content-Type: application/json; /openapi.json lists each operation\'s fields.';

/** Parameters whose mistakes have a better answer than their validation message. */
const FIELD_HINTS: Record<string, string> = {
  persona_id: 'persona_id names who answers: GET /api/personas lists them (with their modes and languages).',
  lang: 'lang is en or sl.',
  base_blob: 'base_blob is the blob id GET /api/me/personal-knowledge/notes/{slug} gave you (null to create a new note only).',
  idempotency_key: 'idempotency_key is a fresh UUID per comment (for example from uuidgen); repeat it only to retry the same comment.',
  entity_type: 'entity_type is one of video, essay, digest, knowledge, persona, post; entity_id is that item\'s id (video_id, slug, date, persona_id or post_id).',
  user_code: 'user_code is the code the device showed (8 letters, dashes and spaces optional).',
  q: 'q is the words to search for, at least one character.',
  grant_type: 'grant_type is device_code (or urn:ietf:params:oauth:grant-type:device_code).',
};

const where = (loc: (string | number)[]) => {
  const [part, ...path] = loc;
  const name = path.join('.') || String(part);
  return { part: String(part), name };
};

/** A hint for a 422: which parameters to fix and how, and where to read what they should be. */
export function validationHint(detail: ValidationDetail[]): string {
  if (detail.some((d) => d.type === 'json_invalid')) return JSON_BODY_HINT;
  const missing = detail.filter((d) => d.type === 'missing').map((d) => where(d.loc));
  const wrong = detail.filter((d) => d.type !== 'missing').map((d) => ({ ...where(d.loc), msg: d.msg }));
  const parts: string[] = [];
  if (missing.length) parts.push(`Add the missing ${missing.map((m) => `${m.part} parameter ${m.name}`).join(', ')}.`);
  if (wrong.length) parts.push(`Fix ${wrong.map((w) => `${w.part} parameter ${w.name} (${w.msg})`).join('; ')}.`);
  const known = [...new Set([...missing, ...wrong].map((p) => p.name.split('.')[0]))].map((n) => FIELD_HINTS[n]).filter(Boolean);
  return [...parts, ...known, 'Each operation\'s parameters are in /openapi.json.'].join(' ');
}

/** The hint of an error that did not bring its own. */
export function defaultHint(status: number, headers: Record<string, string>): string | undefined {
  const challenge = headers['WWW-Authenticate'] ?? '';
  switch (status) {
    case 400:
      return 'The request is malformed: check it against /openapi.json.';
    case 401:
      return /invalid_token/.test(challenge) ? INVALID_TOKEN_HINT : SIGN_IN_HINT;
    case 403: {
      const scope = /insufficient_scope.*scope="([^"]+)"/.exec(challenge)?.[1];
      return scope ? scopeHint(scope) : 'Your credential is valid but may not do this (the detail says why); GET /api/auth/me shows who you are signed in as.';
    }
    case 404:
      return 'Nothing has this id: check it (lists: /api/videos, /api/essays, /api/digests, /api/knowledge, /api/personas, /api/posts; or /api/search?q=<words>).';
    case 405:
      return 'This path does not take this method: /openapi.json lists the methods of each path.';
    case 409:
      return 'The item is not in a state that allows this (the detail says which): read it again with GET and decide.';
    case 410:
      return 'It expired or was already used: start over (for a device sign-in, POST /api/oauth/device again).';
    case 412:
      return 'Someone changed it since you read it: GET it again, merge, and send the new ETag in If-Match.';
    case 428:
      return 'Send If-Match with the ETag (quoted, as GET returned it) of the version you changed.';
    case 429:
      return 'Too many requests: wait the number of seconds in Retry-After, then try again.';
    default:
      return status >= 400 && status < 500 ? 'See /openapi.json for what this operation expects.' : undefined;
  }
}
