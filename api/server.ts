// The server: one Node HTTP listener that answers prerendered reads from memory (api/static) and hands
// everything else to the Hono app. `node api/server.ts` serves an existing dist/; `npm start` builds first.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { fairTurns } from './http/fair-turns.ts';
import { ConfigError, loadConfig, type Config } from '../src/lib/config.ts';
import { helpRequested } from '../scripts/cli.ts';
import { ensurePrivateDir } from '../src/lib/data-dir.ts';
import { createApp } from './app.ts';
import { createStaticHandler, emptyStaticSite, loadStaticSite, type StaticSite } from './static/index.ts';
import { loadContentState, readBuildMeta, watchBuilds, type BuildMeta, type Live } from './builds.ts';
import { databaseTarget, openDatabase, pgOptions, type Db } from '../src/lib/data/db/index.ts';
import { auditOriginOptions, createAuditLog, type AuditLog } from '../src/lib/data/audit/index.ts';
import { createIdentity, type Identity } from '../src/lib/data/identity/index.ts';
import { createEmbeddedIdp, type EmbeddedIdp } from './auth/embedded-idp/index.ts';
import { openSearch, type SearchService } from '../src/lib/search/index.ts';
import { refreshPublishedPosts, syncPublishedPosts } from './search/posts.ts';
import { listen } from '../src/lib/data/db/listen.ts';
import { monitorDatabase, type DbMonitor } from '../src/lib/data/db/monitor.ts';
import { RETRY_AFTER_SECONDS } from '../src/lib/data/db/unavailable.ts';
import { createPostStore } from '../src/lib/data/posts/store.ts';
import { createNotifications } from '../src/lib/data/notifications/index.ts';
import { bufferChunkedBody, refuseDeclaredOversize } from './errors/body-size.ts';

export interface RunningServer {
  url: string;
  server: http.Server;
  staticSite: StaticSite;
  db: Db;
  audit: AuditLog;
  identity: Identity;
  search(): SearchService;
  /**
   * Loads a new build now, if build-meta.json names one this server does not serve yet (the pipeline in the
   * same process calls it when rebuild-site is done; the server also notices within a second by itself).
   */
  reload(): void;
  /**
   * Loads the content of the build under way, for prepareReload: the pipeline in the same process calls it
   * as the watched folder starts changing, and when it hands out an index job (update-index, build-index),
   * which lists the folder then: with `changedAt`, the newest change seen (performance.now()), a load that
   * began after it is kept, else the content is loaded again.
   */
  prepareContent(changedAt?: number): void;
  /**
   * Opens the search index for the build under way, with its content (prepareContent's, or loaded now),
   * while its site is built (the pipeline calls it when the index job is done): the reload that follows takes
   * both when the build is of that same content, and only swaps the files in.
   */
  prepareReload(): void;
  /** Drops what prepareContent and prepareReload loaded (the build under way failed). */
  dropPrepared(): void;
  close(): Promise<void>;
}

/** Query parameters that carry secrets (device codes, authorization codes, tokens) never reach the log. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:device_code|user_code|code|token|access_token|refresh_token|id_token|code_verifier|client_secret|state|api_key|key|idempotency_key)=)[^&]*/gi, '$1[redacted]');
}

/**
 * Starts the server on config.port: the content, the prerendered files, the database and its stores, search,
 * the app and the HTTP listener, and the watch on dist/build-meta.json that loads new builds.
 * @example const running = await startServer(loadConfig()); console.log(running.url); await running.close();
 */
export async function startServer(config: Config = loadConfig(), opts: { log?: (m: string) => void } = {}): Promise<RunningServer> {
  const log = opts.log ?? ((m: string) => console.log(m));
  const meta = readBuildMeta(config.distDir);
  const content = loadContentState(config, meta, log);
  const staticSite = await initialStaticSite(config, meta, log);
  ensurePrivateDir(config.dataDir, log);
  const { db, audit, identity } = await openStores(config, log);
  let localUrl: string | undefined;
  const { embeddedIdp, idp } = identityProvider(config, db, () => localUrl);
  // Search opens (building its index when missing or stale) before the server listens, so the first
  // request can search; published posts join its live index.
  const posts = createPostStore(db, audit, createNotifications(db));
  const live: Live = { content, staticSite, search: await openSearch(config, content.snapshot, log) };
  await syncPublishedPosts(live.search, posts);
  // Several instances on one PostgreSQL: a post published, edited or removed through another instance
  // reaches this one's live index when the database names it (LISTEN kb_posts: publication changes only,
  // src/lib/data/db/migrations/postgres/014); after a reconnection every published post is read again.
  const postsListener = config.databaseUrl
    ? await listen(config.databaseUrl, 'kb_posts', (ids) => (ids ? refreshPublishedPosts(live.search, posts, ids) : syncPublishedPosts(live.search, posts)), log, pgOptions(config))
    : null;
  const app = createApp({ config, content: () => live.content, db, audit, identity, idp, search: () => live.search, log: (m) => console.error(m), staticSite: () => live.staticSite });
  const monitor = monitorDatabase(db, { log });
  const server = createHttpServer(config, log, app.fetch, () => live.staticSite, embeddedIdp, monitor);
  const builds = watchBuilds(config, meta, log, live, posts, (site) => {
    running.staticSite = site;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
  localUrl = url;
  if (config.devMode && !config.hostExplicit) log(`server: dev mode: listening on ${config.host} only, so no other machine reaches the development sign-in; set HOST (e.g. HOST=0.0.0.0) to listen on other interfaces`);
  else if (config.devMode && !config.allowDevIdp) log('server: dev mode: the development sign-in answers only requests from this machine (ALLOW_DEV_IDP=true opens it to every machine that reaches the server)');
  const running: RunningServer = {
    url,
    server,
    staticSite: live.staticSite,
    db,
    audit,
    identity,
    search: () => live.search,
    reload: builds.reload,
    prepareContent: builds.prepareContent,
    prepareReload: builds.prepare,
    dropPrepared: builds.drop,
    close: async () => {
      builds.stop();
      monitor.stop();
      await postsListener?.close();
      await closeServer(server, audit, db, log);
    },
  };
  return running;
}

/**
 * The prerendered files of dist/client. Files built for another origin name that origin in every link and
 * discovery document: never serve them; the dynamic routes answer for this origin until a build for it lands.
 */
async function initialStaticSite(config: Config, meta: BuildMeta | null, log: (m: string) => void): Promise<StaticSite> {
  const builtFor = meta?.base_url;
  const staticSite = builtFor && builtFor !== config.baseUrl ? emptyStaticSite() : await loadStaticSite(path.join(config.distDir, 'client'));
  if (builtFor && builtFor !== config.baseUrl) log(`server: dist/ was built for ${builtFor}, not ${config.baseUrl}; not serving its files (npm run build)`);
  else if (staticSite.fileCount === 0) log(`server: no prerendered files in ${config.distDir}; every read goes through the dynamic routes`);
  return staticSite;
}

/** The database, the audit log (checkpointing from now) and the identity, its roles brought in line with the configuration. */
async function openStores(config: Config, log: (m: string) => void): Promise<{ db: Db; audit: AuditLog; identity: Identity }> {
  const db = await openDatabase(databaseTarget(config), { ...pgOptions(config), log });
  const audit = await createAuditLog(db, {
    dataDir: config.dataDir,
    ...auditOriginOptions(config),
    checkpointEvery: config.audit.checkpointEvery,
    checkpointIntervalSeconds: config.audit.checkpointIntervalSeconds,
    signingKeyFile: config.audit.signingKeyFile,
    log,
  });
  audit.startCheckpointing();
  const identity = createIdentity(db, audit, {
    keyPrefix: config.keyPrefix,
    adminEmails: config.adminEmails,
    moderatorEmails: config.moderatorEmails,
    sessionTtlHours: config.sessionTtlHours,
    sessionIdleHours: config.sessionIdleHours,
  });
  // Roles follow ADMIN_EMAILS and MODERATOR_EMAILS: an address taken off a list loses its role now.
  const rolesChanged = await identity.applyConfiguredRoles();
  if (rolesChanged > 0) log(`server: ${rolesChanged} account role(s) changed to follow ADMIN_EMAILS and MODERATOR_EMAILS (audit events user.role_change)`);
  return { db, audit, identity };
}

/**
 * The identity provider sign-in goes to: OIDC_ISSUER, or in dev mode the embedded OpenID provider at /idp,
 * which reaches itself through the local address and answers only this machine unless ALLOW_DEV_IDP=true.
 */
function identityProvider(config: Config, db: Db, localUrl: () => string | undefined) {
  const embeddedIdp = config.oidc ? null : createEmbeddedIdp(db, { baseUrl: config.baseUrl, dataDir: config.dataDir, loopbackOnly: !config.allowDevIdp });
  const idp = config.oidc
    ? { issuer: config.oidc.issuer, clientId: config.oidc.clientId!, clientSecret: config.oidc.clientSecret }
    : { issuer: embeddedIdp!.issuer, clientId: embeddedIdp!.clientId, clientSecret: embeddedIdp!.clientSecret, localIssuerOrigin: localUrl };
  return { embeddedIdp, idp };
}

/** The HTTP listener: common headers, the request log, 413 for declared oversize bodies, then /idp, the prerendered files or the app. */
function createHttpServer(
  config: Config,
  log: (m: string) => void,
  fetch: Parameters<typeof getRequestListener>[0],
  staticSite: () => StaticSite,
  embeddedIdp: EmbeddedIdp | null,
  monitor: DbMonitor,
): http.Server {
  const honoListener = getRequestListener(fetch);
  const serveStatic = createStaticHandler(staticSite);
  // The app's requests take turns; the probes and prerendered files above them are answered at once.
  const inTurn = fairTurns((err) => log(`server: a request failed to start: ${(err as Error).message}`));
  // Headers every response carries, whoever answers it (static files, Hono, the embedded identity provider).
  const hsts = config.baseUrl.startsWith('https://');
  const server = http.createServer((req, res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Browsers that reached us over https keep to it for a year (subdomains are the operator's to add).
    if (hsts) res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    if (config.logRequests) res.on('finish', () => log(`${req.method} ${redactUrl(req.url ?? '')} ${res.statusCode}`));
    // Bodies over the limit are answered 413 here, before anything reads them (api/errors/body-size.ts).
    if (refuseDeclaredOversize(req, res)) return;
    if (answerProbe(req, res, monitor)) return;
    if (embeddedIdp?.handle(req, res)) return;
    if (serveStatic(req, res)) return;
    // The liveness probe never waits for a turn (without dist/ no prerendered file answers it).
    if (req.url === '/api/health') void honoListener(req, res);
    else bufferChunkedBody(req, res, () => inTurn(() => void honoListener(req, res)));
  });
  server.keepAliveTimeout = 65_000;
  return server;
}

/**
 * The probes, answered here from the database monitor's last reading so they never wait for the database:
 * /api/health (liveness: 200 while the process serves, `degraded` with the reason while the database is
 * unavailable; otherwise the prerendered {"status":"ok"} answers) and /api/ready (readiness for a load
 * balancer: 503 while the database is unavailable). Only the bare paths: `?detail=true` goes to the app.
 */
function answerProbe(req: http.IncomingMessage, res: http.ServerResponse, monitor: DbMonitor): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const state = monitor.state();
  const send = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
    res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
    return true;
  };
  if (req.url === '/api/ready') {
    return state.ok
      ? send(200, { status: 'ready' })
      : send(503, { status: 'not_ready', reason: `the database is unavailable: ${state.reason}`, since: state.since }, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
  }
  if (req.url === '/api/health' && !state.ok) return send(200, { status: 'degraded', reason: `the database is unavailable: ${state.reason}`, since: state.since });
  return false;
}

/** Stops listening, seals the audit log with a final checkpoint and closes the database. */
async function closeServer(server: http.Server, audit: AuditLog, db: Db, log: (m: string) => void): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  // Seal what this run appended with a final signed checkpoint, then release the database. With the
  // database gone, the next instance's (or this one's next) timer makes the checkpoint instead.
  try {
    await audit.stop();
  } catch (err) {
    log(`server: no final audit checkpoint (${(err as Error).message}); the next start makes it`);
  }
  try {
    await db.close();
  } catch (err) {
    log(`server: the database did not close cleanly (${(err as Error).message})`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  helpRequested(`usage: npm run serve

Serves an existing dist/ (npm run build makes it) with the API and MCP on PORT, without building and
without the pipeline. Every setting is an environment variable: see the README's configuration table.`);
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`server: ${err.message}`);
    process.exit(1);
  }
  const running = await startServer(config);
  console.log(`server: ${running.staticSite.fileCount} prerendered files in memory; listening on ${running.url} (public ${config.baseUrl})`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
