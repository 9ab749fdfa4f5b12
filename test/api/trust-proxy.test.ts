// Limits per client address behind a reverse proxy (issue 39, item 6): every limit keyed on the socket's
// address, so behind a proxy the whole world shared one bucket. TRUST_PROXY (a hop count, or the proxies'
// addresses and CIDRs) makes the client's address the one the trusted proxies name in X-Forwarded-For or
// Forwarded, read from the right; without it those headers change nothing. The tests' requests come from
// 127.0.0.1, which plays the proxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ConfigError, loadConfig } from '../../src/lib/config.ts';
import { forwardedClientAddress, forwardedFor } from '../../api/rate-limit/client-address.ts';

let n = 0;
/** A search that misses the result cache (a new query each time), so it counts against the limit. */
const search = (srv: TestServer, headers: Record<string, string> = {}) => srv.get(`/api/search?q=agents${++n}`, { headers });
const signIn = (srv: TestServer, headers: Record<string, string> = {}) => srv.get('/api/auth/idp/login', { headers, redirect: 'manual' });

const limits = { SEARCH_RATE_LIMIT_PER_MINUTE: '2', LOGIN_RATE_LIMIT_PER_MINUTE: '2' };

describe('without TRUST_PROXY', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ ownOrigin: true, env: limits });
  });
  afterAll(() => srv.stop());

  it('keys on the connection: forwarded headers a client sends change nothing', async () => {
    expect((await search(srv, { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(200);
    expect((await search(srv, { Forwarded: 'for=203.0.113.2' })).status).toBe(200);
    const third = await search(srv, { 'X-Forwarded-For': '203.0.113.3', Forwarded: 'for=203.0.113.4' });
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);

    expect((await signIn(srv, { 'X-Forwarded-For': '198.51.100.1' })).status).toBe(302);
    expect((await signIn(srv, { 'X-Forwarded-For': '198.51.100.2' })).status).toBe(302);
    expect((await signIn(srv, { 'X-Forwarded-For': '198.51.100.3' })).status).toBe(429);
  });
});

describe('TRUST_PROXY with the proxy\'s address', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ ownOrigin: true, env: { ...limits, TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' } });
  });
  afterAll(() => srv.stop());

  it('gives two clients behind the proxy a bucket each, whatever a client puts in front of its address', async () => {
    const a = { 'X-Forwarded-For': '203.0.113.1' };
    // The proxy appends the address it saw to what the client sent: a forged entry on the left is not read.
    const aForging = { 'X-Forwarded-For': '192.0.2.99, 203.0.113.1' };
    const b = { 'X-Forwarded-For': '203.0.113.2' };
    expect((await search(srv, a)).status).toBe(200);
    expect((await search(srv, aForging)).status).toBe(200);
    expect((await search(srv, a)).status).toBe(429);
    expect((await search(srv, aForging)).status).toBe(429);
    expect((await search(srv, b)).status).toBe(200);
    // The proxy itself, with no forwarded header, is one more client.
    expect((await search(srv)).status).toBe(200);

    expect((await signIn(srv, a)).status).toBe(302);
    expect((await signIn(srv, a)).status).toBe(302);
    expect((await signIn(srv, a)).status).toBe(429);
    expect((await signIn(srv, b)).status).toBe(302);
  });

  it('walks through every trusted hop, and reads Forwarded when there is no X-Forwarded-For', async () => {
    // Two proxies of ours (10.1.2.3 in front of 127.0.0.1): the client is the hop before them.
    const c = { 'X-Forwarded-For': '203.0.113.7, 10.1.2.3' };
    expect((await search(srv, c)).status).toBe(200);
    expect((await search(srv, { 'X-Forwarded-For': '203.0.113.7' })).status).toBe(200);
    expect((await search(srv, c)).status).toBe(429);
    const v6 = { Forwarded: 'for="[2001:db8::17]:4711";proto=https' };
    expect((await search(srv, v6)).status).toBe(200);
    expect((await search(srv, { Forwarded: 'for=192.0.2.1, for="[2001:db8::17]"' })).status).toBe(200);
    expect((await search(srv, v6)).status).toBe(429);
    expect((await search(srv, { Forwarded: 'for=192.0.2.60' })).status).toBe(200);
  });
});

describe('TRUST_PROXY that does not name the peer', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ ownOrigin: true, env: { ...limits, TRUST_PROXY: '10.0.0.0/8' } });
  });
  afterAll(() => srv.stop());

  it('reads no header from a connection that is not a trusted proxy', async () => {
    expect((await search(srv, { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(200);
    expect((await search(srv, { 'X-Forwarded-For': '203.0.113.2' })).status).toBe(200);
    expect((await search(srv, { 'X-Forwarded-For': '203.0.113.3' })).status).toBe(429);
  });
});

describe('TRUST_PROXY as a hop count', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ ownOrigin: true, env: { ...limits, TRUST_PROXY: '1' } });
  });
  afterAll(() => srv.stop());

  it('takes the address the one proxy appended, never one further left', async () => {
    expect((await search(srv, { 'X-Forwarded-For': '192.0.2.1, 203.0.113.1' })).status).toBe(200);
    expect((await search(srv, { 'X-Forwarded-For': '192.0.2.2, 203.0.113.1' })).status).toBe(200);
    expect((await search(srv, { 'X-Forwarded-For': '192.0.2.3, 203.0.113.1' })).status).toBe(429);
    expect((await search(srv, { 'X-Forwarded-For': '203.0.113.2' })).status).toBe(200);
  });
});

describe('the address a request came from', () => {
  it('stops at a malformed or obfuscated hop, keeping the last address a trusted hop wrote', () => {
    const trustAll = () => true;
    expect(forwardedClientAddress('::ffff:127.0.0.1', { 'x-forwarded-for': 'not-an-ip, 203.0.113.9' }, trustAll)).toBe('203.0.113.9');
    expect(forwardedClientAddress('127.0.0.1', { forwarded: 'for=unknown' }, trustAll)).toBe('127.0.0.1');
    expect(forwardedClientAddress('127.0.0.1', { forwarded: 'for=_hidden, for=203.0.113.5:8080' }, trustAll)).toBe('203.0.113.5');
    expect(forwardedClientAddress('127.0.0.1', { 'x-forwarded-for': '[2001:db8::1]:443' }, trustAll)).toBe('2001:db8::1');
    expect(forwardedClientAddress('127.0.0.1', { 'x-forwarded-for': '::ffff:198.51.100.4' }, trustAll)).toBe('198.51.100.4');
    expect(forwardedClientAddress(undefined, { 'x-forwarded-for': '203.0.113.9' }, trustAll)).toBe('unknown');
    // RFC 7239: quoted values may hold commas and semicolons; an element without for= names no one.
    expect(forwardedFor('for="_a,b;c";proto=https, by=10.0.0.1, For = 192.0.2.1 ;host=x')).toEqual(['_a,b;c', 'unknown', '192.0.2.1']);
  });

  it('is configured as off, a hop count or addresses and CIDRs; anything else stops the start', () => {
    const env = { BASE_URL: 'http://localhost:4321' };
    expect(loadConfig(env).trustProxy).toBeNull();
    expect(loadConfig({ ...env, TRUST_PROXY: 'false' }).trustProxy).toBeNull();
    expect(loadConfig({ ...env, TRUST_PROXY: '0' }).trustProxy).toBeNull();
    expect(loadConfig({ ...env, TRUST_PROXY: '2' }).trustProxy).toEqual({ hops: 2 });
    expect(loadConfig({ ...env, TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8' }).trustProxy).toEqual({ proxies: ['127.0.0.1', '10.0.0.0/8', 'fd00::/8'] });
    for (const bad of ['true', 'proxy.internal', '10.0.0.0/33', '10.1', '21']) {
      expect(() => loadConfig({ ...env, TRUST_PROXY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ ...env, TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });
});
