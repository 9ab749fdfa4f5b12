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
  HOST: z.string().default('0.0.0.0'),
  BASE_URL: z.url().optional(),
  DATA_DIR: z.string().default('var'),
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
  LOG_REQUESTS: boolFromEnv.default(false),
  EMBEDDING_PROVIDER: z.enum(['auto', 'builtin', 'transformers']).default('auto'),
  EMBEDDING_MODEL: z.string().min(1).default('Xenova/all-MiniLM-L6-v2'),
  EMBEDDING_MODEL_DIR: z.string().optional(),
  EMBEDDING_ALLOW_DOWNLOAD: boolFromEnv.default(false),
  EMBEDDING_DTYPE: z.enum(['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4']).default('fp32'),
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(16).max(1024).default(128),
  AUDIT_CHECKPOINT_EVERY: z.coerce.number().int().min(1).default(100),
  AUDIT_CHECKPOINT_INTERVAL_SECONDS: z.coerce.number().min(0.1).default(60),
  AUDIT_SIGNING_KEY_FILE: z.string().optional(),
  ADMIN_EMAILS: z.string().default(''),
  MODERATOR_EMAILS: z.string().default(''),
  SESSION_TTL_HOURS: z.coerce.number().min(0.01).max(24 * 365).default(24 * 30),
  WRITE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
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
  DEVICE_CODE_TTL_SECONDS: z.coerce.number().int().min(1).max(3600).default(600),
  DEVICE_POLL_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(60).default(5),
});

export interface Config {
  port: number;
  host: string;
  /** Public origin, no trailing slash: used in every absolute URL the service publishes. */
  baseUrl: string;
  dataDir: string;
  contentDir: string;
  distDir: string;
  siteName: string;
  keyPrefix: string;
  oidc: { issuer: string; clientId?: string; clientSecret?: string } | null;
  /** True when no external identity provider is configured: the embedded one is used (local use only). */
  devMode: boolean;
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
  /** Bootstrap roles by e-mail (lower-cased), applied at each sign-in. */
  adminEmails: string[];
  moderatorEmails: string[];
  sessionTtlHours: number;
  /** Cookies get Secure when the public origin is https. */
  secureCookies: boolean;
  /** Writes (comments, posts, flags, …) one user may make per minute before 429. */
  writeRateLimitPerMinute: number;
  /** Device flow (RFC 8628): how long a device code lives, and the polling interval it starts with. */
  device: { codeTtlSeconds: number; pollIntervalSeconds: number };
  /** Community flags that reject a pending proposal. */
  autoRejectFlagThreshold: number;
  /** POST /api/sources fetches pages: time and size limits, and CIDRs exempt from the SSRF guard (tests, intranets). */
  sources: { allowPrivateCidrs: string[]; fetchTimeoutMs: number; maxBytes: number };
  /** An OpenAI-compatible chat-completions endpoint; null: drafts are written extractively. */
  llm: { baseUrl: string; model: string; apiKey?: string; timeoutMs: number } | null;
  /** Submitted posts that pass the checks are published at once; otherwise they wait for a moderator. */
  postsAutoPublish: boolean;
  audit: {
    /** A signed checkpoint after this many new events… */
    checkpointEvery: number;
    /** …or this many seconds after the last one, whichever comes first (and at shutdown). */
    checkpointIntervalSeconds: number;
    /** Ed25519 PKCS#8 PEM; default DATA_DIR/keys/audit-ed25519.pem, created on first start. */
    signingKeyFile?: string;
  };
}

export class ConfigError extends Error {}

const emailList = (s: string) => s.split(/[\s,]+/).map((x) => x.trim().toLowerCase()).filter(Boolean);
const cidrList = (s: string) => s.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean);

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
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    dataDir: path.resolve(cwd, e.DATA_DIR),
    contentDir: path.resolve(cwd, e.CONTENT_DIR),
    distDir: path.resolve(cwd, e.DIST_DIR),
    siteName: e.SITE_NAME,
    keyPrefix: e.KEY_PREFIX,
    oidc: e.OIDC_ISSUER
      ? { issuer: e.OIDC_ISSUER, clientId: e.OIDC_CLIENT_ID, clientSecret: e.OIDC_CLIENT_SECRET }
      : null,
    devMode: !e.OIDC_ISSUER,
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
    secureCookies: baseUrl.startsWith('https://'),
    writeRateLimitPerMinute: e.WRITE_RATE_LIMIT_PER_MINUTE,
    device: { codeTtlSeconds: e.DEVICE_CODE_TTL_SECONDS, pollIntervalSeconds: e.DEVICE_POLL_INTERVAL_SECONDS },
    autoRejectFlagThreshold: e.AUTO_REJECT_FLAG_THRESHOLD,
    sources: { allowPrivateCidrs: cidrList(e.SOURCES_ALLOW_PRIVATE_CIDRS), fetchTimeoutMs: e.SOURCE_FETCH_TIMEOUT_MS, maxBytes: e.SOURCE_MAX_BYTES },
    llm: e.LLM_BASE_URL ? { baseUrl: e.LLM_BASE_URL.replace(/\/+$/, ''), model: e.LLM_MODEL!, apiKey: e.LLM_API_KEY, timeoutMs: e.LLM_TIMEOUT_MS } : null,
    postsAutoPublish: e.POSTS_AUTO_PUBLISH,
    audit: {
      checkpointEvery: e.AUDIT_CHECKPOINT_EVERY,
      checkpointIntervalSeconds: e.AUDIT_CHECKPOINT_INTERVAL_SECONDS,
      signingKeyFile: e.AUDIT_SIGNING_KEY_FILE ? path.resolve(cwd, e.AUDIT_SIGNING_KEY_FILE) : undefined,
    },
  };
}
