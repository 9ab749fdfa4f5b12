// Configuration: environment variables, read and validated once. Every other module receives a Config
// rather than reading process.env, so tests can build one per server they start.
import path from 'node:path';
import { z } from 'zod';
import ipaddr from 'ipaddr.js';

const boolFromEnv = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4321),
  // Unset: 127.0.0.1 in dev mode (its identity provider signs anyone in), 0.0.0.0 otherwise.
  HOST: z.string().optional(),
  BASE_URL: z.url().optional(),
  DATA_DIR: z.string().default('var'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/i, 'a postgres:// or postgresql:// URL')
    .optional(),
  // PostgreSQL only: connections per instance, how long a write waits for a lock before it answers 503, and
  // how long opening a connection may take before the request that needs it answers 503.
  PG_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  PG_LOCK_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  PG_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  CONTENT_DIR: z.string().default('content'),
  DIST_DIR: z.string().default('dist'),
  SITE_NAME: z.string().min(1).default('AI Transformation Knowledge Base'),
  KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{0,15}_$/, 'lower-case letters and digits ending in "_", e.g. kb_')
    .default('kb_'),
  OIDC_ISSUER: z.url().optional(),
  OIDC_CLIENT_ID: z.string().optional(),
  OIDC_CLIENT_SECRET: z.string().optional(),
  ALLOW_DEV_IDP: boolFromEnv.default(false),
  LOG_REQUESTS: boolFromEnv.default(false),
  PIPELINE: z.enum(['on', 'off']).default('on'),
  // The scheduler watches CONTENT_DIR (pipeline/lib/watch.ts): events, a quiet period, a periodic stat scan.
  PIPELINE_WATCH: boolFromEnv.default(true),
  PIPELINE_WATCH_QUIET_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  PIPELINE_WATCH_SCAN_SECONDS: z.coerce.number().min(0).max(86_400).default(60),
  // The hourly chain's rebuild-site works in a thread beside summarise and update-index (pipeline/lib/site-thread.ts).
  PIPELINE_SITE_BESIDE: boolFromEnv.default(true),
  EMBEDDING_PROVIDER: z.enum(['auto', 'builtin', 'transformers']).default('auto'),
  EMBEDDING_MODEL: z.string().min(1).default('Xenova/all-MiniLM-L6-v2'),
  EMBEDDING_MODEL_DIR: z.string().optional(),
  EMBEDDING_ALLOW_DOWNLOAD: boolFromEnv.default(false),
  EMBEDDING_DTYPE: z.enum(['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4']).default('fp32'),
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(16).max(1024).default(128),
  AUDIT_CHECKPOINT_EVERY: z.coerce.number().int().min(1).default(100),
  AUDIT_CHECKPOINT_INTERVAL_SECONDS: z.coerce.number().min(0.1).default(60),
  AUDIT_SIGNING_KEY_FILE: z.string().optional(),
  AUDIT_ORIGIN: z.string().regex(/^[^\s+]+$/u, 'a checkpoint origin without spaces or "+", e.g. kb.example.org/api/audit').optional(),
  ADMIN_EMAILS: z.string().default(''),
  MODERATOR_EMAILS: z.string().default(''),
  SESSION_TTL_HOURS: z.coerce.number().min(0.01).max(24 * 365).default(24 * 30),
  SESSION_IDLE_HOURS: z.coerce.number().min(0.01).max(24 * 365).default(24 * 7),
  WRITE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  SEARCH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  LOGIN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  TRUST_PROXY: z
    .string()
    .default('')
    .refine((v) => trustProxySetting(v) !== undefined, 'false, a hop count (1..20), or a comma-separated list of proxy addresses or CIDRs, e.g. 127.0.0.1,10.0.0.0/8'),
  OAUTH_REGISTRATIONS_PER_HOUR: z.coerce.number().int().min(1).default(20),
  OAUTH_UNUSED_CLIENT_TTL_HOURS: z.coerce.number().min(0.01).max(24 * 365).default(24),
  MCP_ALLOWED_ORIGINS: z
    .string()
    .default('')
    .refine((v) => originList(v) !== undefined, 'a comma-separated list of origins (scheme://host[:port], no path), e.g. https://inspector.example.org,http://localhost:6274'),
  AUTO_REJECT_FLAG_THRESHOLD: z.coerce.number().int().min(1).default(3),
  SOURCES_ALLOW_PRIVATE_CIDRS: z
    .string()
    .default('')
    .refine((v) => cidrList(v).every((c) => ipaddr.isValidCIDR(c)), 'a comma-separated list of CIDRs, e.g. 127.0.0.2/32,fd00::/8'),
  SOURCE_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  SOURCE_MAX_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(2 * 1024 * 1024),
  LLM_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  LLM_MODEL: z.string().min(1).optional(),
  LLM_API_KEY: z.string().optional(),
  LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  POSTS_AUTO_PUBLISH: boolFromEnv.default(true),
  VIDEO_THUMBNAILS: z.enum(['card', 'proxy']).default('card'),
  THUMBNAIL_HOSTS: z.string().default('i.ytimg.com,img.youtube.com'),
  CHAT_ALLOW_ANONYMOUS: boolFromEnv.default(false),
  CHAT_TOKEN_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  CHAT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  CHAT_ANON_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(5),
  // A passage whose relevance (0..1, the share of the question it answers by its words) is below this is no
  // source for chat (api/chat/retrieve.ts). Calibrated on
  // test/api/chat/judged.json with no floor: of its 23 off-topic questions (English and Slovenian) the best
  // cited passage scores 0.048, while the relevant passages its 28 on-topic questions cite score 0.131 and
  // more. On test/search/questions.json (90 questions, 78 relevant passages cited) it costs 4 of them.
  CHAT_RELEVANCE_FLOOR: z.coerce.number().min(0).max(1).default(0.07),
  DEVICE_CODE_TTL_SECONDS: z.coerce.number().int().min(1).max(3600).default(600),
  DEVICE_POLL_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(60).default(5),
  // Personal knowledge: the git host people connect their notes to (none: an embedded store per person).
  VCS_AUTHORIZE_URL: z.url().optional(),
  VCS_TOKEN_URL: z.url().optional(),
  VCS_CLIENT_ID: z.string().optional(),
  VCS_CLIENT_SECRET: z.string().optional(),
  VCS_TOKEN_AUTH_METHOD: z.enum(['client_secret_post', 'client_secret_basic', 'none']).optional(),
  VCS_SCOPES: z.string().default(''),
  VCS_REPO_URL_TEMPLATE: z.string().optional(),
  VCS_USERINFO_URL: z.url().optional(),
  VCS_REVOKE_URL: z.url().optional(),
  VCS_ISSUER: z.url().optional(),
  VCS_HOST_NAME: z.string().optional(),
  VCS_GIT_USERNAME: z.string().min(1).default('oauth2'),
  VCS_BRANCH: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/).default('main'),
  VCS_PULL_INTERVAL_SECONDS: z.coerce.number().min(0).max(3600).default(5),
  VCS_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(30),
});

export interface Config {
  port: number;
  /** The interface to listen on: HOST, else loopback (127.0.0.1) in dev mode and every interface (0.0.0.0) otherwise. */
  host: string;
  /** HOST was set: the server listens where it says, dev mode or not. */
  hostExplicit: boolean;
  /** Public origin, no trailing slash: used in every absolute URL the service publishes. */
  baseUrl: string;
  dataDir: string;
  /** PostgreSQL for the write side (postgres://…); unset: the embedded SQLite file DATA_DIR/kb.sqlite. */
  databaseUrl?: string;
  /** PostgreSQL: connections in each instance's pool (PG_POOL_SIZE). */
  pgPoolSize: number;
  /** PostgreSQL: how long a statement waits for a lock before it fails with 503 (PG_LOCK_TIMEOUT_MS). */
  pgLockTimeoutMs: number;
  /** PostgreSQL: how long opening a connection may take before it fails with 503 (PG_CONNECT_TIMEOUT_MS). */
  pgConnectTimeoutMs: number;
  contentDir: string;
  distDir: string;
  siteName: string;
  keyPrefix: string;
  oidc: { issuer: string; clientId?: string; clientSecret?: string } | null;
  /** True when no external identity provider is configured: the embedded one is used (local use only). */
  devMode: boolean;
  /** ALLOW_DEV_IDP: dev mode on any BASE_URL, and its sign-in answers requests from other machines too. */
  allowDevIdp: boolean;
  logRequests: boolean;
  /** Search embeddings: which embedder builds and queries the vector index (see README, Search). */
  embedding: {
    provider: 'auto' | 'builtin' | 'transformers';
    model: string;
    modelDir?: string;
    allowDownload: boolean;
    dtype: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4';
    /** Dimensions of the builtin LSA embedder. */
    dimensions: number;
  };
  /** Roles by e-mail (lower-cased), applied at start and at each sign-in, down as well as up. */
  adminEmails: string[];
  moderatorEmails: string[];
  sessionTtlHours: number;
  /** A browser session unused this long ends (SESSION_IDLE_HOURS), however long its lifetime has left. */
  sessionIdleHours: number;
  /** Cookies get Secure when the public origin is https. */
  secureCookies: boolean;
  /** Writes (comments, posts, flags, …) one user may make per minute before 429. */
  writeRateLimitPerMinute: number;
  /** `npm start` runs the pipeline's scheduler beside the server (PIPELINE=on, the default). */
  pipeline: boolean;
  /**
   * The scheduler watches the content folder and runs update-index and rebuild-site for changes anyone makes
   * (PIPELINE_WATCH): after `quietMs` without a new change, and a stat scan every `scanSeconds` (0: none)
   * for file systems whose events are unreliable.
   */
  pipelineWatch: { enabled: boolean; quietMs: number; scanSeconds: number };
  /**
   * In a chain from summarise (the hourly run), rebuild-site works out the site in a thread of its own beside
   * summarise and update-index, on its own copy of the content (~1.5 GB more at 100k videos while the run
   * lasts), instead of after them (PIPELINE_SITE_BESIDE; off on a one-core or memory-tight host).
   */
  pipelineSiteBeside: boolean;
  /** Searches that miss the result cache, per person or (anonymous) per client address, per minute before 429. */
  searchRateLimitPerMinute: number;
  /** Browser sign-ins a client address may start per minute before 429. */
  loginRateLimitPerMinute: number;
  /** TRUST_PROXY: the reverse proxies whose X-Forwarded-For / Forwarded name the client's address; null: none (the socket's). */
  trustProxy: TrustProxy | null;
  /** Dynamic client registration: per-address limit, and the lifetime of clients no one grants anything. */
  oauth: { registrationsPerHour: number; unusedClientTtlHours: number };
  /** Origins besides BASE_URL's whose browser pages may call /mcp (MCP_ALLOWED_ORIGINS); others get 403 (DNS rebinding). */
  mcpAllowedOrigins: string[];
  /** Device flow (RFC 8628): how long a device code lives, and the polling interval it starts with. */
  device: { codeTtlSeconds: number; pollIntervalSeconds: number };
  /** Personal knowledge: the git host (null: an embedded bare repository per person plays the host). */
  vcs: VcsConfig;
  /** Community flags that reject a pending proposal. */
  autoRejectFlagThreshold: number;
  /** POST /api/sources fetches pages: time and size limits, and CIDRs exempt from the SSRF guard (tests, intranets). */
  sources: { allowPrivateCidrs: string[]; fetchTimeoutMs: number; maxBytes: number };
  /** An OpenAI-compatible chat-completions endpoint; null: drafts are written extractively. */
  llm: { baseUrl: string; model: string; apiKey?: string; timeoutMs: number } | null;
  /** Submitted posts that pass the checks are published at once; otherwise they wait for a moderator. */
  postsAutoPublish: boolean;
  /** Pages show generated title cards for videos ('card'), or real thumbnails fetched and cached by the server ('proxy'). */
  videoThumbnails: 'card' | 'proxy';
  /** Hosts (host or host:port) the thumbnail proxy may fetch from. */
  thumbnailHosts: string[];
  /** Chat: anonymous callers (off by default, with a tighter limit), chat token lifetime, answers per minute. */
  chat: { allowAnonymous: boolean; tokenTtlSeconds: number; rateLimitPerMinute: number; anonymousRateLimitPerMinute: number; relevanceFloor: number };
  audit: {
    /** A signed checkpoint after this many new events… */
    checkpointEvery: number;
    /** …or this many seconds after the last one, whichever comes first (and at shutdown). */
    checkpointIntervalSeconds: number;
    /** Ed25519 PKCS#8 PEM; default DATA_DIR/keys/audit-ed25519.pem, created on first start. */
    signingKeyFile?: string;
    /** AUDIT_ORIGIN: the checkpoint origin a new log takes (default from BASE_URL); an existing log must match. */
    origin?: string;
  };
}

export interface VcsHostConfig {
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret?: string;
  tokenAuthMethod: 'client_secret_post' | 'client_secret_basic' | 'none';
  scopes: string;
  /** Clone URL with {login} (the host account), {handle} or {user_id}, e.g. https://github.com/{login}/notes.git */
  repoUrlTemplate: string;
  userinfoUrl?: string;
  revokeUrl?: string;
  /** Expected `iss` of authorization responses (RFC 9207); default the authorize URL's origin. */
  issuer: string;
  hostName: string;
  gitUsername: string;
}

export interface VcsConfig {
  host: VcsHostConfig | null;
  /** Branch of a new, empty repository. */
  branch: string;
  pullIntervalSeconds: number;
  timeoutSeconds: number;
}

/** The nearest `hops` hops are proxies of ours, or the hops whose address is in one of `proxies` (addresses or CIDRs). */
export type TrustProxy = { hops: number } | { proxies: string[] };

export class ConfigError extends Error {}

const emailList = (s: string) => s.split(/[\s,]+/).map((x) => x.trim().toLowerCase()).filter(Boolean);
const cidrList = (s: string) => s.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean);

/** MCP_ALLOWED_ORIGINS: each entry an http(s) origin, as browsers send it in Origin; undefined when one is not. */
function originList(v: string): string[] | undefined {
  const out: string[] = [];
  for (const entry of cidrList(v)) {
    const u = URL.parse(entry);
    if (!u || !['http:', 'https:'].includes(u.protocol) || u.pathname !== '/' || u.search || u.hash || u.username || u.password) return undefined;
    out.push(u.origin);
  }
  return out;
}

/** TRUST_PROXY: null when off (unset, false, 0), a hop count, or a list of proxy addresses and CIDRs; undefined when invalid. */
function trustProxySetting(v: string): TrustProxy | null | undefined {
  const s = v.trim().toLowerCase();
  if (['', 'false', 'off', 'no', '0'].includes(s)) return null;
  if (/^\d+$/.test(s)) return Number(s) <= 20 ? { hops: Number(s) } : undefined;
  const ip = (a: string) => ipaddr.IPv4.isValidFourPartDecimal(a) || ipaddr.IPv6.isValid(a);
  const valid = (p: string) => (p.includes('/') ? ip(p.slice(0, p.indexOf('/'))) && ipaddr.isValidCIDR(p) : ip(p));
  const proxies = cidrList(v);
  return proxies.length > 0 && proxies.every(valid) ? { proxies } : undefined;
}

/** Reads and validates configuration from an environment (process.env by default). */
export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.OIDC_ISSUER && !e.OIDC_CLIENT_ID) throw new ConfigError('invalid configuration:\n  OIDC_CLIENT_ID: required when OIDC_ISSUER is set');
  if (e.LLM_BASE_URL && !e.LLM_MODEL) throw new ConfigError('invalid configuration:\n  LLM_MODEL: required when LLM_BASE_URL is set');
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  // Dev mode lets anyone sign in as any e-mail: only where no one else can reach the server, unless said so.
  if (!e.OIDC_ISSUER && !e.ALLOW_DEV_IDP && !isLocalOrigin(new URL(baseUrl))) {
    throw new ConfigError(
      `invalid configuration:\n  OIDC_ISSUER: unset, so the service would run in dev mode (its embedded identity provider signs anyone in as any e-mail, without a password) on BASE_URL ${baseUrl}, which is not a loopback or localhost origin. Set OIDC_ISSUER and OIDC_CLIENT_ID (and OIDC_CLIENT_SECRET) for a real identity provider, or ALLOW_DEV_IDP=true if dev mode on this origin is really meant`,
    );
  }
  return {
    port: e.PORT,
    host: e.HOST ?? (e.OIDC_ISSUER ? '0.0.0.0' : '127.0.0.1'),
    hostExplicit: e.HOST !== undefined,
    baseUrl,
    dataDir: path.resolve(cwd, e.DATA_DIR),
    databaseUrl: e.DATABASE_URL || undefined,
    pgPoolSize: e.PG_POOL_SIZE,
    pgLockTimeoutMs: e.PG_LOCK_TIMEOUT_MS,
    pgConnectTimeoutMs: e.PG_CONNECT_TIMEOUT_MS,
    contentDir: path.resolve(cwd, e.CONTENT_DIR),
    distDir: path.resolve(cwd, e.DIST_DIR),
    siteName: e.SITE_NAME,
    keyPrefix: e.KEY_PREFIX,
    oidc: e.OIDC_ISSUER
      ? { issuer: e.OIDC_ISSUER, clientId: e.OIDC_CLIENT_ID, clientSecret: e.OIDC_CLIENT_SECRET }
      : null,
    devMode: !e.OIDC_ISSUER,
    allowDevIdp: e.ALLOW_DEV_IDP,
    logRequests: e.LOG_REQUESTS,
    embedding: {
      provider: e.EMBEDDING_PROVIDER,
      model: e.EMBEDDING_MODEL,
      modelDir: e.EMBEDDING_MODEL_DIR ? path.resolve(cwd, e.EMBEDDING_MODEL_DIR) : undefined,
      allowDownload: e.EMBEDDING_ALLOW_DOWNLOAD,
      dtype: e.EMBEDDING_DTYPE,
      dimensions: e.EMBEDDING_DIMENSIONS,
    },
    adminEmails: emailList(e.ADMIN_EMAILS),
    moderatorEmails: emailList(e.MODERATOR_EMAILS),
    sessionTtlHours: e.SESSION_TTL_HOURS,
    sessionIdleHours: e.SESSION_IDLE_HOURS,
    secureCookies: baseUrl.startsWith('https://'),
    writeRateLimitPerMinute: e.WRITE_RATE_LIMIT_PER_MINUTE,
    searchRateLimitPerMinute: e.SEARCH_RATE_LIMIT_PER_MINUTE,
    loginRateLimitPerMinute: e.LOGIN_RATE_LIMIT_PER_MINUTE,
    trustProxy: trustProxySetting(e.TRUST_PROXY) ?? null,
    oauth: { registrationsPerHour: e.OAUTH_REGISTRATIONS_PER_HOUR, unusedClientTtlHours: e.OAUTH_UNUSED_CLIENT_TTL_HOURS },
    pipeline: e.PIPELINE === 'on',
    pipelineWatch: { enabled: e.PIPELINE_WATCH, quietMs: e.PIPELINE_WATCH_QUIET_MS, scanSeconds: e.PIPELINE_WATCH_SCAN_SECONDS },
    pipelineSiteBeside: e.PIPELINE_SITE_BESIDE,
    mcpAllowedOrigins: originList(e.MCP_ALLOWED_ORIGINS) ?? [],
    device: { codeTtlSeconds: e.DEVICE_CODE_TTL_SECONDS, pollIntervalSeconds: e.DEVICE_POLL_INTERVAL_SECONDS },
    vcs: vcsConfig(e),
    autoRejectFlagThreshold: e.AUTO_REJECT_FLAG_THRESHOLD,
    sources: { allowPrivateCidrs: cidrList(e.SOURCES_ALLOW_PRIVATE_CIDRS), fetchTimeoutMs: e.SOURCE_FETCH_TIMEOUT_MS, maxBytes: e.SOURCE_MAX_BYTES },
    llm: e.LLM_BASE_URL ? { baseUrl: e.LLM_BASE_URL.replace(/\/+$/, ''), model: e.LLM_MODEL!, apiKey: e.LLM_API_KEY, timeoutMs: e.LLM_TIMEOUT_MS } : null,
    postsAutoPublish: e.POSTS_AUTO_PUBLISH,
    videoThumbnails: e.VIDEO_THUMBNAILS,
    thumbnailHosts: e.THUMBNAIL_HOSTS.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean),
    chat: {
      allowAnonymous: e.CHAT_ALLOW_ANONYMOUS,
      tokenTtlSeconds: e.CHAT_TOKEN_TTL_SECONDS,
      rateLimitPerMinute: e.CHAT_RATE_LIMIT_PER_MINUTE,
      anonymousRateLimitPerMinute: e.CHAT_ANON_RATE_LIMIT_PER_MINUTE,
      relevanceFloor: e.CHAT_RELEVANCE_FLOOR,
    },
    audit: {
      checkpointEvery: e.AUDIT_CHECKPOINT_EVERY,
      checkpointIntervalSeconds: e.AUDIT_CHECKPOINT_INTERVAL_SECONDS,
      signingKeyFile: e.AUDIT_SIGNING_KEY_FILE ? path.resolve(cwd, e.AUDIT_SIGNING_KEY_FILE) : undefined,
      origin: e.AUDIT_ORIGIN,
    },
  };
}

const isLoopback = (u: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);

/** localhost, *.localhost (RFC 6761 keeps them on this machine), 127.0.0.0/8 or [::1]. */
function isLocalOrigin(u: URL): boolean {
  const host = u.hostname.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const ip = host.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(ip)) return false;
  const addr = ipaddr.process(ip); // IPv4-mapped IPv6 counts as its IPv4 address
  return addr.range() === 'loopback';
}

/** The VCS_* settings: all four of authorize, token, client id and repository, or none (embedded store). */
function vcsConfig(e: z.infer<typeof EnvSchema>): VcsConfig {
  const base = { branch: e.VCS_BRANCH, pullIntervalSeconds: e.VCS_PULL_INTERVAL_SECONDS, timeoutSeconds: e.VCS_TIMEOUT_SECONDS };
  const required = { VCS_AUTHORIZE_URL: e.VCS_AUTHORIZE_URL, VCS_TOKEN_URL: e.VCS_TOKEN_URL, VCS_CLIENT_ID: e.VCS_CLIENT_ID, VCS_REPO_URL_TEMPLATE: e.VCS_REPO_URL_TEMPLATE };
  const missing = Object.entries(required).filter(([, v]) => !v).map(([k]) => k);
  if (missing.length === 4) return { host: null, ...base };
  const fail = (msg: string) => new ConfigError(`invalid configuration:\n  ${msg}`);
  if (missing.length > 0) throw fail(`${missing.join(', ')}: required when any of ${Object.keys(required).join(', ')} is set`);
  const template = e.VCS_REPO_URL_TEMPLATE!;
  if (!URL.canParse(template.replace(/\{(login|handle|user_id)\}/g, 'x'))) throw fail('VCS_REPO_URL_TEMPLATE: expected an http(s) clone URL, e.g. https://github.com/{login}/notes.git');
  if (template.includes('{login}') && !e.VCS_USERINFO_URL) throw fail('VCS_USERINFO_URL: required when VCS_REPO_URL_TEMPLATE uses {login}');
  const urls = [e.VCS_AUTHORIZE_URL, e.VCS_TOKEN_URL, e.VCS_USERINFO_URL, e.VCS_REVOKE_URL, template.replace(/\{(login|handle|user_id)\}/g, 'x')].filter((u): u is string => !!u);
  for (const u of urls.map((x) => new URL(x))) {
    // Tokens travel to these URLs: plain http only on this machine (tests, a host on localhost).
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopback(u))) throw fail(`VCS_*: ${u.origin} must be https (http only on loopback)`);
  }
  return {
    ...base,
    host: {
      authorizeUrl: e.VCS_AUTHORIZE_URL!,
      tokenUrl: e.VCS_TOKEN_URL!,
      clientId: e.VCS_CLIENT_ID!,
      clientSecret: e.VCS_CLIENT_SECRET,
      tokenAuthMethod: e.VCS_TOKEN_AUTH_METHOD ?? (e.VCS_CLIENT_SECRET ? 'client_secret_post' : 'none'),
      scopes: e.VCS_SCOPES.trim(),
      repoUrlTemplate: template,
      userinfoUrl: e.VCS_USERINFO_URL,
      revokeUrl: e.VCS_REVOKE_URL,
      issuer: e.VCS_ISSUER ?? new URL(e.VCS_AUTHORIZE_URL!).origin,
      hostName: e.VCS_HOST_NAME ?? new URL(template.replace(/\{(login|handle|user_id)\}/g, 'x')).host,
      gitUsername: e.VCS_GIT_USERNAME,
    },
  };
}
