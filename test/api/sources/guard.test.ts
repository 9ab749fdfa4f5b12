// The SSRF guard on its own: address classification, names resolving into internal ranges, names that
// mix public and internal answers, the allow-list, and the connection pinned to the checked address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceRefused, addressRefusal, parseCidrs, resolvePublicAddress, type Resolver } from '../../../api/sources/guard.ts';
import { fetchPublicPage } from '../../../api/sources/fetch-page.ts';
import { canonicalUrl, pageCanonicalUrl } from '../../../api/sources/canonical-url.ts';
import { startInternalServer, startPageServer, type PageServer } from './page-server.ts';

const dnsTable = (table: Record<string, string[]>): Resolver => async (host) => {
  const answers = table[host];
  if (!answers) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('addressRefusal', () => {
  it('passes public unicast only', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) expect(addressRefusal(a), a).toBeNull();
    const refused: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['::1', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.0.10', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['fe80::1', 'linkLocal'],
      ['fc00::1', 'uniqueLocal'],
      ['fd12:3456::1', 'uniqueLocal'],
      ['100.100.100.200', 'carrierGradeNat'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['224.0.0.251', 'multicast'],
      ['ff02::1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['198.18.0.1', 'reserved'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:192.168.1.1', 'private'],
      ['64:ff9b::a00:1', 'rfc6052'],
      ['2002:7f00:1::', '6to4'],
      ['2001:db8::1', 'reserved'],
    ];
    for (const [a, range] of refused) expect(addressRefusal(a), a).toContain(`(${range})`);
    // IPv4-compatible ::a.b.c.d and other space outside 2000::/3 is not global unicast either.
    expect(addressRefusal('::7f00:1')).toMatch(/not a public address/);
    expect(addressRefusal('not-an-ip')).toMatch(/not an IP address/);
  });

  it('exempts only the configured CIDRs', () => {
    const allow = parseCidrs(['127.0.0.2/32', 'fd00:1::/32']);
    expect(addressRefusal('127.0.0.2', allow)).toBeNull();
    expect(addressRefusal('127.0.0.1', allow)).toContain('loopback');
    expect(addressRefusal('fd00:1::5', allow)).toBeNull();
    expect(addressRefusal('fd00:2::5', allow)).toContain('uniqueLocal');
  });
});

describe('resolvePublicAddress', () => {
  const resolve = dnsTable({
    'intranet.example': ['10.0.0.5'],
    'router.example': ['192.168.1.1'],
    'metadata.example': ['169.254.169.254'],
    'mixed.example': ['93.184.216.34', '127.0.0.1'],
    'v6local.example': ['fd00::7'],
    'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  });

  it('refuses a name when any address it resolves to is internal', async () => {
    for (const [host, range] of [['intranet.example', 'private'], ['router.example', 'private'], ['metadata.example', 'linkLocal'], ['mixed.example', 'loopback'], ['v6local.example', 'uniqueLocal']]) {
      await expect(resolvePublicAddress(host, [], resolve), host).rejects.toThrow(new RegExp(`resolves to .*\\(${range}\\)`));
    }
    await expect(resolvePublicAddress('nowhere.example', [], resolve)).rejects.toBeInstanceOf(SourceRefused);
  });

  it('returns the first checked address of a public name, and checks literals without DNS', async () => {
    expect(await resolvePublicAddress('public.example', [], resolve)).toEqual({ address: '93.184.216.34', family: 4 });
    expect(await resolvePublicAddress('2606:4700:4700::1111', [], () => Promise.reject(new Error('no DNS for literals')))).toEqual({ address: '2606:4700:4700::1111', family: 6 });
  });
});

describe('fetchPublicPage', () => {
  let web: PageServer;
  let internal: PageServer;
  beforeAll(async () => {
    web = await startPageServer();
    internal = await startInternalServer();
  });
  afterAll(async () => {
    await web.close();
    await internal.close();
  });

  it('connects to the address it checked, not to what DNS says later (no rebinding)', async () => {
    // First answer: the allowed address; every later lookup would say loopback. Only one lookup happens
    // per hop, and the socket connects to its answer.
    let calls = 0;
    const rebinding: Resolver = async () => (calls++ === 0 ? [{ address: '127.0.0.2', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
    const page = await fetchPublicPage(`http://rebind.example:${web.port}/no-canonical`, { allowCidrs: ['127.0.0.2/32'], timeoutMs: 2000, maxBytes: 100_000, resolve: rebinding });
    expect(page.body).toContain('Underwriting with agents');
    expect(calls).toBe(1);
    expect(internal.hits).toEqual([]);
  });

  it('refuses a name that resolves into loopback, even on the allowed server’s port', async () => {
    const resolve = dnsTable({ 'sneaky.example': ['127.0.0.1'] });
    await expect(fetchPublicPage(`http://sneaky.example:${internal.port}/`, { allowCidrs: ['127.0.0.2/32'], timeoutMs: 2000, maxBytes: 100_000, resolve })).rejects.toThrow(/loopback/);
    expect(internal.hits).toEqual([]);
  });
});

describe('canonical URLs', () => {
  it('normalises scheme, host, port, fragment, tracking parameters, parameter order and trailing slashes', () => {
    expect(canonicalUrl('HTTP://Example.ORG:80/a/b/?utm_source=x&b=2&a=1#frag')).toBe('http://example.org/a/b?a=1&b=2');
    expect(canonicalUrl('https://example.org:443/')).toBe('https://example.org/');
    expect(canonicalUrl('https://u:p@example.org/x?fbclid=1')).toBe('https://example.org/x');
  });

  it('uses rel=canonical only on the same site', () => {
    expect(pageCanonicalUrl('https://www.example.org/print/1', 'https://example.org/post/1')).toBe('https://example.org/post/1');
    expect(pageCanonicalUrl('https://example.org/print/1', 'https://other.org/post/1')).toBe('https://example.org/print/1');
    expect(pageCanonicalUrl('https://example.org/print/1', 'javascript:alert(1)')).toBe('https://example.org/print/1');
  });
});
