// The device authorization grant (RFC 8628, the spec's "legacy flow") for agents and shells: a device
// asks for codes, a signed-in person approves at /device, the device polls and receives a bearer API key
// owned by that person, or, when it asked for a scope, OAuth access and refresh tokens that work at /mcp,
// the REST API and chat alike. /agent-login.sh (src/lib/read/discovery/agent-login.ts) is its shell client.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Config } from '../../src/lib/config.ts';
import type { AuditLog } from '../../src/lib/data/audit/index.ts';
import type { Identity } from '../../src/lib/data/identity/index.ts';
import type { Db } from '../../src/lib/data/db/index.ts';
import { RateLimiter, clientAddress } from '../rate-limit/index.ts';
import { codeAccess } from './access.ts';
import { createDeviceFlow, type DeviceFlow } from './flow.ts';
import { GuessGuard } from '../../src/lib/data/device/guess-guard.ts';
import { registerDevicePage } from './page.ts';
import { registerDeviceApiRoutes } from './routes.ts';
import { registerDeviceTokenEndpoint } from './token.ts';
import { mcpResource } from '../oauth/check_resource.ts';
import { oauthStore } from '../../src/lib/data/oauth/store.ts';

export { redeemDeviceCode } from './token.ts';
export type { DeviceFlow } from './flow.ts';

export interface DeviceDeps {
  config: Config;
  db: Db;
  audit: AuditLog;
  identity: Identity;
  /** A clock for tests; the real one otherwise. */
  now?: () => Date;
}

/**
 * Unknown user codes one client may try per window: a signed-in person (and the address they try from) in
 * what they try themselves; an address in anonymous lookups and in reads another site may have caused.
 */
export const GUESS_LIMIT = { limit: 10, windowMs: 10 * 60_000 };
/** Device requests one address may start: a burst of 60, refilled over ten minutes (a login needs one). */
export const START_LIMIT = { limit: 60, windowMs: 10 * 60_000 };

/**
 * The device flow over this configuration's database. It keeps no state of its own, so the authorization
 * server's token endpoint (the device grant at /api/oauth/v2/token) opens its own over the same tables.
 * @example deviceFlowFor({ config, db, audit, identity }).redeem(deviceCode, false)
 */
export function deviceFlowFor(deps: DeviceDeps): DeviceFlow {
  return createDeviceFlow(deps.db, deps.audit, deps.identity, {
    codeTtlSeconds: deps.config.device.codeTtlSeconds,
    pollIntervalSeconds: deps.config.device.pollIntervalSeconds,
    oauth: { resource: mcpResource(deps.config.baseUrl) },
    now: deps.now,
  });
}

/**
 * @example registerDeviceRoutes(app, { config, db, audit, identity })
 */
export function registerDeviceRoutes(app: OpenAPIHono, deps: DeviceDeps): DeviceFlow {
  const flow = deviceFlowFor(deps);
  const codes = codeAccess(flow, new GuessGuard({ ...GUESS_LIMIT, db: deps.db }), clientAddress);
  const store = oauthStore(deps.db);
  registerDeviceApiRoutes(app, flow, codes, { baseUrl: deps.config.baseUrl, startLimiter: new RateLimiter({ ...START_LIMIT, name: 'device-start', db: deps.db }), clientAddress, store });
  registerDeviceTokenEndpoint(app, flow, { baseUrl: deps.config.baseUrl, store });
  registerDevicePage(app, codes, { siteName: deps.config.siteName });
  return flow;
}
