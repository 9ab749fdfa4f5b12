// An external OpenID provider for sign-in tests that need claims the embedded one never sends (a missing
// or false `email_verified`): a real oidc-provider on its own loopback port, whose login step signs in
// whichever account the test names next, with exactly the claims the test gave that account.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Provider, type Adapter, type AdapterPayload } from 'oidc-provider';

export interface AccountClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface ExternalIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The env that points the service at this provider. */
  env(): Record<string, string>;
  /** The account the next sign-in at this provider is for, and the claims it answers with. */
  signInAs(sub: string, claims: AccountClaims): void;
  stop(): Promise<void>;
}

/** In-memory storage, so the provider prints no development-adapter warning. */
function memoryAdapter(): new (name: string) => Adapter {
  const rows = new Map<string, AdapterPayload>();
  return class implements Adapter {
    private name: string;
    constructor(name: string) {
      this.name = name;
    }
    private key = (id: string) => `${this.name}:${id}`;
    async upsert(id: string, payload: AdapterPayload) {
      rows.set(this.key(id), payload);
    }
    async find(id: string) {
      return rows.get(this.key(id));
    }
    async findByUserCode() {
      return undefined;
    }
    async findByUid(uid: string) {
      return [...rows.entries()].find(([k, p]) => k.startsWith(`${this.name}:`) && p.uid === uid)?.[1];
    }
    async consume(id: string) {
      const p = rows.get(this.key(id));
      if (p) p.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      rows.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string) {
      for (const [k, p] of rows) if (p.grantId === grantId) rows.delete(k);
    }
  };
}

/** Starts the provider for a relying party whose callback is `redirectUri`. */
export async function startExternalIdp(redirectUri: string): Promise<ExternalIdp> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'kb-test';
  const clientSecret = randomBytes(16).toString('hex');
  const accounts = new Map<string, AccountClaims>();
  let next: string | undefined;

  const provider = new Provider(issuer, {
    adapter: memoryAdapter(),
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' }],
    jwks: { keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' } as never] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const claims = accounts.get(sub);
      return claims ? { accountId: sub, claims: async () => ({ sub, ...claims }) } : undefined;
    },
  });
  const callback = provider.callback();

  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    (async () => {
      const details = await provider.interactionDetails(req, res);
      const accountId = next ?? details.session?.accountId;
      if (!accountId) throw new Error('the test named no account to sign in');
      const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope('openid email profile');
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
    })().catch((err: Error) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(err.message);
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    env: () => ({ OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret }),
    signInAs(sub, claims) {
      accounts.set(sub, claims);
      next = sub;
    },
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
