// Every use of a user_code (lookup, approve, deny; by the API or the approval page) goes through here:
// normalise it, refuse callers who guessed too many unknown codes (429), count a new unknown code
// against them, and turn "expired or no longer pending" into 410.
import type { Context } from 'hono';
import { ApiError } from '../errors/index.ts';
import { principal } from '../auth/middleware.ts';
import type { DeviceFlow, DeviceRequest } from './flow.ts';
import type { GuessGuard } from './guess-guard.ts';
import { normalizeUserCode } from './user-code.ts';

export interface CodeAccess {
  /** The pending, unexpired request with this code; 404, 410 or 429 otherwise. */
  find(c: Context, userCode: string): DeviceRequest;
  /** Approves or denies; returns the decided request; 404, 410 or 429 otherwise. */
  decide(c: Context, userCode: string, userId: string, approve: boolean): DeviceRequest;
}

export const UNKNOWN_CODE = 'No sign-in request has this code; check it against the one your device shows';
export const GONE_CODE = 'This sign-in request has expired or was already approved or denied; start a new one on your device';

export function codeAccess(flow: DeviceFlow, guard: GuessGuard, clientAddress: (c: Context) => string): CodeAccess {
  // Counted per client address and, when signed in, per person too: an account cannot guess faster by
  // hopping between addresses.
  const keys = (c: Context) => {
    const p = principal(c);
    return p ? [`ip:${clientAddress(c)}`, `user:${p.user.id}`] : [`ip:${clientAddress(c)}`];
  };
  const unknown = (c: Context): never => {
    guard.failAll(keys(c));
    throw new ApiError(404, UNKNOWN_CODE, {}, 'Type the 8 letters your device shows (case, dashes and spaces do not matter). If they match, the request is gone: start a new sign-in on the device (POST /api/oauth/device).');
  };
  return {
    find(c, userCode) {
      guard.check(keys(c));
      const canonical = normalizeUserCode(userCode);
      const found = canonical ? flow.lookup(canonical) : null;
      if (!found) return unknown(c);
      if (!found.decidable) throw new ApiError(410, GONE_CODE);
      return found.row;
    },
    decide(c, userCode, userId, approve) {
      guard.check(keys(c));
      const canonical = normalizeUserCode(userCode);
      const r = canonical ? flow.decide(canonical, userId, approve) : ({ outcome: 'unknown' } as const);
      if (r.outcome === 'unknown') return unknown(c);
      if (r.outcome === 'gone') throw new ApiError(410, GONE_CODE);
      return r.row;
    },
  };
}
