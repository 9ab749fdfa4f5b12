// The client's address, for everything keyed on it (the rate limits of anonymous callers, sign-in starts,
// client registrations, device-code guessing): the connection's peer address, or behind reverse proxies
// the operator trusts (TRUST_PROXY), the address the nearest untrusted hop had, read from X-Forwarded-For
// (or Forwarded, RFC 7239, when a request has no X-Forwarded-For) from the right. Without TRUST_PROXY the
// headers are never read: a client names itself whatever it likes there.
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import ipaddr from 'ipaddr.js';
import type { TrustProxy } from '../../src/lib/config.ts';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Which hops are proxies of ours: the first `hops` from the server, or those whose address is in a CIDR. */
type IsTrusted = (addr: Address, hop: number) => boolean;

/** A TRUST_PROXY entry (validated by the configuration) as a range; `::ffff:10.0.0.0/104` as the IPv4 range it names. */
function proxyRange(entry: string): [Address, number] {
  const [addr, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.parse(entry), entry.includes(':') ? 128 : 32];
  if (addr instanceof ipaddr.IPv6 && addr.isIPv4MappedAddress() && bits >= 96) return [addr.toIPv4Address(), bits - 96];
  return [addr, bits];
}

function compile(trust: TrustProxy): IsTrusted {
  if ('hops' in trust) return (_addr, hop) => hop < trust.hops;
  const ranges = trust.proxies.map(proxyRange);
  return (addr) => ranges.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits));
}

/**
 * An address as a header or a socket gives it, IPv4-mapped IPv6 as IPv4, or null when it is none (an
 * obfuscated `Forwarded` node such as `unknown` or `_proxy1`, garbage). A port is dropped: `1.2.3.4:5678`,
 * `[2001:db8::1]:4711`.
 */
export function parseAddress(raw: string | undefined): Address | null {
  if (!raw) return null;
  let s = raw.trim().replace(/^"|"$/g, '');
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(s)) s = s.slice(0, s.indexOf(':'));
  s = s.replace(/%.*$/, ''); // an IPv6 zone id names a local interface, not a host
  if (!(ipaddr.IPv4.isValidFourPartDecimal(s) || ipaddr.IPv6.isValid(s))) return null;
  return ipaddr.process(s);
}

/** `text` split at `sep` outside double quotes (a backslash escapes inside them), in one pass. */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '\\') i++;
    else if (ch === '"') quoted = !quoted;
    else if (ch === sep && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** The `for=` nodes of a Forwarded header, left to right (RFC 7239 §4; quoted values may hold commas). */
export function forwardedFor(header: string): string[] {
  return splitOutsideQuotes(header, ',').map((element) => {
    const pair = splitOutsideQuotes(element, ';').find((p) => /^\s*for\s*=/i.test(p));
    // An element without for= is a hop that did not say: it breaks the chain as an unknown node does.
    if (!pair) return 'unknown';
    const value = pair.slice(pair.indexOf('=') + 1).trim();
    return value.startsWith('"') ? value.slice(1, value.endsWith('"') ? -1 : undefined).replace(/\\(.)/g, '$1') : value;
  });
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : v);

/**
 * The client's address for a connection from `peer` with these request headers: walking from the server
 * outwards (the peer, then X-Forwarded-For or Forwarded from the right), the first hop that is not a trusted
 * proxy; the furthest one named when every hop is trusted. A malformed entry ends the walk at the hop that
 * wrote it, so a client past the proxies can neither pick an address nor pass garbage as one.
 * @example forwardedClientAddress('10.0.0.2', { 'x-forwarded-for': '203.0.113.7' }, isTrusted) // '203.0.113.7'
 */
export function forwardedClientAddress(peer: string | undefined, headers: IncomingMessage['headers'], isTrusted: IsTrusted): string {
  const first = parseAddress(peer);
  if (!first) return peer ?? 'unknown';
  const xff = one(headers['x-forwarded-for']);
  const fwd = one(headers.forwarded);
  const named = xff !== undefined ? xff.split(',') : fwd !== undefined ? forwardedFor(fwd) : [];
  let client = first;
  for (let hop = 0; isTrusted(client, hop) && hop < named.length; hop++) {
    const next = parseAddress(named[named.length - 1 - hop]);
    if (!next) break;
    client = next;
  }
  return client.toString();
}

const TRUST = 'kbTrustProxy';

/**
 * Middleware: makes `clientAddress` look past the proxies TRUST_PROXY names; with it unset, nothing.
 * @example app.use('*', trustProxies(config.trustProxy))
 */
export function trustProxies(trust: TrustProxy | null): MiddlewareHandler {
  const isTrusted = trust ? compile(trust) : null;
  return async (c, next) => {
    if (isTrusted) c.set(TRUST as never, isTrusted as never);
    await next();
  };
}

/**
 * The client's address: the connection's peer (the node-server binding's socket), or with TRUST_PROXY the
 * address the trusted proxies say it came from. Requests the server makes to itself in process (its pages,
 * MCP tools) carry the outer request's `incoming`, so they count for the same client.
 */
export function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const peer = incoming?.socket?.remoteAddress;
  const isTrusted = c.get(TRUST as never) as IsTrusted | undefined;
  if (!isTrusted || !incoming) return peer ?? 'unknown';
  return forwardedClientAddress(peer, incoming.headers, isTrusted);
}
