// What the application is built from (AppDeps, which api/server.ts passes to createApp) and what the
// community routes share on top of it (CommunityDeps). Types only, in a module of their own so the route
// modules need not import api/app.ts, which imports them.
import type { Config } from '../src/lib/config.ts';
import type { ContentState } from './content/index.ts';
import type { AuditLog } from '../src/lib/data/audit/index.ts';
import type { Db } from '../src/lib/data/db/index.ts';
import type { Identity } from '../src/lib/data/identity/index.ts';
import type { Notifications } from '../src/lib/data/notifications/index.ts';
import type { RateLimiter } from './rate-limit/index.ts';
import type { StaticSite } from './static/index.ts';
import type { SearchService } from '../src/lib/search/index.ts';

export interface AppDeps {
  config: Config;
  content: () => ContentState;
  db: Db;
  audit: AuditLog;
  identity: Identity;
  /** The search service over the current snapshot (swapped with it when a new build is loaded). */
  search: () => SearchService;
  /** The identity provider browser sign-in uses: OIDC_ISSUER, or the embedded one in dev mode. */
  idp: { issuer: string; clientId: string; clientSecret?: string; localIssuerOrigin?: () => string | undefined };
  log?: (msg: string) => void;
  /** The prerendered site in memory, for the website's pages (api/web); api/server.ts passes it. */
  staticSite?: () => StaticSite;
}

/** What community routes (comments, posts, proposals, sources) share. */
export interface CommunityDeps extends AppDeps {
  notifications: Notifications;
  /** One token bucket per user for every write. */
  writeLimiter: RateLimiter;
}
