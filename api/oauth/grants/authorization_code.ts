// The authorization_code grant (RFC 6749 §4.1.3, OAuth 2.1 §4.1.3).
// - the code is the client's own, unexpired and unused; a used code presented again revokes the grant
//   it started, and with it every token issued from it (§4.1.2); of two exchanges racing (on two
//   instances), the one whose conditional use of the code loses is that replay
// - redirect_uri repeats the authorization request's, when that one named it
// - code_verifier passes check_pkce; resource, if sent, is the code's (RFC 8707)
import { hashSecret } from '../../../src/lib/data/secrets.ts';
import { checkCodeVerifier } from '../check_pkce.ts';
import { checkResource } from '../check_resource.ts';
import { iso, type OAuthContext } from '../context.ts';
import { InvalidGrant, InvalidRequest, OAuthError } from '../errors.ts';
import { issueTokens, type TokenResponse } from '../issue.ts';
import type { Client } from '../../../src/lib/data/oauth/store.ts';

export async function authorizationCodeGrant(ctx: OAuthContext, client: Client, params: Map<string, string>): Promise<TokenResponse> {
  const code = params.get('code');
  if (!code) throw new InvalidRequest('code is required');
  const hash = hashSecret(code);

  // Checks that fail before anything is written throw; an outcome decided after a write (the replay's
  // revocation) is returned, so the transaction commits it before the error is answered.
  const outcome = await ctx.db.transaction(async (): Promise<TokenResponse | OAuthError> => {
    const now = iso(ctx.now());
    const row = await ctx.store.getCode(hash);
    if (!row || row.client_id !== client.client_id) throw new InvalidGrant('unknown authorization code');

    const replay = async () => {
      if (await ctx.store.revokeGrant(row.grant_id, 'code_replay', now)) {
        await ctx.audit.append({ kind: 'oauth.grant.revoke', subjectType: 'oauth_grant', subjectId: row.grant_id, actor: 'system', data: { client_id: client.client_id, reason: 'code_replay' } });
      }
      return new InvalidGrant('authorization code already used; every token issued from it is revoked');
    };
    if (row.used_at !== null) return replay();
    if (row.expires_at <= now) throw new InvalidGrant('authorization code expired');

    const redirectUri = params.get('redirect_uri');
    if (row.redirect_uri_given ? redirectUri !== row.redirect_uri : redirectUri !== undefined && redirectUri !== row.redirect_uri) {
      throw new InvalidGrant('redirect_uri does not match the authorization request');
    }
    checkCodeVerifier(params.get('code_verifier'), row.code_challenge);
    checkResource(params.get('resource'), row.resource);

    if (row.grant_revoked_at !== null) throw new InvalidGrant('the grant was revoked');
    // Single use across instances: the use is conditional, and the exchange that loses it is a replay.
    if (!(await ctx.store.useCode(hash, now))) return replay();
    // The grant's scope and resource are the code's (authorize.ts issues both from one request).
    const tokens = await issueTokens(ctx, client, { id: row.grant_id, scope: row.scope, resource: row.resource }, row.scope);
    await ctx.audit.append({
      kind: 'oauth.token.issue',
      subjectType: 'oauth_grant',
      subjectId: row.grant_id,
      actor: { userId: row.user_id },
      data: { client_id: client.client_id, grant_type: 'authorization_code', scope: row.scope, refresh: tokens.refresh_token !== undefined },
    });
    return tokens;
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}
