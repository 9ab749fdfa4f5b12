// POST /api/oauth/v2/register: dynamic client registration (RFC 7591), open to anyone, as MCP clients
// expect. Every call makes a new client_id (no deduplication). A confidential client's secret is in this
// answer only; the database keeps its SHA-256. 200 with the registered metadata (the spec's status; the
// RFC says 201), 400 with invalid_redirect_uri or invalid_client_metadata, 429 beyond the per-address limit.
// A registration alone is no one's act and changes nothing a person relies on: it writes no audit event
// (the client enters the log with the first grant a person gives it, oauth.grant.create naming it), and a
// client no one grants anything within OAUTH_UNUSED_CLIENT_TTL_HOURS is removed.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { hashSecret, randomId, randomSecret } from '../../src/lib/data/secrets.ts';
import { checkClientMetadata } from './check_client_metadata.ts';
import { iso, type OAuthContext } from './context.ts';
import { oauthEndpoint, oauthJson } from './endpoint.ts';
import { InvalidClientMetadata, TooManyRequests } from './errors.ts';
import { clientAddress } from '../rate-limit/index.ts';
import { OAuthErrorBody } from './schemas.ts';

const RegistrationRequest = z
  .object({
    redirect_uris: z.array(z.string()).min(1).max(10),
    token_endpoint_auth_method: z.enum(['none', 'client_secret_basic']).optional().openapi({ description: 'Default client_secret_basic (RFC 7591)' }),
    grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
    response_types: z.array(z.literal('code')).optional(),
    client_name: z.string().max(100).optional(),
    scope: z.string().optional(),
    client_uri: z.string().optional(),
    logo_uri: z.string().optional(),
    tos_uri: z.string().optional(),
    policy_uri: z.string().optional(),
    contacts: z.array(z.string()).optional(),
    software_id: z.string().optional(),
    software_version: z.string().optional(),
  })
  .openapi('OAuthClientRegistration');
const RegistrationResponse = RegistrationRequest.extend({
  client_id: z.string(),
  client_id_issued_at: z.number().int(),
  client_secret: z.string().optional().openapi({ description: 'Confidential clients only; shown once' }),
  client_secret_expires_at: z.number().int().optional().openapi({ description: '0: does not expire' }),
}).openapi('OAuthClientRegistrationResponse');

const MAX_BODY = 16 * 1024;

export function registerRegistrationEndpoint(app: OpenAPIHono, ctx: OAuthContext): void {
  oauthEndpoint(
    app,
    createRoute({
      method: 'post',
      path: '/api/oauth/v2/register',
      tags: ['oauth'],
      summary: 'Dynamic client registration (RFC 7591); no authentication; a new client_id every call',
      request: { body: { content: { 'application/json': { schema: RegistrationRequest } }, required: true } },
      responses: {
        200: { description: 'Registered client', content: { 'application/json': { schema: RegistrationResponse } } },
        400: { description: 'invalid_redirect_uri or invalid_client_metadata', content: { 'application/json': { schema: OAuthErrorBody } } },
        429: { description: 'temporarily_unavailable: too many registrations from this address (OAUTH_REGISTRATIONS_PER_HOUR); Retry-After says when', content: { 'application/json': { schema: OAuthErrorBody } } },
      },
    }),
    ctx.issuer,
    async (c) => {
      const wait = await ctx.registrationLimiter.take(clientAddress(c));
      if (wait > 0) throw new TooManyRequests(`Too many registrations from this address; try again in ${wait} s`, wait);
      const text = await c.req.text();
      if (text.length > MAX_BODY) throw new InvalidClientMetadata('the registration request is too large');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new InvalidClientMetadata('the body must be a JSON object');
      }
      const m = checkClientMetadata(body);
      const t = ctx.now();
      const clientId = randomId('client', 16);
      const secret = m.token_endpoint_auth_method === 'client_secret_basic' ? randomSecret('', 32) : null;
      // One statement, no audit event (see above): no transaction needed.
      await ctx.store.insertClient({
        client_id: clientId,
        secret_hash: secret === null ? null : hashSecret(secret),
        client_name: m.client_name,
        redirect_uris: m.redirect_uris,
        token_endpoint_auth_method: m.token_endpoint_auth_method,
        metadata: m.metadata,
        created_at: iso(t),
      });
      await purgeUnusedClients(ctx);
      return oauthJson({
        client_id: clientId,
        client_id_issued_at: Math.floor(t.getTime() / 1000),
        ...(secret === null ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
        ...m.metadata,
      });
    },
  );
}

/** Removes clients older than the unused-client lifetime that no one ever granted anything. */
export function purgeUnusedClients(ctx: OAuthContext): Promise<number> {
  return ctx.store.purgeUnusedClients(iso(new Date(ctx.now().getTime() - ctx.unusedClientTtlHours * 3_600_000)));
}
