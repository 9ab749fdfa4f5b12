// The device authorization grant at this server's token endpoint (RFC 8628 §3.4), for clients that find
// the device flow in /.well-known/oauth-authorization-server and poll its token_endpoint.
// - the grant is the device flow's own (api/device): the same request, the same one-time redemption and
//   the same answer as POST /api/oauth/token, a bearer API key for the REST API owned by the approver
//   (not an access token for /mcp: that one comes from the authorization_code grant)
// - no registration needed, as at the device authorization endpoint: an unregistered client_id is
//   informational (such clients are public, their id no secret, so binding the device_code to it would add
//   nothing); a registered client authenticates (check_client.ts), and a request a registered client made
//   is redeemed by that client only (a confidential one with its secret, RFC 6749 §3.2.1)
// - while not granted: RFC 8628 §3.5's authorization_pending, slow_down, access_denied, expired_token, or
//   invalid_grant for an unknown or used device_code
import type { Context } from 'hono';
import { redeemDeviceCode } from '../../device/index.ts';
import { authenticateDeviceClient } from '../check_client.ts';
import type { OAuthContext } from '../context.ts';
import { InvalidRequest } from '../errors.ts';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export async function deviceCodeGrant(ctx: OAuthContext, c: Context, params: Map<string, string>) {
  const client = await authenticateDeviceClient(c, params, ctx.store);
  const deviceCode = params.get('device_code');
  if (!deviceCode) throw new InvalidRequest('device_code is required');
  return redeemDeviceCode(ctx.deviceFlow, deviceCode, false, client);
}
