// The device flow's JSON endpoints: start (POST with the spec's JSON or an RFC 8628 form, and the GET alias
// for sandboxes), the code lookup the approval page uses, and the approve/deny decision. The token poll is
// in token.ts.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { addRoute, RequestValidationError } from '../validation/route.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, HTTPValidationError } from '../openapi/schemas.ts';
import { principal, requireSession } from '../auth/middleware.ts';
import { keyLifetime, type DeviceFlow } from './flow.ts';
import type { DeviceRequest } from '../../src/lib/data/device/store.ts';
import { OAuthError, TooManyRequests, InvalidRequest, InvalidTarget, oauthErrorResponse } from '../oauth/errors.ts';
import { parseScope } from '../oauth/check_scope.ts';
import { mcpResource } from '../oauth/check_resource.ts';
import { FORM_ENCODED, mediaType, singleValued } from '../oauth/form.ts';
import { authenticateDeviceClient } from '../oauth/check_client.ts';
import type { Client, OAuthStore } from '../../src/lib/data/oauth/store.ts';
import { OAuthErrorBody } from '../oauth/schemas.ts';
import { formatUserCode } from './user-code.ts';
import {
  DeviceApproveOut,
  DeviceApproveRequest,
  DeviceAuthForm,
  DeviceAuthQuery,
  DeviceAuthRequest,
  DeviceAuthResponse,
  DeviceLookupOut,
  LookupQuery,
} from './schemas.ts';
import type { CodeAccess } from './access.ts';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const E422 = { 422: json(HTTPValidationError, 'Validation error') };
const E429 = { 429: json(ErrorDetail, 'Too many unknown codes from this client; see Retry-After') };
const E401_CLIENT = { 401: json(OAuthErrorBody, 'client_id names a registered client that failed to authenticate (RFC 6749 §5.2 invalid_client, with a Basic challenge): a confidential one sends HTTP Basic') };
const CODE_ERRORS = { 404: json(ErrorDetail, 'No request has this code'), 410: json(ErrorDetail, 'The request expired or was already decided'), ...E422, ...E429 };
// RFC 6749 §5.1: token responses must not be cached; the same holds for anything carrying a device_code.
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export interface DeviceRouteOptions {
  baseUrl: string;
  /** Device requests one client address may start per window (token bucket). */
  startLimiter: { take(key: string): Promise<number> };
  clientAddress: (c: Context) => string;
  /** The authorization server's clients: a registered one authenticates here as at its token endpoint. */
  store: OAuthStore;
}

export function lookupOut(c: Context, row: DeviceRequest) {
  const p = principal(c);
  return {
    user_code: formatUserCode(row.user_code),
    client_name: row.client_name,
    client_host: row.client_host,
    status: 'pending' as const,
    sandbox: row.sandbox === 1,
    key_expires_in: keyLifetime(row),
    scope: row.oauth_scope,
    created_at: row.created_at,
    expires_at: row.expires_at,
    viewer: { signed_in: p !== null, role: p?.user.role ?? null, can_approve: p?.via === 'session' },
  };
}

interface OAuthAsk {
  scope?: string;
  resource?: string;
}

/**
 * What a start request asked for: OAuth tokens when it names the resource they are for (RFC 8707,
 * `resource={BASE_URL}/mcp`, as MCP clients send it), with its scope (`read` by default, as at the authorize
 * endpoint); otherwise an API key, and the scope is ignored as before (standard clients send scopes of
 * other services). Throws invalid_target for another resource and invalid_scope for scopes this server
 * does not have.
 */
export function oauthAsk(f: OAuthAsk, baseUrl: string): { scope: string } | undefined {
  const scope = f.scope?.trim() ?? '';
  const resource = f.resource?.trim() ?? '';
  if (!resource) return undefined;
  if (resource !== mcpResource(baseUrl)) throw new InvalidTarget(`resource must be ${mcpResource(baseUrl)}`);
  const scopes = parseScope(scope || 'read');
  return { scope: (scopes.includes('read') ? scopes : ['read', ...scopes]).join(' ') };
}

/** The same, for the JSON and GET forms: a bad scope or resource is a 422 on that field (the spec's rule E2). */
function oauthAskOr422(f: OAuthAsk, baseUrl: string, where: 'body' | 'query') {
  try {
    return oauthAsk(f, baseUrl);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    const field = err instanceof InvalidTarget ? 'resource' : 'scope';
    throw new RequestValidationError(
      [{ type: 'value_error', loc: [where, field], msg: `Value error, ${err.message}`, input: f[field] ?? null }],
      `scope is a space-separated list of read, write (moderate, admin for people holding those roles), e.g. "read write"; resource, if sent, is ${mcpResource(baseUrl)}.`,
    );
  }
}

/** The first problem zod found in a form, as an invalid_request description. */
const firstIssue = (error: z.ZodError) => {
  const issue = error.issues[0];
  return `${issue.path.join('.')}: ${issue.message}`;
};

/** Registers the device API: starting a sign-in (form, JSON, GET alias), then looking it up and deciding it. */
export function registerDeviceApiRoutes(app: OpenAPIHono, flow: DeviceFlow, codes: CodeAccess, opts: DeviceRouteOptions) {
  registerDeviceStartRoutes(app, deviceStarter(flow, opts), opts);
  registerDeviceDecisionRoutes(app, codes);
}

/** What the three ways of starting a sign-in share: the client they come from, and the start itself. */
function deviceStarter(flow: DeviceFlow, opts: DeviceRouteOptions) {
  /**
   * The registered client the request comes from, or null (check_client.ts): a request that names one is
   * its own only with its credentials, or a device start would have tokens issued to a confidential client
   * by anyone who knows its client_id. The JSON body and the GET alias get the same RFC 6749 invalid_client.
   */
  const clientOf = async (c: Context, params: Map<string, string>): Promise<Client | null | Response> => {
    try {
      return await authenticateDeviceClient(c, params, opts.store);
    } catch (err) {
      if (err instanceof OAuthError) return oauthErrorResponse(err, opts.baseUrl);
      throw err;
    }
  };
  const start = async (c: Context, clientName: string, clientHost: string, sandbox: boolean, oauth: { scope: string } | undefined, client: Client | null, rfcErrors = false) => {
    const wait = await opts.startLimiter.take(`ip:${opts.clientAddress(c)}`);
    if (wait > 0) {
      const message = `Too many sign-in requests; try again in ${wait} s`;
      if (rfcErrors) throw new TooManyRequests(message, wait);
      throw new ApiError(429, message, { 'Retry-After': String(wait) });
    }
    const r = await flow.start({ clientName, clientHost, sandbox, oauth, clientId: client?.client_id ?? null });
    const page = `${opts.baseUrl}/device`;
    return c.json(
      {
        device_code: r.deviceCode,
        user_code: r.userCode,
        verification_uri: page,
        verification_uri_complete: `${page}?user_code=${encodeURIComponent(r.userCode)}`,
        expires_in: r.expiresIn,
        interval: r.interval,
        ...(oauth ? { scope: oauth.scope } : {}),
      },
      200,
      NO_STORE,
    );
  };
  return { clientOf, start };
}

/** POST /api/oauth/device (a standard client's form, or the spec's JSON) and its GET alias. */
function registerDeviceStartRoutes(app: OpenAPIHono, starter: ReturnType<typeof deviceStarter>, opts: DeviceRouteOptions) {
  const { clientOf, start } = starter;
  // A standard RFC 8628 client (RFC 8628 §3.1) sends a form and reads RFC 6749 §5.2 errors: answered here,
  // ahead of the JSON route below, which keeps the spec's DeviceAuthRequest and its 422.
  app.post('/api/oauth/device', async (c, next) => {
    if (mediaType(c) !== FORM_ENCODED) return next();
    try {
      const params = singleValued(new URLSearchParams(await c.req.text()));
      const parsed = DeviceAuthForm.safeParse(Object.fromEntries(params));
      if (!parsed.success) throw new InvalidRequest(firstIssue(parsed.error));
      const f = parsed.data;
      const client = await authenticateDeviceClient(c, params, opts.store);
      return await start(c, f.client_name || client?.client_name || f.client_id || 'Unnamed client', f.client_host || 'unknown host', false, oauthAsk(f, opts.baseUrl), client, true);
    } catch (err) {
      if (err instanceof OAuthError) return oauthErrorResponse(err, opts.baseUrl);
      throw err;
    }
  });

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/oauth/device',
      tags: ['device'],
      summary: 'Start a device sign-in (RFC 8628 device authorization request): the spec\'s JSON DeviceAuthRequest, or a form as standard clients send it',
      request: {
        body: {
          content: {
            'application/json': { schema: DeviceAuthRequest },
            [FORM_ENCODED]: { schema: DeviceAuthForm },
          },
          required: true,
        },
      },
      responses: {
        200: json(DeviceAuthResponse, 'Codes to show the person and to poll with'),
        400: json(OAuthErrorBody, 'A form-encoded request with an invalid field (RFC 6749 §5.2 invalid_request)'),
        ...E401_CLIENT,
        ...E422,
        429: {
          description: 'Too many sign-in requests from this client address; see Retry-After. JSON requests get {detail}, form-encoded ones the RFC error temporarily_unavailable',
          content: { 'application/json': { schema: z.union([ErrorDetail, OAuthErrorBody]) } },
        },
      },
    }),
    async (c, { body }) => {
      const client = await clientOf(c, new Map(body.client_id ? [['client_id', body.client_id]] : []));
      if (client instanceof Response) return client;
      return start(c, body.client_name, body.client_host, false, oauthAskOr422(body, opts.baseUrl, 'body'), client);
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/oauth/device',
      tags: ['device'],
      summary: 'Start a device sign-in from a sandbox that cannot POST (non-RFC alias; the key will live one hour)',
      request: { query: DeviceAuthQuery },
      responses: { 200: json(DeviceAuthResponse, 'Codes to show the person and to poll with'), ...E401_CLIENT, ...E422, 429: json(ErrorDetail, 'Too many sign-in requests from this client address; see Retry-After') },
    }),
    async (c, { query }) => {
      const client = await clientOf(c, new Map(new URL(c.req.url).searchParams));
      if (client instanceof Response) return client;
      return start(c, query.client_name || 'Unnamed client', query.client_host || 'unknown host', true, oauthAskOr422(query, opts.baseUrl, 'query'), client);
    },
  );

}

/** The person's side: the request behind a user code, and their approval or denial. */
function registerDeviceDecisionRoutes(app: OpenAPIHono, codes: CodeAccess) {
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/device/lookup',
      tags: ['device'],
      summary: 'The pending request behind a user code, and whether the caller may approve it',
      request: { query: LookupQuery },
      responses: { 200: json(DeviceLookupOut, 'A pending request'), ...CODE_ERRORS },
    }),
    async (c, { query }) => c.json(lookupOut(c, await codes.find(c, query.user_code)), 200, { 'Cache-Control': 'no-store' }),
  );

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/device/approve',
      tags: ['device'],
      summary: 'Approve or deny a device sign-in (browser session); the approver owns the key the device gets',
      request: { body: { content: { 'application/json': { schema: DeviceApproveRequest } }, required: true } },
      responses: { 200: json(DeviceApproveOut, 'Decided'), 401: json(ErrorDetail, 'Not signed in with a browser session'), ...CODE_ERRORS },
    }),
    async (c, { body }) => {
      const p = requireSession(c);
      const row = await codes.decide(c, body.user_code, p.user.id, body.action === 'approve');
      return c.json(
        { user_code: formatUserCode(row.user_code), status: row.status as 'approved' | 'denied', client_name: row.client_name, client_host: row.client_host, decided_at: row.decided_at! },
        200,
        { 'Cache-Control': 'no-store' },
      );
    },
  );
}
