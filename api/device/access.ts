// Every use of a user_code (lookup, approve, deny; by the API or the approval page) goes through here:
// normalise it, refuse callers who guessed too many unknown codes (429), count a new unknown code
// against them, and turn "expired or no longer pending" into 410.
import type { Context } from 'hono';
import { ApiError } from '../errors/index.ts';
import { principal } from '../auth/middleware.ts';
import type { Principal } from '../../src/lib/data/identity/index.ts';
import type { DeviceFlow } from './flow.ts';
import type { DeviceRequest } from '../../src/lib/data/device/store.ts';
import type { GuessGuard } from '../../src/lib/data/device/guess-guard.ts';
import { normalizeUserCode } from './user-code.ts';

export interface CodeAccess {
  /** The pending, unexpired request with this code; 404, 410 or 429 otherwise. */
  find(c: Context, userCode: string): Promise<DeviceRequest>;
  /** Approves or denies; returns the decided request; 404, 410 or 429 otherwise. */
  decide(c: Context, userCode: string, userId: string, approve: boolean): Promise<DeviceRequest>;
}

export const UNKNOWN_CODE = 'No sign-in request has this code; check it against the one your device shows';
export const GONE_CODE = 'This sign-in request has expired or was already approved or denied; start a new one on your device';

/** Browsers mark a request another page made them send (a link, a script's navigation, an image). */
const FROM_ANOTHER_SITE = new Set(['cross-site', 'same-site']);
/** The methods the Origin check of api/auth/middleware.ts lets through from anywhere. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The signed-in caller when the request can only have come from them: a bearer credential (no page makes
 * a browser send one), a session's write (it passed the Origin check of api/auth/middleware.ts), or a
 * session's read that the browser does not mark as sent from another site (Sec-Fetch-Site). Null for
 * anonymous requests and for reads another site may have caused: with SameSite=Lax a page elsewhere can
 * make the person's browser navigate here, session and all.
 */
export function ownCaller(c: Context): Principal | null {
  const p = principal(c);
  if (!p || p.via !== 'session' || !READS.has(c.req.method)) return p;
  return FROM_ANOTHER_SITE.has(c.req.header('sec-fetch-site') ?? '') ? null : p;
}

export function codeAccess(flow: DeviceFlow, guard: GuessGuard, clientAddress: (c: Context) => string): CodeAccess {
  // Two separate budgets, so that a page elsewhere cannot spend a person's: what the signed-in caller
  // tries themselves counts per person and per address (an account cannot guess faster by hopping between
  // addresses, nor several accounts by sharing one); anything else (anonymous lookups, and reads another
  // site may have made the person's browser send) counts per address, and only limits more of the same.
  const keys = (c: Context) => {
    const p = ownCaller(c);
    return p ? [`user:${p.user.id}`, `signed-in-ip:${clientAddress(c)}`] : [`ip:${clientAddress(c)}`];
  };
  /** 429 with Retry-After when any of the caller's budgets is spent. */
  const check = async (c: Context): Promise<void> => {
    const wait = await guard.wait(keys(c));
    if (wait > 0) throw new ApiError(429, `Too many unknown codes; try again in ${wait} s`, { 'Retry-After': String(wait) });
  };
  const unknown = async (c: Context): Promise<never> => {
    await guard.failAll(keys(c));
    throw new ApiError(404, UNKNOWN_CODE, {}, 'Type the 8 letters your device shows (case, dashes and spaces do not matter). If they match, the request is gone: start a new sign-in on the device (POST /api/oauth/device).');
  };
  return {
    async find(c, userCode) {
      await check(c);
      const canonical = normalizeUserCode(userCode);
      const found = canonical ? await flow.lookup(canonical) : null;
      if (!found) return unknown(c);
      if (!found.decidable) throw new ApiError(410, GONE_CODE);
      return found.row;
    },
    async decide(c, userCode, userId, approve) {
      await check(c);
      const canonical = normalizeUserCode(userCode);
      const r = canonical ? await flow.decide(canonical, userId, approve) : ({ outcome: 'unknown' } as const);
      if (r.outcome === 'unknown') return unknown(c);
      if (r.outcome === 'gone') throw new ApiError(410, GONE_CODE);
      return r.row;
    },
  };
}
