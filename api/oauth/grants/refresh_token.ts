// The refresh_token grant (RFC 6749 §6, OAuth 2.1 §4.3) with rotation on every use.
// - the refresh token is the client's own, unexpired, unrevoked, of a live grant
// - a refresh token that was already rotated and is presented again means two parties hold it: the
//   whole grant (every access and refresh token of the family) is revoked, and the caller gets
//   invalid_grant (OAuth 2.0 Security BCP, RFC 9700 §4.14.2); of two rotations racing (on two
//   instances), the one whose conditional use of the token loses is that reuse
// - scope may narrow (check_scope); resource, if sent, is the grant's (RFC 8707)
import { hashSecret } from '../../../src/lib/data/secrets.ts';
import { checkRefreshScope } from '../check_scope.ts';
import { checkResource } from '../check_resource.ts';
import { iso, type OAuthContext } from '../context.ts';
import { InvalidGrant, InvalidRequest, OAuthError } from '../errors.ts';
import { REFRESH_TOKEN_PREFIX, issueTokens, type TokenResponse } from '../issue.ts';
import type { Client } from '../../../src/lib/data/oauth/store.ts';

export async function refreshTokenGrant(ctx: OAuthContext, client: Client, params: Map<string, string>): Promise<TokenResponse> {
  const presented = params.get('refresh_token');
  if (!presented) throw new InvalidRequest('refresh_token is required');
  if (!presented.startsWith(REFRESH_TOKEN_PREFIX)) throw new InvalidGrant('unknown refresh token');
  const hash = hashSecret(presented);

  const outcome = await ctx.db.transaction(async (): Promise<TokenResponse | OAuthError> => {
    const now = iso(ctx.now());
    const seen = await ctx.store.getToken(hash);
    if (!seen || seen.kind !== 'refresh' || seen.client_id !== client.client_id) throw new InvalidGrant('unknown refresh token');
    // The grant first (store.lockGrant), then the token as it is now: a rotation or revocation that held
    // the lock meanwhile is seen.
    await ctx.store.lockGrant(seen.grant_id);
    const row = (await ctx.store.getToken(hash))!;
    if (row.grant_revoked_at !== null || row.revoked_at !== null) throw new InvalidGrant('refresh token revoked');

    // Reuse of a rotated refresh token: revoke the family, commit, then answer invalid_grant.
    const reuse = async () => {
      if (await ctx.store.revokeGrant(row.grant_id, 'refresh_token_reuse', now)) {
        await ctx.audit.append({ kind: 'oauth.grant.revoke', subjectType: 'oauth_grant', subjectId: row.grant_id, actor: 'system', data: { client_id: client.client_id, reason: 'refresh_token_reuse' } });
      }
      return new InvalidGrant('refresh token already used; the grant is revoked');
    };
    if (row.used_at !== null) return reuse();
    if (row.expires_at <= now) throw new InvalidGrant('refresh token expired');

    const scope = checkRefreshScope(params.get('scope'), row.scope);
    checkResource(params.get('resource'), row.resource);
    // Rotated once across instances: the use is conditional, and the rotation that loses it is a reuse.
    if (!(await ctx.store.useToken(hash, now))) return reuse();
    // A refresh token carries its grant's scope and resource (issue.ts): no read of the grant.
    const tokens = await issueTokens(ctx, client, { id: row.grant_id, scope: row.scope, resource: row.resource }, scope);
    await ctx.audit.append({
      kind: 'oauth.token.rotate',
      subjectType: 'oauth_grant',
      subjectId: row.grant_id,
      actor: { userId: row.user_id },
      data: { client_id: client.client_id, grant_type: 'refresh_token', scope },
    });
    return tokens;
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}
