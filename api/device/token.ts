// The device flow's token endpoint, POST /api/oauth/token (RFC 8628 §3.4) and its GET alias for sandboxes.
// - the poll comes as the spec's JSON TokenRequest or as a form, as standard RFC 8628 clients send it
//   (the device_code alone names the request; other parameters are ignored, except that a registered client,
//   named by client_id or by HTTP Basic, authenticates as at /api/oauth/v2/token: api/oauth/check_client.ts)
// - grant_type: the short `device_code` or the RFC's URN; every parameter at most once
// - every failure is the RFC 6749 §5.2 error JSON, never a 422: polling clients parse `error`
// The same redemption answers the device grant at /api/oauth/v2/token (api/oauth/grants/device_code.ts).
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { oauthEndpoint, oauthJson } from '../oauth/endpoint.ts';
import { InvalidRequest, UnsupportedGrantType } from '../oauth/errors.ts';
import { OAuthErrorBody } from '../oauth/schemas.ts';
import { authenticateDeviceClient } from '../oauth/check_client.ts';
import type { Client, OAuthStore } from '../../src/lib/data/oauth/store.ts';
import { FORM_ENCODED, mediaType, singleValued } from '../oauth/form.ts';
import type { DeviceFlow } from './flow.ts';
import { DEVICE_GRANT_TYPES, TokenError, TokenForm, TokenRequest, TokenResponse } from './schemas.ts';

/**
 * The token response for a device_code, once: the API key, or for a request that asked for OAuth tokens the
 * RFC 6749 token response (with the client_id to refresh with). Throws DeviceGrantError while not granted,
 * and invalid_client or invalid_grant when the request is a registered client's and `client` is not it.
 */
export async function redeemDeviceCode(flow: DeviceFlow, deviceCode: string, viaGet: boolean, client: Client | null) {
  const issued = await flow.redeem(deviceCode, viaGet, client);
  if (issued.kind === 'oauth') {
    return {
      ...issued.tokens,
      client_id: issued.clientId,
      ...(issued.sandbox ? {} : { user_email: issued.user.email }),
    };
  }
  return {
    access_token: issued.secret,
    token_type: 'Bearer' as const,
    expires_in: issued.expiresIn,
    key_id: issued.keyId,
    // The person just approved this device to act as them, and it asks for a credential file that
    // names them (spec, Authentication 7). Sandboxes keep nothing, so they are not told.
    ...(issued.sandbox ? {} : { user_email: issued.user.email }),
  };
}

/** The poll's parameters, one value each, from a form or (any other type, as before forms were taken) a JSON object. */
async function readPoll(c: Context): Promise<Map<string, string>> {
  const text = await c.req.text();
  if (mediaType(c) === FORM_ENCODED) return singleValued(new URLSearchParams(text));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidRequest('send the poll as a JSON object or as application/x-www-form-urlencoded');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InvalidRequest('the body must be a JSON object');
  const params = new Map<string, string>();
  for (const [k, v] of Object.entries(body)) {
    if (typeof v === 'string') params.set(k, v);
    else if (k === 'grant_type' || k === 'device_code') throw new InvalidRequest(`${k} must be a string`);
  }
  return params;
}

async function poll(c: Context, flow: DeviceFlow, store: OAuthStore, params: Map<string, string>, viaGet: boolean, tokenEndpoint: string): Promise<Response> {
  // The GET alias exists for sandboxes that can only build a URL: the one grant it serves is the default.
  const grantType = params.get('grant_type') ?? (viaGet ? 'device_code' : undefined);
  if (!grantType) throw new InvalidRequest('grant_type is required: send grant_type=device_code (or urn:ietf:params:oauth:grant-type:device_code)');
  if (!(DEVICE_GRANT_TYPES as readonly string[]).includes(grantType)) {
    if (grantType === 'refresh_token' || grantType === 'authorization_code') {
      // The OAuth 2.1 grants have their own endpoint, the one the metadata names: say where it is.
      throw new UnsupportedGrantType(
        `This is the device flow's poll, which only takes grant_type ${DEVICE_GRANT_TYPES.join(' or ')}. grant_type ${grantType} goes to the OAuth 2.1 token endpoint: ` +
          `POST ${tokenEndpoint} with the same parameters as a form (application/x-www-form-urlencoded)` +
          (grantType === 'refresh_token' ? ', for example grant_type=refresh_token&refresh_token=<ort_...>&client_id=<the client_id of the token response>' : ''),
      );
    }
    throw new UnsupportedGrantType(`This endpoint only takes grant_type ${DEVICE_GRANT_TYPES.join(' or ')}`);
  }
  const client = await authenticateDeviceClient(c, params, store);
  const deviceCode = params.get('device_code');
  if (!deviceCode) throw new InvalidRequest('device_code is required');
  return oauthJson(await redeemDeviceCode(flow, deviceCode, viaGet, client));
}

const json = (schema: typeof TokenResponse | typeof TokenError, description: string) => ({ description, content: { 'application/json': { schema } } });

const CLIENT_401 = { 401: { description: 'A registered client failed to authenticate (RFC 6749 §5.2 invalid_client, with a Basic challenge)', content: { 'application/json': { schema: OAuthErrorBody } } } };

export function registerDeviceTokenEndpoint(app: OpenAPIHono, flow: DeviceFlow, opts: { baseUrl: string; store: OAuthStore }): void {
  const tokenEndpoint = `${opts.baseUrl}/api/oauth/v2/token`;
  oauthEndpoint(
    app,
    createRoute({
      method: 'post',
      path: '/api/oauth/token',
      tags: ['device'],
      summary: 'Poll for the API key of a device sign-in (RFC 8628 §3.4): the spec\'s JSON TokenRequest, or a form as standard clients send it',
      request: {
        body: { content: { 'application/json': { schema: TokenRequest }, [FORM_ENCODED]: { schema: TokenForm } }, required: true },
      },
      responses: {
        200: json(TokenResponse, 'The API key'),
        400: json(TokenError, 'Not (yet) granted, or a malformed poll: the RFC 6749 §5.2 / RFC 8628 §3.5 error'),
        ...CLIENT_401,
      },
    }),
    opts.baseUrl,
    async (c) => poll(c, flow, opts.store, await readPoll(c), false, tokenEndpoint),
  );

  oauthEndpoint(
    app,
    createRoute({
      method: 'get',
      path: '/api/oauth/token',
      tags: ['device'],
      summary: 'Poll for the API key from a sandbox that cannot POST (non-RFC alias; the key lives one hour); grant_type defaults to device_code',
      request: { query: TokenRequest.partial({ grant_type: true }) },
      responses: {
        200: json(TokenResponse, 'The API key'),
        400: json(TokenError, 'Not (yet) granted, or a malformed poll: the RFC 6749 §5.2 / RFC 8628 §3.5 error'),
        ...CLIENT_401,
      },
    }),
    opts.baseUrl,
    (c) => poll(c, flow, opts.store, singleValued(new URL(c.req.url).searchParams), true, tokenEndpoint),
  );
}
