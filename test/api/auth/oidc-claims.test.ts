// Sign-in through an external OpenID provider whose claims the test shapes: accounts are found by issuer
// and subject; an e-mail leads to an existing account, and earns ADMIN_EMAILS roles, only when the
// provider says it verified that address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';
import { Browser } from '../../helpers/browser.ts';
import { startExternalIdp, type AccountClaims, type ExternalIdp } from './external-idp.ts';

let srv: TestServer;
let idp: ExternalIdp;
beforeAll(async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  idp = await startExternalIdp(`${base}/api/auth/idp/callback`);
  srv = await startTestServer({ env: { BASE_URL: base, PORT: String(port), ADMIN_EMAILS: 'boss@example.org', ...idp.env() } });
});
afterAll(async () => {
  await srv?.stop();
  await idp?.stop();
});

/** The whole browser round trip for the provider account `sub`; stops at our callback's answer. */
async function signIn(sub: string, claims: AccountClaims) {
  idp.signInAs(sub, claims);
  const browser = new Browser(srv.url);
  const res = await browser.follow('/api/auth/idp/login?next=/api/auth/me', {}, /\/api\/auth\/me$/);
  const me = browser.cookies.has('kb_session') ? await (await browser.request('/api/auth/me')).json() : null;
  return { status: res.status, body: res.status === 400 ? await res.json() : null, me };
}

const userRow = async (email: string) =>
  await srv.db.prepare('SELECT id, role, idp_issuer, idp_subject FROM users WHERE email = ?').get(email) as { id: string; role: string; idp_issuer: string; idp_subject: string } | undefined;

describe('sign-in claims from an external provider', () => {
  it('does not hand the account with an e-mail to a sign-in whose provider did not verify it (missing or false)', async () => {
    const bob = await sessionFor(srv, 'bob@example.org');
    for (const [sub, claims] of [
      ['attacker-1', { email: 'bob@example.org' }],
      ['attacker-2', { email: 'Bob@Example.org', email_verified: false }],
    ] as const) {
      const r = await signIn(sub, claims);
      expect(r.status, sub).toBe(400);
      expect(r.body.detail).toMatch(/not verified/);
      expect(r.me).toBeNull();
    }
    expect(await userRow('bob@example.org')).toMatchObject({ id: bob.userId, idp_issuer: 'https://idp.test', idp_subject: 'sub-bob@example.org' });
  });

  it('grants no ADMIN_EMAILS role, and creates no account, for an unverified address', async () => {
    const r = await signIn('attacker-3', { email: 'boss@example.org', name: 'Not The Boss' });
    expect(r.status).toBe(400);
    expect(await userRow('boss@example.org')).toBeUndefined();
    // The provider vouching for the address is what makes the role.
    const boss = await signIn('boss-1', { email: 'boss@example.org', email_verified: true });
    expect(boss.status).toBe(302);
    expect(boss.me).toMatchObject({ authenticated: true, user: { role: 'admin' } });
  });

  it('links a verified e-mail to the existing account, then finds it by issuer and subject', async () => {
    const carol = await sessionFor(srv, 'carol@example.org');
    const first = await signIn('carol-ext', { email: 'carol@example.org', email_verified: true });
    expect(first.me).toMatchObject({ authenticated: true, user: { id: carol.userId } });
    expect(await userRow('carol@example.org')).toMatchObject({ idp_issuer: idp.issuer, idp_subject: 'carol-ext' });
    // The subject is the identity: the same person signs in even when the provider no longer vouches for
    // the address, but an unverified address grants no role.
    const again = await signIn('carol-ext', { email: 'boss@example.org' });
    expect(again.status).toBe(302);
    expect(again.me).toMatchObject({ authenticated: true, user: { id: carol.userId, role: 'user' } });
    expect((await userRow('carol@example.org'))?.role).toBe('user');
  });
});
