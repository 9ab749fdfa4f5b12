// check_client: who is asking.
// - authorization: client_id must name a registered client, else an error page (nothing to redirect to)
// - token and revocation endpoints: confidential clients authenticate with HTTP Basic and their secret,
//   compared as SHA-256 in constant time; public clients send client_id and nothing else; one method per
//   request; a client may use a grant type only if it registered it
// - device endpoints: the same, for a registered client or one that sends credentials; any other client_id
//   is only a name
import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { hashSecret } from '../../src/lib/data/secrets.ts';
import { InvalidClient, NonRedirectableError, UnauthorizedClient } from './errors.ts';
import { basicCredentials } from './form.ts';
import type { Client, OAuthStore } from '../../src/lib/data/oauth/store.ts';

export async function checkAuthorizeClient(store: OAuthStore, clientId: string): Promise<Client> {
  if (clientId === '') throw new NonRedirectableError('invalid_request', 'client_id is required');
  const client = await store.getClient(clientId);
  if (!client) throw new NonRedirectableError('invalid_client', 'unknown client_id; register the client first');
  return client;
}

/** Which client_id a client should send, for the errors that found none or an unknown one. */
const WHICH_CLIENT_ID =
  'Send the client_id this server issued: the client_id field of the token response when the tokens came from the device flow ' +
  '(POST /api/oauth/device with resource), or the client_id that POST /api/oauth/v2/register answered; not a client_name. ' +
  'A client unknown here (another server, or removed) registers again and signs in again.';

export async function authenticateClient(c: Context, params: Map<string, string>, store: OAuthStore): Promise<Client> {
  const basic = basicCredentials(c);
  if (params.has('client_secret') || params.has('client_assertion')) {
    throw new InvalidClient('only client_secret_basic (HTTP Basic) and none are supported');
  }
  if (basic) {
    const bodyId = params.get('client_id');
    if (bodyId !== undefined && bodyId !== basic.clientId) throw new InvalidClient('client_id differs from the Basic credentials');
    const client = await store.getClient(basic.clientId);
    // Hash first, compare in constant time; an unknown client takes the same path.
    const presented = hashSecret(basic.secret);
    const stored = client?.secret_hash ?? hashSecret('\0no client');
    const match = timingSafeEqual(presented, stored);
    if (!client || client.token_endpoint_auth_method !== 'client_secret_basic' || !match) throw new InvalidClient('client authentication failed');
    return client;
  }
  const clientId = params.get('client_id');
  if (!clientId) throw new InvalidClient(`client authentication failed: send client_id (public clients), or HTTP Basic with client_id and client_secret (confidential clients). ${WHICH_CLIENT_ID}`);
  const client = await store.getClient(clientId);
  if (!client) throw new InvalidClient(`client authentication failed: unknown client_id. ${WHICH_CLIENT_ID}`);
  if (client.token_endpoint_auth_method !== 'none') throw new InvalidClient('this client is confidential: authenticate with HTTP Basic');
  return client;
}

/**
 * The client at the device endpoints (RFC 8628 §3.1 and the device grant, §3.4), or null. A client_id
 * needs no registration there: an unregistered one only names the program. A request that names a
 * registered client, or sends client credentials, is that client's and authenticates as at the token
 * endpoint (RFC 6749 §3.2.1): a confidential client with HTTP Basic and its secret, a public one by its
 * client_id. An `Authorization: Bearer` header is a person's credential, not a client's, and left alone.
 */
export async function authenticateDeviceClient(c: Context, params: Map<string, string>, store: OAuthStore): Promise<Client | null> {
  const header = c.req.header('authorization');
  const credentials = (header !== undefined && !/^bearer\s/i.test(header)) || params.has('client_secret') || params.has('client_assertion');
  const clientId = params.get('client_id');
  if (!credentials && !(clientId && (await store.getClient(clientId)))) return null;
  return authenticateClient(c, params, store);
}

export function checkGrantType(client: Client, grantType: string): void {
  if (!client.metadata.grant_types.includes(grantType)) throw new UnauthorizedClient(`this client did not register the ${grantType} grant type`);
}
