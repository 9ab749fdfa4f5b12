// How long the authorization server's codes and tokens live, and the two date helpers that apply them.
// A module of its own so token issuance and the device flow (api/device) use them without importing the
// authorization server's context, which holds the device flow.

/** Lifetimes in seconds. Codes are short (RFC 6749 §4.1.2 recommends at most 10 minutes). */
export interface Lifetimes {
  code: number;
  accessToken: number;
  refreshToken: number;
  consent: number;
}

export const LIFETIMES: Lifetimes = { code: 60, accessToken: 3600, refreshToken: 30 * 86_400, consent: 600 };

export const iso = (d: Date): string => d.toISOString();
export const plusSeconds = (d: Date, s: number): Date => new Date(d.getTime() + s * 1000);
