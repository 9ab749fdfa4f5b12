// A real git host on loopback for the personal-knowledge tests, shaped like Gitea or GitLab: one origin
// serving an OAuth 2 authorization server (oidc-provider, authorization code + PKCE, refresh tokens,
// RFC 7009 revocation), repositories over git's smart HTTP protocol (Debian's `git http-backend` as a CGI
// behind node:http) that accept only live access tokens of that server, and `GET /api/user` for the login.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawn, execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { Provider, type KoaContextWithOIDC } from 'oidc-provider';

export const CLIENT_ID = 'kb-notes';
export const CLIENT_SECRET = 'kb-notes-secret-for-tests';
export const SCOPE = 'repo';

export interface GitHost {
  origin: string;
  root: string;
  /** The VCS_* settings that point the service at this host. */
  env(overrides?: Record<string, string>): Record<string, string>;
  /** Creates the OAuth client once the service's callback URL is known. */
  registerClient(redirectUri: string): void;
  /** The host login the next authorization signs in as; `deny` makes the next consent fail. */
  nextLogin: string;
  denyNext: boolean;
  createRepo(owner: string, name?: string): string;
  /** A change made on the host itself (its web editor, another machine), as a commit on `main`. */
  commitOnHost(owner: string, file: string, content: string | null, message: string, repo?: string): string;
  readOnHost(owner: string, file: string, repo?: string): string | null;
  logOnHost(owner: string, repo?: string): string[];
  /** Every access and refresh token value the host has issued (opaque tokens: the value is the jti). */
  issuedTokens(login?: string): string[];
  /** How many of these tokens the host would still accept. */
  liveTokenCount(tokens: string[]): Promise<number>;
  /** Revokes every token the host issued (the person removed the app's access at the host). */
  revokeAll(login?: string): Promise<void>;
  /** Expires only the access tokens (refresh tokens stay valid), like a token's lifetime ending. */
  expireAccessTokens(login?: string): Promise<void>;
  /** Runs once when the next push starts (after its ref discovery): a change that races the push. */
  onNextPush: (() => void) | null;
  /** Makes the git endpoints fail as a down host would. */
  down: boolean;
  requests: { method: string; url: string; auth: string | null }[];
  stop(): Promise<void>;
}

const git = (args: string[], cwd?: string) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: os.tmpdir() } }).trim();

type Issued = Map<string, { model: 'AccessToken' | 'RefreshToken'; login: string }>;

/** Runs git http-backend as a CGI script for one request, over the repositories in `repos`. */
function httpBackend(repos: string, root: string, req: http.IncomingMessage, res: http.ServerResponse, user: string, pathInfo: string, query: string): Promise<void> {
  return new Promise((resolve) => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: repos,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: root,
      PATH_INFO: pathInfo,
      QUERY_STRING: query,
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_USER: user,
      REMOTE_ADDR: '127.0.0.1',
      ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
    };
    const child = spawn('git', ['http-backend'], { env });
    req.pipe(child.stdin);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', () => {});
    child.on('close', () => {
      const out = Buffer.concat(chunks);
      let split = out.indexOf('\r\n\r\n');
      let sepLen = 4;
      if (split < 0) {
        split = out.indexOf('\n\n');
        sepLen = 2;
      }
      const head = out.subarray(0, split).toString('latin1');
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.split(/\r?\n/)) {
        const i = line.indexOf(':');
        if (i < 0) continue;
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === 'status') status = Number(v.split(' ')[0]);
        else headers[k] = v;
      }
      res.writeHead(status, headers);
      res.end(out.subarray(split + sepLen));
      resolve();
    });
  });
}

/**
 * The host's OAuth 2 authorization server, with the service as its one client (authorization code + PKCE,
 * refresh tokens, revocation); records each access and refresh token it issues in `issued`.
 */
function createProvider(origin: string, redirectUri: string, issued: Issued): Provider {
  const provider = new Provider(origin, {
    clients: [{
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    }],
    scopes: ['openid', 'offline_access', SCOPE],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false }, revocation: { enabled: true } },
    interactions: { url: (_ctx: KoaContextWithOIDC, i: { uid: string }) => `/interaction/${i.uid}` },
    cookies: { keys: ['git-host-test-cookie-key'] },
    // Like GitLab: short-lived access tokens with a refresh token beside them.
    issueRefreshToken: async (_ctx: KoaContextWithOIDC, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: 3600, RefreshToken: 86400, AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 86400 },
    findAccount: async (_ctx: KoaContextWithOIDC, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
  });
  provider.on('access_token.saved', (t: { jti: string; accountId: string }) => issued.set(t.jti, { model: 'AccessToken', login: t.accountId }));
  provider.on('refresh_token.saved', (t: { jti: string; accountId: string }) => issued.set(t.jti, { model: 'RefreshToken', login: t.accountId }));
  return provider;
}

/** The host's repositories in `repos` (bare, one folder per owner), and changes made on the host itself. */
function repositories(root: string, repos: string): Pick<GitHost, 'createRepo' | 'commitOnHost' | 'readOnHost' | 'logOnHost'> {
  const repoDir = (owner: string, repo: string) => path.join(repos, owner, `${repo}.git`);
  return {
    createRepo(owner, name = 'notes') {
      const dir = repoDir(owner, name);
      fs.mkdirSync(dir, { recursive: true });
      git(['init', '--quiet', '--bare', '--initial-branch=main', dir]);
      git(['config', 'http.receivepack', 'true'], dir);
      git(['config', 'receive.denyNonFastForwards', 'true'], dir);
      return dir;
    },
    commitOnHost(owner, file, content, message, repo = 'notes') {
      const work = fs.mkdtempSync(path.join(root, 'work-'));
      git(['clone', '--quiet', repoDir(owner, repo), work]);
      git(['checkout', '--quiet', '-B', 'main'], work);
      const target = path.join(work, file);
      if (content === null) fs.rmSync(target);
      else {
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, content);
      }
      git(['add', '-A'], work);
      git(['-c', 'user.name=Host Editor', '-c', 'user.email=editor@host.test', 'commit', '--quiet', '-m', message], work);
      git(['push', '--quiet', 'origin', 'main'], work);
      const oid = git(['rev-parse', 'HEAD'], work);
      fs.rmSync(work, { recursive: true, force: true });
      return oid;
    },
    readOnHost(owner, file, repo = 'notes') {
      try {
        return execFileSync('git', ['--git-dir', repoDir(owner, repo), 'show', `main:${file}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      } catch {
        return null;
      }
    },
    logOnHost(owner, repo = 'notes') {
      try {
        return git(['--git-dir', repoDir(owner, repo), 'log', '--format=%s', 'main']).split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
  };
}

/** Starts the host on a free loopback port; stop() ends it and removes its repositories. */
export async function startGitHost(): Promise<GitHost> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-git-host-'));
  const repos = path.join(root, 'repos');
  fs.mkdirSync(repos);
  let provider: Provider | undefined;
  const issued: Issued = new Map(); // token value → what it is
  const server = http.createServer((req, res) => void handle(req, res).catch((err: Error) => {
    if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end(String(err.stack ?? err));
  }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** The host login behind a token, if the token is live and carries the repo scope. */
  async function loginFor(req: http.IncomingMessage): Promise<string | null> {
    const header = req.headers.authorization ?? '';
    let token: string | undefined;
    const bearer = /^Bearer\s+(\S+)$/i.exec(header);
    const basic = /^Basic\s+(\S+)$/i.exec(header);
    if (bearer) token = bearer[1];
    else if (basic) token = Buffer.from(basic[1], 'base64').toString('utf8').split(':').slice(1).join(':');
    if (!token || !provider) return null;
    const at = await provider.AccessToken.find(token);
    if (!at || at.isExpired || !String(at.scope ?? '').split(' ').includes(SCOPE)) return null;
    return at.accountId;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    host.requests.push({ method: req.method ?? 'GET', url, auth: req.headers.authorization ?? null });
    const gitPath = /^\/([a-z0-9-]+)\/([a-z0-9-]+\.git)(\/[^?]*)(?:\?(.*))?$/.exec(url);
    if (gitPath) {
      if (host.down) {
        req.socket.destroy(); // a connection reset, as from a host that went away
        return;
      }
      const login = await loginFor(req);
      if (!login) {
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' });
        res.end('Unauthorized');
        return;
      }
      if (login !== gitPath[1]) {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end('Repository not found');
        return;
      }
      if (gitPath[3] === '/info/refs' && gitPath[4] === 'service=git-receive-pack' && host.onNextPush) {
        // After the client fetched and decided, before its push is advertised the ref it will update.
        const race = host.onNextPush;
        host.onNextPush = null;
        race();
      }
      return httpBackend(repos, root, req, res, login, `/${gitPath[1]}/${gitPath[2]}${gitPath[3]}`, gitPath[4] ?? '');
    }
    if (url === '/api/user') {
      const login = await loginFor(req);
      res.writeHead(login ? 200 : 401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(login ? { login, id: 1 } : { message: 'Bad credentials' }));
      return;
    }
    if (!provider) {
      res.writeHead(503).end();
      return;
    }
    const interaction = /^\/interaction\/([A-Za-z0-9_-]+)$/.exec(url);
    if (interaction) {
      // The consent screen, approved (or denied) at once, as the person would click it.
      const details = await provider.interactionDetails(req, res);
      if (host.denyNext) {
        host.denyNext = false;
        await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The person declined' }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = new provider.Grant({ accountId: host.nextLogin, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope ?? ''));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: host.nextLogin }, consent: { grantId } }, { mergeWithLastSubmission: false });
      return;
    }
    provider.callback()(req, res);
  }

  const host: GitHost = {
    origin,
    root,
    nextLogin: 'alice',
    denyNext: false,
    down: false,
    onNextPush: null,
    requests: [],
    env: (overrides = {}) => ({
      VCS_AUTHORIZE_URL: `${origin}/auth`,
      VCS_TOKEN_URL: `${origin}/token`,
      VCS_REVOKE_URL: `${origin}/token/revocation`,
      VCS_USERINFO_URL: `${origin}/api/user`,
      VCS_CLIENT_ID: CLIENT_ID,
      VCS_CLIENT_SECRET: CLIENT_SECRET,
      VCS_SCOPES: SCOPE,
      VCS_REPO_URL_TEMPLATE: `${origin}/{login}/notes.git`,
      VCS_PULL_INTERVAL_SECONDS: '0',
      ...overrides,
    }),
    registerClient(redirectUri) {
      provider = createProvider(origin, redirectUri, issued);
    },
    ...repositories(root, repos),
    issuedTokens: (login) => [...issued].filter(([, t]) => !login || t.login === login).map(([value]) => value),
    async liveTokenCount(tokens) {
      let n = 0;
      for (const t of tokens) {
        const found = (await provider!.AccessToken.find(t)) ?? (await provider!.RefreshToken.find(t));
        if (found && !found.isExpired) n++;
      }
      return n;
    },
    async revokeAll(login) {
      for (const [value, t] of issued) if (!login || t.login === login) await (t.model === 'AccessToken' ? await provider!.AccessToken.find(value) : await provider!.RefreshToken.find(value))?.destroy();
    },
    async expireAccessTokens(login) {
      for (const [value, t] of issued) if (t.model === 'AccessToken' && (!login || t.login === login)) await (await provider!.AccessToken.find(value))?.destroy();
    },
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return host;
}
