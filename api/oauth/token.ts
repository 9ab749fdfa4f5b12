// POST /api/oauth/v2/token: form-encoded (RFC 6749 §3.2), the client authenticated (check_client), then
// the grant type's own handler. Answers the token response or the §5.2 error, never cached. The device
// grant (RFC 8628) needs no registered client and is answered by the device flow (grants/device_code.ts).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { authenticateClient, checkGrantType } from './check_client.ts';
import type { OAuthContext } from './context.ts';
import { oauthEndpoint, oauthJson } from './endpoint.ts';
import { InvalidRequest, UnsupportedGrantType } from './errors.ts';
import { readForm } from './form.ts';
import { authorizationCodeGrant } from './grants/authorization_code.ts';
import { refreshTokenGrant } from './grants/refresh_token.ts';
import { DEVICE_CODE_GRANT, deviceCodeGrant } from './grants/device_code.ts';
import { OAuthErrorBody } from './schemas.ts';
import { TokenResponse as DeviceTokenResponse } from '../device/schemas.ts';

const TokenForm = z.object({
  grant_type: z.enum(['authorization_code', 'refresh_token', DEVICE_CODE_GRANT]),
  code: z.string().optional(),
  device_code: z.string().optional().openapi({ description: `With ${DEVICE_CODE_GRANT} (RFC 8628 §3.4)` }),
  redirect_uri: z.string().optional(),
  code_verifier: z.string().optional(),
  refresh_token: z.string().optional(),
  scope: z.string().optional(),
  resource: z.string().optional(),
  client_id: z.string().optional().openapi({ description: 'Public clients; confidential clients use HTTP Basic. Informational with the device grant' }),
});
const TokenOut = z
  .object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), refresh_token: z.string().optional(), scope: z.string() })
  .openapi('OAuthTokenResponse');

export function registerTokenEndpoint(app: OpenAPIHono, ctx: OAuthContext): void {
  oauthEndpoint(
    app,
    createRoute({
      method: 'post',
      path: '/api/oauth/v2/token',
      tags: ['oauth'],
      summary: 'Token endpoint: authorization_code (PKCE S256), refresh_token (rotating) and device_code (RFC 8628; answers the device flow\'s API key) grants',
      request: { body: { content: { 'application/x-www-form-urlencoded': { schema: TokenForm } }, required: true } },
      responses: {
        200: { description: 'Token response (RFC 6749 §5.1); for the device grant, the device flow\'s API key', content: { 'application/json': { schema: z.union([TokenOut, DeviceTokenResponse]) } } },
        400: { description: 'Error (RFC 6749 §5.2)', content: { 'application/json': { schema: OAuthErrorBody } } },
        401: { description: 'Client authentication failed', content: { 'application/json': { schema: OAuthErrorBody } } },
      },
    }),
    ctx.issuer,
    async (c) => {
      const params = await readForm(c);
      if (params.get('grant_type') === DEVICE_CODE_GRANT) return oauthJson(await deviceCodeGrant(ctx, c, params));
      const client = await authenticateClient(c, params, ctx.store);
      const grantType = params.get('grant_type');
      if (!grantType) throw new InvalidRequest('grant_type is required');
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
        throw new UnsupportedGrantType(`supported grant types: authorization_code, refresh_token, ${DEVICE_CODE_GRANT}`);
      }
      checkGrantType(client, grantType);
      const tokens = grantType === 'authorization_code' ? await authorizationCodeGrant(ctx, client, params) : await refreshTokenGrant(ctx, client, params);
      return oauthJson(tokens);
    },
  );
}
