// Request and response schemas of the device flow; the same zod schemas validate requests (422 on
// failure) and document them in /openapi.json under the spec's names.
import { z } from '@hono/zod-openapi';
import { USER_CODE_MAX_INPUT } from './user-code.ts';

// Control, format (bidi overrides, zero-width) and line/paragraph separators could disguise what the
// approval page shows, so names and hosts are printable text only.
const PRINTABLE = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u;
// The document states the pattern itself: the generator keeps a regex's flags in it ("…$/u"), which no value matches.
const printable = (max: number, description: string) =>
  z.string().trim().min(1).max(max).regex(PRINTABLE, 'printable characters only').openapi({ description, pattern: PRINTABLE.source });

export const CLIENT_NAME_MAX = 100;
export const CLIENT_HOST_MAX = 255;
const clientName = () => printable(CLIENT_NAME_MAX, 'The client program, as the approval page shows it, e.g. "agent-login.sh".');
const clientHost = () => printable(CLIENT_HOST_MAX, 'The machine it runs on, as the approval page shows it.');

const SCOPE_DESCRIPTION =
  'With resource: the OAuth scopes asked for, space-separated (read, write; moderate and admin only when the approver holds the role); read when absent. ' +
  'Without resource it is ignored (an API key acts with the approver\'s rights).';
const RESOURCE_DESCRIPTION =
  'RFC 8707: {base_url}/mcp, the only resource. Asks for OAuth tokens instead of an API key: the poll then answers an access token and a refresh ' +
  'token for /mcp, which the REST API and chat take as well (one login for every surface).';
const oauthFields = () => ({
  scope: z.string().max(200).optional().openapi({ description: SCOPE_DESCRIPTION, example: 'read write' }),
  resource: z.string().max(500).optional().openapi({ description: RESOURCE_DESCRIPTION }),
  client_id: z.string().max(CLIENT_NAME_MAX).optional().openapi({ description: 'A registered OAuth client the tokens are for (it authenticates as at /api/oauth/v2/token: a confidential one with HTTP Basic, and polls the same way); otherwise one is made for this device (listed among your connected apps). Any other value only names the program.' }),
});

/** POST /api/oauth/device with a JSON body. Other unknown fields are ignored. */
export const DeviceAuthRequest = z.object({ client_name: clientName(), client_host: clientHost(), ...oauthFields() }).openapi('DeviceAuthRequest');

/** GET /api/oauth/device: the same fields, optional; absent or empty means "not said". */
const PRINTABLE_OR_EMPTY = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u;
const optionalPrintable = (max: number, description: string) =>
  z.string().trim().max(max).regex(PRINTABLE_OR_EMPTY, 'printable characters only').optional().openapi({ description, pattern: PRINTABLE_OR_EMPTY.source });
export const DeviceAuthQuery = z.object({
  client_name: optionalPrintable(CLIENT_NAME_MAX, 'As in DeviceAuthRequest.'),
  client_host: optionalPrintable(CLIENT_HOST_MAX, 'As in DeviceAuthRequest.'),
  ...oauthFields(),
});

/**
 * POST /api/oauth/device with a form (RFC 8628 §3.1, what standard clients send): every field optional;
 * the approval page names the client by client_name, else by client_id. A `resource` (with its `scope`)
 * asks for OAuth tokens instead of an API key.
 */
export const DeviceAuthForm = z.object({
  client_id: optionalPrintable(CLIENT_NAME_MAX, 'The client\'s identifier (RFC 8628 §3.1); no registration needed. Names the client when client_name is absent; a registered client authenticates (a confidential one with HTTP Basic, RFC 6749 §3.2.1) and gets the OAuth tokens.'),
  client_name: optionalPrintable(CLIENT_NAME_MAX, 'As in DeviceAuthRequest.'),
  client_host: optionalPrintable(CLIENT_HOST_MAX, 'As in DeviceAuthRequest.'),
  scope: z.string().max(200).optional().openapi({ description: SCOPE_DESCRIPTION }),
  resource: z.string().max(500).optional().openapi({ description: RESOURCE_DESCRIPTION }),
});

export const DeviceAuthResponse = z
  .object({
    device_code: z.string().openapi({ description: 'Secret; poll the token endpoint with it. Shown once.' }),
    user_code: z.string().openapi({ example: 'BCDF-GHJK', description: 'What the person checks on the approval page.' }),
    verification_uri: z.string().openapi({ description: 'The approval page, where the code can be typed in.' }),
    verification_uri_complete: z.string().openapi({ description: 'The approval page with the code filled in.' }),
    expires_in: z.number().int().openapi({ description: 'Seconds until device_code and user_code expire.' }),
    interval: z.number().int().openapi({ description: 'Seconds to wait between polls.' }),
    scope: z.string().optional().openapi({ description: 'When the request named the resource: the scope asked (the approver may hold less); the poll answers OAuth tokens.' }),
  })
  .openapi('DeviceAuthResponse');

export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
export const DEVICE_GRANT_TYPES = ['device_code', DEVICE_CODE_GRANT_TYPE] as const;

/**
 * POST /api/oauth/token (JSON) and its GET alias (query). Documentation only: the handler reads the
 * fields itself, so that every failure is the RFC 6749 error JSON rather than a 422.
 */
export const TokenRequest = z
  .object({
    grant_type: z.string().min(1).openapi({ description: `${DEVICE_GRANT_TYPES.join(' or ')}`, example: 'device_code' }),
    device_code: z.string().min(1),
  })
  .openapi('TokenRequest');

/** POST /api/oauth/token as a form (RFC 8628 §3.4): the same fields, and the client_id standard clients send. */
export const TokenForm = TokenRequest.extend({
  client_id: z.string().optional().openapi({ description: 'The device_code alone identifies the request; a registered client authenticates (a confidential one with HTTP Basic instead).' }),
});

export const TokenResponse = z
  .object({
    access_token: z.string().openapi({ description: 'A bearer API key with the service prefix; or, when the request asked for a scope, an OAuth access token (oat_…) for /mcp, the REST API and chat. Shown once.' }),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().openapi({ description: 'API key: 3600 when any step used a GET alias, 7776000 (90 days) otherwise. OAuth access token: 3600.' }),
    key_id: z.string().optional().openapi({ description: 'API key: the key in the owner\'s account (/api/account/api-keys), to revoke it.' }),
    refresh_token: z.string().optional().openapi({ description: 'OAuth: rotates at every use (grant_type=refresh_token at /api/oauth/v2/token with client_id); not on the GET path.' }),
    scope: z.string().optional().openapi({ description: 'OAuth: the scope granted.' }),
    client_id: z.string().optional().openapi({ description: 'OAuth: the client to refresh as (a public client; revocable among your connected apps).' }),
    user_email: z.string().optional().openapi({ description: 'The approving person\'s e-mail, for the credential file; POST path only.' }),
  })
  .openapi('DeviceTokenResponse');

export const TokenError = z
  .object({
    error: z.enum(['authorization_pending', 'slow_down', 'access_denied', 'expired_token', 'invalid_grant', 'invalid_request', 'unsupported_grant_type']),
    error_description: z.string(),
    interval: z.number().int().optional().openapi({ description: 'With slow_down: the new polling interval in seconds.' }),
  })
  .openapi('DeviceTokenError');

const userCode = () => z.string().min(1).max(USER_CODE_MAX_INPUT).openapi({ example: 'BCDF-GHJK', description: 'Case, dashes and spaces do not matter.' });

export const LookupQuery = z.object({ user_code: userCode() });

export const DeviceLookupOut = z
  .object({
    user_code: z.string(),
    client_name: z.string(),
    client_host: z.string(),
    status: z.literal('pending'),
    sandbox: z.boolean().openapi({ description: 'Started through the GET alias: the key will live one hour.' }),
    key_expires_in: z.number().int().openapi({ description: 'Lifetime in seconds of the key an approval gives the device.' }),
    scope: z.string().nullable().openapi({ description: 'The OAuth scope the device asks for (it gets tokens for /mcp, the API and chat); null: an API key.' }),
    created_at: z.string(),
    expires_at: z.string(),
    viewer: z.object({
      signed_in: z.boolean(),
      role: z.enum(['user', 'moderator', 'admin']).nullable(),
      can_approve: z.boolean().openapi({ description: 'Approving needs a browser session (not an API key or token).' }),
    }),
  })
  .openapi('DeviceLookupOut');

/** POST /api/device/approve: one endpoint for both decisions, named by `action`. */
export const DeviceApproveRequest = z
  .strictObject({ user_code: userCode(), action: z.enum(['approve', 'deny']) })
  .openapi('DeviceApproveRequest');

export const DeviceApproveOut = z
  .object({ user_code: z.string(), status: z.enum(['approved', 'denied']), client_name: z.string(), client_host: z.string(), decided_at: z.string() })
  .openapi('DeviceApproveOut');
