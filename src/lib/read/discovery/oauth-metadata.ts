// The OAuth metadata documents: the authorization server's (RFC 8414, /.well-known/oauth-authorization-server)
// and the MCP resource's (RFC 9728, /.well-known/oauth-protected-resource).
import type { SiteContext } from '../../site.ts';
import { MCP_SCOPES, OAUTH_SCOPES } from './shared.ts';

/**
 * RFC 8414 authorization server metadata for the OAuth 2.1 endpoints under /api/oauth/v2, and the device
 * flow (RFC 8628 §4): its authorization endpoint is the spec's unversioned one, its grant is answered at
 * the token_endpoint too (api/oauth/grants/device_code.ts).
 */
export function oauthAuthorizationServer(site: SiteContext) {
  const b = site.baseUrl;
  return {
    issuer: b,
    authorization_endpoint: `${b}/api/oauth/v2/authorize`,
    token_endpoint: `${b}/api/oauth/v2/token`,
    registration_endpoint: `${b}/api/oauth/v2/register`,
    revocation_endpoint: `${b}/api/oauth/v2/revoke`,
    device_authorization_endpoint: `${b}/api/oauth/device`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
    scopes_supported: [...OAUTH_SCOPES],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${b}/api`,
  };
}

/** RFC 9728 protected resource metadata for the MCP resource. */
export function oauthProtectedResource(site: SiteContext) {
  const b = site.baseUrl;
  return {
    resource: `${b}/mcp`,
    resource_name: `${site.siteName} MCP`,
    authorization_servers: [b],
    bearer_methods_supported: ['header'],
    scopes_supported: [...MCP_SCOPES],
    resource_documentation: `${b}/api`,
  };
}
