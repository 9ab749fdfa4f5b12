// What every step of the authorization server works with, built once in registerOAuthRoutes.
import type { Db } from '../../src/lib/data/db/index.ts';
import type { AuditLog } from '../../src/lib/data/audit/index.ts';
import type { Identity } from '../../src/lib/data/identity/index.ts';
import type { OAuthStore } from '../../src/lib/data/oauth/store.ts';
import type { RateLimiter } from '../rate-limit/index.ts';
import type { DeviceFlow } from '../device/flow.ts';
import type { Lifetimes } from './lifetimes.ts';

export { iso, LIFETIMES, plusSeconds, type Lifetimes } from './lifetimes.ts';

export interface OAuthContext {
  db: Db;
  audit: AuditLog;
  identity: Identity;
  store: OAuthStore;
  /** The issuer identifier: the public origin (RFC 8414 §2). */
  issuer: string;
  /** The one protected resource tokens are bound to: {BASE_URL}/mcp. */
  resource: string;
  lifetimes: Lifetimes;
  siteName: string;
  /** HMAC key binding consent forms to the session that saw them. */
  consentKey: Buffer;
  /** Registrations one client address may make (OAUTH_REGISTRATIONS_PER_HOUR). */
  registrationLimiter: RateLimiter;
  /** A registered client no one grants anything within this many hours is removed (OAUTH_UNUSED_CLIENT_TTL_HOURS). */
  unusedClientTtlHours: number;
  /** The device flow (api/device), whose grant the token endpoint also answers (RFC 8628 §3.4). */
  deviceFlow: DeviceFlow;
  now: () => Date;
}
