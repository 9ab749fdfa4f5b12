// The device flow's JSON endpoints: start (POST, and the GET alias for sandboxes), the token poll (POST,
// and its GET alias), the code lookup the approval page uses, and the approve/deny decision.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { addRoute } from '../validation/route.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, HTTPValidationError } from '../openapi/schemas.ts';
import { principal, requireSession } from '../auth/middleware.ts';
import { DeviceGrantError, keyLifetime, type DeviceFlow, type DeviceRequest } from './flow.ts';
import { formatUserCode } from './user-code.ts';
import {
  DEVICE_GRANT_TYPES,
  DeviceApproveOut,
  DeviceApproveRequest,
  DeviceAuthQuery,
  DeviceAuthRequest,
  DeviceAuthResponse,
  DeviceLookupOut,
  LookupQuery,
  TokenError,
  TokenRequest,
  TokenResponse,
} from './schemas.ts';
import type { CodeAccess } from './access.ts';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const E422 = { 422: json(HTTPValidationError, 'Validation error') };
const E429 = { 429: json(ErrorDetail, 'Too many unknown codes from this client; see Retry-After') };
const CODE_ERRORS = { 404: json(ErrorDetail, 'No request has this code'), 410: json(ErrorDetail, 'The request expired or was already decided'), ...E422, ...E429 };
// RFC 6749 §5.1: token responses must not be cached; the same holds for anything carrying a device_code.
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export interface DeviceRouteOptions {
  baseUrl: string;
  /** Device requests one client address may start per window (token bucket). */
  startLimiter: { take(key: string): number };
  clientAddress: (c: Context) => string;
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
    created_at: row.created_at,
    expires_at: row.expires_at,
    viewer: { signed_in: p !== null, role: p?.user.role ?? null, can_approve: p?.via === 'session' },
  };
}

export function registerDeviceApiRoutes(app: OpenAPIHono, flow: DeviceFlow, codes: CodeAccess, opts: DeviceRouteOptions) {
  const start = (c: Context, clientName: string, clientHost: string, sandbox: boolean) => {
    const wait = opts.startLimiter.take(`ip:${opts.clientAddress(c)}`);
    if (wait > 0) throw new ApiError(429, `Too many sign-in requests; try again in ${wait} s`, { 'Retry-After': String(wait) });
    const r = flow.start({ clientName, clientHost, sandbox });
    const page = `${opts.baseUrl}/device`;
    return c.json(
      {
        device_code: r.deviceCode,
        user_code: r.userCode,
        verification_uri: page,
        verification_uri_complete: `${page}?user_code=${encodeURIComponent(r.userCode)}`,
        expires_in: r.expiresIn,
        interval: r.interval,
      },
      200,
      NO_STORE,
    );
  };

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/oauth/device',
      tags: ['device'],
      summary: 'Start a device sign-in (RFC 8628 device authorization request, JSON body)',
      request: { body: { content: { 'application/json': { schema: DeviceAuthRequest } }, required: true } },
      responses: { 200: json(DeviceAuthResponse, 'Codes to show the person and to poll with'), ...E422, ...E429 },
    }),
    (c, { body }) => start(c, body.client_name, body.client_host, false),
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/oauth/device',
      tags: ['device'],
      summary: 'Start a device sign-in from a sandbox that cannot POST (non-RFC alias; the key will live one hour)',
      request: { query: DeviceAuthQuery },
      responses: { 200: json(DeviceAuthResponse, 'Codes to show the person and to poll with'), ...E422, ...E429 },
    }),
    (c, { query }) => start(c, query.client_name || 'Unnamed client', query.client_host || 'unknown host', true),
  );

  const token = (c: Context, grantType: string, deviceCode: string, viaGet: boolean) => {
    try {
      if (!(DEVICE_GRANT_TYPES as readonly string[]).includes(grantType)) {
        throw new DeviceGrantError('unsupported_grant_type', `This endpoint only takes grant_type ${DEVICE_GRANT_TYPES.join(' or ')}`);
      }
      const issued = flow.redeem(deviceCode, viaGet);
      return c.json(
        {
          access_token: issued.secret,
          token_type: 'Bearer' as const,
          expires_in: issued.expiresIn,
          key_id: issued.keyId,
          // The person just approved this device to act as them, and it asks for a credential file that
          // names them (spec, Authentication 7). Sandboxes keep nothing, so they are not told.
          ...(issued.sandbox ? {} : { user_email: issued.user.email }),
        },
        200,
        NO_STORE,
      );
    } catch (err) {
      if (!(err instanceof DeviceGrantError)) throw err;
      return c.json(
        { error: err.error, error_description: err.message, ...(err.interval !== undefined ? { interval: err.interval } : {}) },
        400,
        NO_STORE,
      );
    }
  };

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/oauth/token',
      tags: ['device'],
      summary: 'Poll for the API key of a device sign-in (RFC 8628 §3.4, JSON body)',
      request: { body: { content: { 'application/json': { schema: TokenRequest } }, required: true } },
      responses: { 200: json(TokenResponse, 'The API key'), 400: json(TokenError, 'Not (yet) granted: the RFC 8628 error'), ...E422 },
    }),
    (c, { body }) => token(c, body.grant_type, body.device_code, false),
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/oauth/token',
      tags: ['device'],
      summary: 'Poll for the API key from a sandbox that cannot POST (non-RFC alias; the key lives one hour)',
      request: { query: TokenRequest },
      responses: { 200: json(TokenResponse, 'The API key'), 400: json(TokenError, 'Not (yet) granted: the RFC 8628 error'), ...E422 },
    }),
    (c, { query }) => token(c, query.grant_type, query.device_code, true),
  );

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
    (c, { query }) => c.json(lookupOut(c, codes.find(c, query.user_code)), 200, { 'Cache-Control': 'no-store' }),
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
    (c, { body }) => {
      const p = requireSession(c);
      const row = codes.decide(c, body.user_code, p.user.id, body.action === 'approve');
      return c.json(
        { user_code: formatUserCode(row.user_code), status: row.status as 'approved' | 'denied', client_name: row.client_name, client_host: row.client_host, decided_at: row.decided_at! },
        200,
        { 'Cache-Control': 'no-store' },
      );
    },
  );
}
