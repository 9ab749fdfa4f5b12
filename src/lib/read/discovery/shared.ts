// What the discovery documents share: the API version they all announce, and the OAuth scopes the
// authorization server grants and the MCP resource uses (the OAuth metadata, the OAuth routes and the
// OpenAPI schemas use them).

/**
 * OAuth scopes the authorization server grants: `read` (always granted: MCP and GET endpoints that need a
 * user), `write` (every other method), `moderate` and `admin` (the role's powers, granted only to people
 * who hold the role; the consent page warns about them).
 */
export const OAUTH_SCOPES = ['read', 'write', 'moderate', 'admin'] as const;
/** The scopes the MCP resource uses (RFC 9728 scopes_supported): `read` (your notes), `write` (the tools that act). */
export const MCP_SCOPES = ['read', 'write'] as const;
/** The version of this API that /api, the agent and MCP cards and /api/config announce. */
export const API_VERSION = '3.0';
