// Secrets never reach the database in clear: after a full flow (registration with a secret, code, tokens,
// rotation, revocation) every table is read and searched for each secret the clients ever saw. Every
// write left its audit event.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { discover, fullFlow, insecure, refresh } from './helpers.ts';

let srv: TestServer;
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true });
  as = await discover(srv);
});
afterAll(() => srv.stop());

/** Every value of every row of every table, as text (blobs as hex and base64url). */
async function dumpDatabase(): Promise<string> {
  const tables = (await (
    srv.db.dialect === 'postgres'
      ? srv.db.prepare("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")
      : srv.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
  )
    .pluck()
    .all()) as string[];
  // The tables the flow writes are among them (a listing that found nothing would prove nothing).
  for (const t of ['oauth_clients', 'oauth_codes', 'oauth_tokens', 'audit_events']) expect(tables).toContain(t);
  const parts: string[] = [];
  for (const t of tables) {
    for (const row of await srv.db.prepare(`SELECT * FROM "${t}"`).all() as Record<string, unknown>[]) {
      for (const v of Object.values(row)) {
        if (Buffer.isBuffer(v)) parts.push(v.toString('hex'), v.toString('base64url'), v.toString('latin1'));
        else if (v !== null && typeof v === 'object') parts.push(JSON.stringify(v)); // a PostgreSQL array or json value
        else parts.push(String(v));
      }
    }
  }
  return parts.join('\n');
}

describe('secrets at rest', () => {
  it('stores client secrets, codes, access and refresh tokens only as hashes', async () => {
    const { reg, tokens, code } = await fullFlow(srv, as, { metadata: { token_endpoint_auth_method: 'client_secret_basic' }, scope: 'read write' });
    const rotated = await oauth.processRefreshTokenResponse(as, reg.client, await refresh(as, reg, tokens.refresh_token!));
    await oauth.revocationRequest(as, reg.client, reg.auth, rotated.access_token, insecure);
    const secrets = [reg.secret!, code, tokens.access_token, tokens.refresh_token!, rotated.access_token, rotated.refresh_token!];
    const dump = await dumpDatabase();
    for (const s of secrets) {
      expect(s.length).toBeGreaterThan(40);
      expect(dump.includes(s), `a secret is stored in clear: ${s.slice(0, 8)}…`).toBe(false);
      // Nor any long part of it.
      expect(dump.includes(s.slice(-24))).toBe(false);
    }
    // What is stored is 32-byte hashes.
    const lengths = await srv.db.prepare('SELECT length(token_hash) FROM oauth_tokens UNION SELECT length(code_hash) FROM oauth_codes UNION SELECT length(secret_hash) FROM oauth_clients WHERE secret_hash IS NOT NULL').pluck().all();
    expect(lengths).toEqual([32]);
    // The consent key lives in DATA_DIR/keys, not in the database, and is readable by the owner only.
    const fs = await import('node:fs');
    expect(fs.statSync(`${srv.dataDir}/keys/oauth-consent.key`).mode & 0o077).toBe(0);
  });

  it('appends an audit event for every write a person makes: consent, code, tokens, rotation, revocation', async () => {
    const kinds = new Set((await srv.db.prepare('SELECT kind FROM audit_events').pluck().all() as string[]));
    for (const k of ['oauth.grant.create', 'oauth.code.issue', 'oauth.token.issue', 'oauth.token.rotate', 'oauth.token.revoke']) expect(kinds.has(k), k).toBe(true);
    const { reg, tokens } = await fullFlow(srv, as);
    await refresh(as, reg, tokens.refresh_token!);
    await refresh(as, reg, tokens.refresh_token!); // reuse → family revoked
    const events = (await (await srv.get('/api/audit?kind=oauth.grant.revoke')).json()).items;
    expect(events.at(-1).data).toMatchObject({ client_id: reg.client.client_id, reason: 'refresh_token_reuse' });
    expect(JSON.stringify(await (await srv.get('/api/audit?limit=200')).json())).not.toMatch(/oat_|ort_/);
  });
});
