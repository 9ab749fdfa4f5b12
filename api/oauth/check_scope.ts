// check_scope: which scopes a request may carry and which a grant gets.
// - scope is a space-separated list of known values (OAUTH_SCOPES); anything else is invalid_scope
// - a client that registered a scope may ask only within it; no scope asked means that scope, or `read`
// - every grant includes `read`; `moderate` and `admin` are granted only to people holding that role
//   (the consent page says so), so a token never carries powers its user did not have at consent
// - a refresh may narrow the scope, never widen it (RFC 6749 §6)
import { OAUTH_SCOPES } from '../../src/lib/read/discovery/shared.ts';
import type { Role } from '../../src/lib/data/identity/index.ts';
import { InvalidScope } from './errors.ts';
import type { Client } from '../../src/lib/data/oauth/store.ts';

export type Scope = (typeof OAUTH_SCOPES)[number];

export const DEFAULT_SCOPE: Scope[] = ['read'];
const ROLE_POWERS: Record<Role, Scope[]> = { user: [], moderator: ['moderate'], admin: ['moderate', 'admin'] };
export const POWER_SCOPES: Scope[] = ['moderate', 'admin'];

/** Known scopes in canonical order, duplicates removed. */
export function parseScope(value: string): Scope[] {
  const asked = value.split(' ').filter(Boolean);
  const unknown = asked.filter((s) => !(OAUTH_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new InvalidScope(`unknown scope ${unknown.join(', ')}; supported: ${OAUTH_SCOPES.join(' ')}`);
  return OAUTH_SCOPES.filter((s) => asked.includes(s));
}

export function checkRequestedScope(client: Client, value: string): Scope[] {
  const registered = client.metadata.scope;
  // No scope asked: the client's registered scope, else `read` (RFC 6749 §3.3's pre-defined default).
  const asked = value.trim() === '' ? (registered ? parseScope(registered) : DEFAULT_SCOPE) : parseScope(value);
  if (registered !== undefined) {
    const allowed = parseScope(registered);
    const outside = asked.filter((s) => !allowed.includes(s));
    if (outside.length > 0) throw new InvalidScope(`this client registered for ${allowed.join(' ')} only`);
  }
  return asked;
}

/** What the person can give: `read` always, powers only with the role. */
export function grantableScope(asked: Scope[], role: Role): { granted: Scope[]; withheld: Scope[] } {
  const can = (s: Scope) => !POWER_SCOPES.includes(s) || ROLE_POWERS[role].includes(s);
  const granted = OAUTH_SCOPES.filter((s) => s === 'read' || (asked.includes(s) && can(s)));
  return { granted, withheld: asked.filter((s) => !can(s)) };
}

/** The scope of a refreshed token: the grant's, or a subset of it. */
export function checkRefreshScope(value: string | undefined, grantScope: string): string {
  if (value === undefined || value.trim() === '') return grantScope;
  const asked = parseScope(value);
  const held = grantScope.split(' ');
  if (asked.some((s) => !held.includes(s))) throw new InvalidScope('a refresh cannot widen the scope of the grant');
  return asked.join(' ');
}
