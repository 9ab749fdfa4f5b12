// The embedded OpenID provider for dev mode: a real oidc-provider instance mounted at /idp, whose sign-in
// page asks only for an e-mail (and optionally a name) — no password. It is on whenever no OIDC_ISSUER is
// configured, so the service signs people in on a laptop with nothing else installed. Local use only: the
// configuration refuses it for a BASE_URL that is not loopback or localhost unless ALLOW_DEV_IDP=true, and
// then (loopbackOnly) it answers only connections from this machine.
import fs from 'node:fs';
import path from 'node:path';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Provider, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../../../src/lib/data/db/index.ts';
import { loginPage, errorPage, logoutPage, signedOutPage } from './pages.ts';
import { idpAccounts, idpAdapterFactory } from '../../../src/lib/data/identity/idp-store.ts';
import { keysDir as keysDirOf } from '../../../src/lib/data/keys.ts';
import { arrivedOnLoopback } from '../loopback.ts';

export const EMBEDDED_CLIENT_ID = 'kb-web';
/** Why a request from another machine is refused (the provider's pages and the sign-in routes say the same). */
export const REMOTE_REFUSED =
  'The development sign-in (dev mode: no OIDC_ISSUER) signs anyone in without a password, so it answers only on the machine the server runs on. Open the site there, or set OIDC_ISSUER for a real identity provider (ALLOW_DEV_IDP=true lets every machine that reaches the server sign in as anyone).';
export const IDP_PREFIX = '/idp';

export interface EmbeddedIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Answers requests under /idp; returns false for anything else. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

function loadJson<T>(file: string, make: () => T): T {
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  const value = make();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(value), { mode: 0o600 });
  return value;
}

/** The provider's account id for an e-mail: stable, so signing in again finds the same person. */
export function subjectFor(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22);
}

async function readForm(req: IncomingMessage, limit = 8 * 1024): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > limit) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

/** The provider's RS256 signing key and its cookie and client secrets, created in DATA_DIR/keys on first start. */
function loadKeys(dataDir: string) {
  const keysDir = keysDirOf(dataDir);
  const jwk = loadJson(path.join(keysDir, 'idp-signing-jwk.json'), () => ({
    ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
    kid: randomBytes(8).toString('hex'),
    use: 'sig',
    alg: 'RS256',
  }));
  const secrets = loadJson(path.join(keysDir, 'idp-secrets.json'), () => ({
    cookie: randomBytes(32).toString('base64url'),
    client: randomBytes(32).toString('base64url'),
  }));
  return { jwk, secrets };
}

/** The oidc-provider configuration: our one client, PKCE, the claims in the ID token, our pages. */
function providerConfiguration(db: Db, baseUrl: string, { jwk, secrets }: ReturnType<typeof loadKeys>): Configuration {
  const accounts = idpAccounts(db);
  return {
    adapter: idpAdapterFactory(db),
    ttl: { Interaction: 3600, Session: 14 * 86400, Grant: 14 * 86400, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
    // Put the e-mail and name in the ID token itself: the relying party needs no userinfo round trip.
    conformIdTokenClaims: false,
    clients: [
      {
        client_id: EMBEDDED_CLIENT_ID,
        client_secret: secrets.client,
        redirect_uris: [`${baseUrl}/api/auth/idp/callback`],
        // Where RP-initiated logout returns the browser after /signout (api/auth/oidc.ts, endSessionUrl).
        post_logout_redirect_uris: [`${baseUrl}/`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: [secrets.cookie] },
    pkce: { required: () => true },
    scopes: ['openid', 'email', 'profile'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: {
      devInteractions: { enabled: false },
      // The person asked to sign out on the site: end this provider's session too, without a second question
      // (the form posts itself; a browser without JavaScript shows its button).
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          ctx.type = 'html';
          ctx.body = logoutPage(form);
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.type = 'html';
          ctx.body = signedOutPage();
        },
      },
    },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction: { uid: string }) => `${IDP_PREFIX}/interaction/${interaction.uid}` },
    async findAccount(_ctx: KoaContextWithOIDC, sub: string) {
      const a = await accounts.find(sub);
      if (!a) return undefined;
      return { accountId: sub, claims: async () => ({ sub, email: a.email, email_verified: true, name: a.name }) };
    },
    // Errors the provider shows the person (bad links, expired interactions), in our page style.
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = errorPage(String(out.error_description ?? out.error ?? 'Sign-in failed'));
    },
  };
}

/** The sign-in interaction: our e-mail page, its login and abort posts, and the consent we give ourselves. */
function interactionHandler(db: Db, provider: Provider) {
  const accounts = idpAccounts(db);

  /** Our login prompt: finish "login" with the account, and consent for our own first-party client. */
  async function finish(req: IncomingMessage, res: ServerResponse, accountId: string): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    grant!.addOIDCScope('openid email profile');
    const grantId = await grant!.save();
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error('interaction mismatch');
    if (req.method === 'GET' && !action) {
      if (details.prompt.name === 'consent' && details.session?.accountId) return finish(req, res, details.session.accountId);
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(loginPage(uid));
      return;
    }
    if (req.method === 'POST' && action === 'login') {
      const form = await readForm(req);
      const email = (form.get('email') ?? '').trim().toLowerCase();
      const name = (form.get('name') ?? '').trim().slice(0, 100);
      // The length first: the pattern is quadratic on a long run of dots, and 254 characters bound it.
      if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
        res.writeHead(422, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end(loginPage(uid, 'Enter a valid e-mail address.', { email, name }));
        return;
      }
      const sub = subjectFor(email);
      await accounts.save(sub, email, name || email.split('@')[0]);
      return finish(req, res, sub);
    }
    if (req.method === 'POST' && action === 'abort') {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The person cancelled sign-in' }, { mergeWithLastSubmission: false });
      return;
    }
    res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('Method not allowed');
  }

  return interaction;
}

/**
 * @param opts.loopbackOnly answer 403 to every request whose connection is not from a loopback address
 *   (the server's own calls to the provider come from there too); ALLOW_DEV_IDP=true turns it off
 */
export function createEmbeddedIdp(db: Db, opts: { baseUrl: string; dataDir: string; loopbackOnly?: boolean }): EmbeddedIdp {
  const issuer = `${opts.baseUrl}${IDP_PREFIX}`;
  const keys = loadKeys(opts.dataDir);
  const provider = new Provider(issuer, providerConfiguration(db, opts.baseUrl, keys));
  provider.proxy = true;
  const callback = provider.callback();
  const interaction = interactionHandler(db, provider);

  return {
    issuer,
    clientId: EMBEDDED_CLIENT_ID,
    clientSecret: keys.secrets.client,
    handle(req, res) {
      const url = req.url ?? '';
      if (url !== IDP_PREFIX && !url.startsWith(`${IDP_PREFIX}/`) && !url.startsWith(`${IDP_PREFIX}?`)) return false;
      if (opts.loopbackOnly && !arrivedOnLoopback(req)) {
        res.writeHead(403, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end(errorPage(REMOTE_REFUSED));
        return true;
      }
      const m = /^\/idp\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|abort))?(?:\?.*)?$/.exec(url);
      if (m) {
        interaction(req, res, m[1], m[2]).catch((err: Error) => {
          if (res.headersSent) return res.end();
          res.writeHead(400, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
          res.end(errorPage(`This sign-in link is no longer valid (${err.message}). Start again.`));
        });
        return true;
      }
      // Mounted under /idp: the provider sees paths relative to its issuer, as with express's app.use.
      (req as IncomingMessage & { originalUrl?: string }).originalUrl = url;
      req.url = url.slice(IDP_PREFIX.length) || '/';
      void callback(req, res);
      return true;
    },
  };
}
