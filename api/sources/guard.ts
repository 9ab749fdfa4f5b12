// The SSRF guard of POST /api/sources: which URLs and addresses the server may fetch on a user's behalf.
// Only http(s) to public unicast addresses, every address a name resolves to checked, and the connection
// pinned to the checked address so a second DNS answer cannot swap in an internal one (DNS rebinding).
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A fetch the guard refuses: the caller answers 400 with the message. */
export class SourceRefused extends Error {}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Global unicast IPv6 is 2000::/3; everything outside it (IPv4-compatible ::a.b.c.d, unassigned) is refused. */
const IPV6_GLOBAL: Cidr = ipaddr.parseCIDR('2000::/3');

export function parseCidrs(list: string[]): Cidr[] {
  return list.map((c) => ipaddr.parseCIDR(c));
}

function inAny(addr: ipaddr.IPv4 | ipaddr.IPv6, cidrs: Cidr[]): boolean {
  return cidrs.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
}

/**
 * Why an address may not be fetched, or null when it may. ipaddr.js names the range (loopback, private,
 * linkLocal, uniqueLocal, multicast, unspecified, carrierGradeNat, reserved, 6to4, teredo, rfc6052, …);
 * only 'unicast' passes. IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it carries.
 * `allow` exempts configured CIDRs (SOURCES_ALLOW_PRIVATE_CIDRS, empty by default).
 */
export function addressRefusal(address: string, allow: Cidr[] = []): string | null {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(address.replace(/^\[|\]$/g, ''));
  } catch {
    return `${address} is not an IP address`;
  }
  if (inAny(addr, allow)) return null;
  const range = addr.range();
  if (range !== 'unicast') return `${addr.toString()} is not a public address (${range})`;
  if (addr.kind() === 'ipv6' && !addr.match(IPV6_GLOBAL[0], IPV6_GLOBAL[1])) return `${addr.toString()} is not a public address (not global unicast)`;
  return null;
}

const url = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** Checks a URL before any network use: scheme, credentials, host. Returns the host to resolve. */
export function checkUrl(url: URL): string {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SourceRefused(`Only http and https URLs are fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new SourceRefused('URLs with credentials are not fetched');
  if (!url.hostname) throw new SourceRefused('The URL has no host');
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Resolves `host` and checks every address it resolves to; one non-public address refuses the whole name
 * (a name that mixes public and internal answers is an attack, not a mistake). Returns the address to
 * connect to. An IP literal is checked as it is, without DNS.
 */
export async function resolvePublicAddress(host: string, allow: Cidr[], resolve: Resolver = systemResolver): Promise<{ address: string; family: 4 | 6 }> {
  if (ipaddr.isValid(host)) {
    const why = addressRefusal(host, allow);
    if (why) throw new SourceRefused(`Refused to fetch ${url(host)}: ${why}`);
    return { address: ipaddr.process(host).toString(), family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 };
  }
  let answers: { address: string; family: number }[];
  try {
    answers = await resolve(host);
  } catch {
    throw new SourceRefused(`Could not resolve ${host}`);
  }
  if (answers.length === 0) throw new SourceRefused(`Could not resolve ${host}`);
  for (const a of answers) {
    const why = addressRefusal(a.address, allow);
    if (why) throw new SourceRefused(`Refused to fetch ${host}: it resolves to ${why.replace(' is not ', ', which is not ')}`);
  }
  const first = answers[0];
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * A `lookup` for net/tls.connect that answers only the address already checked: the socket connects to
 * exactly what the guard approved, whatever DNS would say now. TLS still verifies the certificate against
 * the host name (undici sets servername from the URL).
 */
export function pinnedLookup(pinned: { address: string; family: 4 | 6 }): LookupFunction {
  return (_hostname, options, cb) => {
    if (options?.all) cb(null, [{ address: pinned.address, family: pinned.family }]);
    else cb(null, pinned.address, pinned.family);
  };
}
