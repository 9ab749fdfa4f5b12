// Completes the document generated from the routes' schemas with what generic tooling needs and the
// schemas cannot say: the security schemes and each operation's security, operationIds and descriptions
// (from the catalogue), declared tags, the answers every route of a kind can give (401 before 422,
// 403 for scopes and cross-site writes, 413 for oversized bodies, 422 for a NUL in the query), and each
// operation's examples (api/openapi/examples.ts).
import { CATALOGUE, NEEDS_USER, TAGS, type Access } from './catalogue.ts';
import { applyExample, type OperationExample } from './examples.ts';
import { BODY_TOO_LARGE } from '../errors/body-size.ts';
import { OAUTH_SCOPES } from '../../src/lib/read/discovery/shared.ts';

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: Json[];
  requestBody?: { content?: Record<string, Json> };
  responses: Record<string, Json>;
}
export interface OpenApiDocument {
  info: Json & { description?: string };
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: Json & { securitySchemes?: Json };
}

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const SESSION_COOKIE = 'kb_session';

/** The security schemes: API keys (bearer), the session cookie, OAuth 2.1, the chat token, OAuth client credentials. */
export function securitySchemes(baseUrl: string): Json {
  const scopes: Record<(typeof OAUTH_SCOPES)[number], string> = {
    read: 'Read on your behalf (GET requests; the MCP resource).',
    write: 'Write on your behalf: comments, posts, flags, notes (every other method).',
    moderate: 'Use your moderator powers (hide comments, review posts, decide proposals), if you hold them.',
    admin: 'Use your admin powers, if you hold them.',
  };
  return {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'API key',
      description:
        'Authorization: Bearer <API key>. A key is created in a browser session (POST /api/account/api-keys) or by the device flow (POST /api/oauth/device, then POST /api/oauth/token); it carries the service prefix and acts with your full rights.',
    },
    session: {
      type: 'apiKey',
      in: 'cookie',
      name: SESSION_COOKIE,
      description: 'The browser session set by sign-in at /api/auth/idp/login. Writes with it must come from this origin (Origin or Referer), or they are refused 403.',
    },
    oauth2: {
      type: 'oauth2',
      description:
        `OAuth 2.1: authorization code with PKCE (S256 only), dynamic client registration at ${baseUrl}/api/oauth/v2/register, rotating refresh tokens. ` +
        `Metadata (RFC 8414): ${baseUrl}/.well-known/oauth-authorization-server; the access token is sent as Authorization: Bearer and is bound to the audience ${baseUrl}/mcp. ` +
        'The device authorization grant (RFC 8628) is offered too: see the metadata.',
      flows: {
        authorizationCode: {
          authorizationUrl: `${baseUrl}/api/oauth/v2/authorize`,
          tokenUrl: `${baseUrl}/api/oauth/v2/token`,
          refreshUrl: `${baseUrl}/api/oauth/v2/token`,
          scopes,
        },
      },
    },
    chatToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'chat token',
      description: 'The short-lived token from POST /api/chat/auth, bound to a user (or an anonymous caller), a persona, a language and a mode.',
    },
    clientBasic: {
      type: 'http',
      scheme: 'basic',
      description: 'OAuth client authentication of confidential clients (client_secret_basic): client_id and client_secret. Public clients send client_id in the form instead.',
    },
  };
}

/** The security requirement of an access kind (alternatives; `{}` makes credentials optional). */
export function securityFor(access: Access, method: string): Record<string, string[]>[] {
  const rw = method === 'get' || method === 'head' ? 'read' : 'write';
  const anyUser = (scopes: string[][]): Record<string, string[]>[] => [{ bearer: [] }, { session: [] }, ...scopes.map((s) => ({ oauth2: s }))];
  switch (access) {
    case 'public':
      return [];
    case 'optional':
      return [{}, ...anyUser([[rw]])];
    case 'user':
      return anyUser([[rw]]);
    case 'session':
    case 'account':
      return [{ session: [] }];
    case 'moderator':
      return anyUser([[rw, 'moderate'], [rw, 'admin']]);
    case 'admin':
      return anyUser([[rw, 'admin']]);
    case 'chat':
      return [{ chatToken: [] }, ...anyUser([['read']])];
    case 'oauth-client':
      return [{}, { clientBasic: [] }];
    case 'mcp':
      // Read tools need nothing; the person's notes `read`, the tools that act `write`.
      return [{}, { oauth2: ['read'] }, { oauth2: ['read', 'write'] }];
    case 'browser':
      return [{}, { session: [] }];
  }
}

const ACCESS_NOTE: Record<Access, string> = {
  public: 'Anonymous: no credentials.',
  optional: 'Anonymous, or signed in (a signed-in caller may see more).',
  user: 'Needs a signed-in user: an API key, an OAuth access token (scope read for GET, write otherwise) or a browser session.',
  session: 'Needs a browser session (other credentials get 401).',
  account: 'Needs a browser session: API keys and OAuth access tokens are refused with 403.',
  moderator: 'Needs a moderator (an OAuth access token also needs the moderate or admin scope).',
  admin: 'Needs an admin (an OAuth access token also needs the admin scope).',
  chat: 'Needs a chat token from POST /api/chat/auth, or an API key, OAuth access token (scope read) or session with persona_id in the body, as Authorization: Bearer.',
  'oauth-client': 'OAuth client authentication: HTTP Basic for confidential clients, client_id alone for public ones.',
  mcp: 'Read tools need no credentials; an OAuth 2.1 access token issued for this resource adds your notes (scope read) and the tools that act (scope write). API keys are refused.',
  browser: 'For people in a browser; a browser session where the page needs one.',
};

const ORDER_NOTE = 'The caller\'s identity is checked before the request is validated: 401 comes before any 422.';

const errorBody = (description: string, extra: Json = {}): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDetail' } } },
  ...extra,
});
const NUL_IN_QUERY: Json = {
  description: 'A query parameter holds a NUL character (%00): the 422 names it.',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } },
};
const htmlPage = (description: string): Json => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const WWW_AUTHENTICATE = { 'WWW-Authenticate': { description: 'The Bearer challenge (RFC 6750): error="invalid_token" for a bad token.', schema: { type: 'string' } } };

/** Adds security schemes, tags, and each catalogued operation's id, description, security, common answers and examples. */
export function completeDocument<D extends OpenApiDocument>(doc: D, baseUrl: string, examples: Record<string, OperationExample> = {}): D {
  doc.info.description = `${doc.info.description ?? ''}\n\nAuthentication: see components.securitySchemes; each operation names its own security (empty for anonymous ones). ${ORDER_NOTE} Request bodies over 1 MB are refused with 413.`.trim();
  doc.components = { ...doc.components, securitySchemes: securitySchemes(baseUrl) };
  const schemas = (doc.components.schemas ??= {}) as Json;
  schemas.ErrorDetail ??= { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] };
  const used = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      for (const t of op.tags ?? []) used.add(t);
      const entry = CATALOGUE[`${method.toUpperCase()} ${path}`];
      if (!entry) continue; // the OpenAPI test names operations without an entry
      op.operationId = entry.operationId;
      // The catalogue's description, then what the route says itself (the summary when neither does).
      const said = [entry.description, op.description].filter(Boolean);
      op.description = [...(said.length ? said : [op.summary ?? '']), ACCESS_NOTE[entry.access]].join('\n\n');
      op.security = securityFor(entry.access, method);
      const r = op.responses;
      if (NEEDS_USER.has(entry.access) || entry.access === 'chat') {
        op.description += ` ${ORDER_NOTE}`;
        const given = r['401'];
        r['401'] = given
          ? { ...given, description: `${String(given.description)}. ${ORDER_NOTE}`, headers: { ...WWW_AUTHENTICATE, ...(given.headers as Json | undefined) } }
          : errorBody(`Not signed in, or the credentials are invalid or expired. ${ORDER_NOTE}`, { headers: WWW_AUTHENTICATE });
      }
      if (NEEDS_USER.has(entry.access)) r['403'] ??= errorBody('The credentials lack the scope or role this needs, or may not do this');
      const unsafe = method !== 'get' && method !== 'head' && method !== 'options';
      if (unsafe && entry.access !== 'public' && entry.access !== 'chat' && entry.access !== 'mcp' && entry.access !== 'oauth-client') {
        r['403'] ??= errorBody('A cross-site write with the session cookie (no same-origin Origin or Referer)');
      }
      if (unsafe) r['413'] ??= errorBody(`The request body is over 1 MB: {"detail": "${BODY_TOO_LARGE}"}`);
      for (const [status, text] of Object.entries(entry.responses ?? {})) r[status] ??= entry.access === 'browser' ? htmlPage(text) : errorBody(text);
      // Every request passes the NUL check (api/validation/nul-guard.ts): an operation with no other 4xx
      // (a read without parameters) can still answer this one.
      if (!Object.keys(r).some((status) => status.startsWith('4'))) r['422'] = NUL_IN_QUERY;
      const example = examples[`${method.toUpperCase()} ${path}`];
      if (example) applyExample(op, example);
    }
  }
  const declared = new Map(TAGS.map((t) => [t.name, t]));
  doc.tags = [...TAGS.filter((t) => used.has(t.name)), ...[...used].filter((t) => !declared.has(t)).map((name) => ({ name }))];
  return doc;
}
