// Dev mode (the embedded identity provider: anyone signs in as any e-mail) only on this machine: the
// configuration refuses it for a public BASE_URL unless ALLOW_DEV_IDP=true says so, and `npm start` stops;
// the server listens on loopback unless HOST says otherwise, and sign-in answers only this machine.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/lib/config.ts';
import { startServer } from '../../../api/server.ts';
import { asTestServer, startTestServer, testDatabaseEnv, type TestServer } from '../../helpers/server.ts';
import { signInThroughIdp } from '../../helpers/browser.ts';
import { fixtureContent } from '../../helpers/content.ts';

describe('dev mode outside this machine', () => {
  it('is refused at config load for a BASE_URL that is not loopback or localhost, naming the variables', () => {
    for (const base of ['https://kb.example.org', 'http://kb.test', 'http://10.0.0.5:4321', 'http://[2001:db8::1]', 'http://localhost.example.org']) {
      expect(() => loadConfig({ BASE_URL: base }), base).toThrow(ConfigError);
      expect(() => loadConfig({ BASE_URL: base }), base).toThrow(/OIDC_ISSUER.*ALLOW_DEV_IDP|ALLOW_DEV_IDP.*OIDC_ISSUER/s);
      expect(() => loadConfig({ BASE_URL: base }), base).toThrow(/BASE_URL/);
      expect(loadConfig({ BASE_URL: base, ALLOW_DEV_IDP: 'true' }).devMode, base).toBe(true);
      expect(loadConfig({ BASE_URL: base, OIDC_ISSUER: 'https://id.example.org', OIDC_CLIENT_ID: 'kb' }).devMode, base).toBe(false);
    }
  });

  it('runs on loopback and localhost origins', () => {
    for (const base of ['http://localhost:4321', 'http://kb.localhost', 'https://a.b.localhost', 'http://127.0.0.1:8080', 'http://127.3.2.1', 'http://[::1]:4321']) {
      expect(loadConfig({ BASE_URL: base }).devMode, base).toBe(true);
    }
    expect(loadConfig({}).devMode).toBe(true); // the default BASE_URL is http://localhost:$PORT
  });

  it('stops `npm start` with the message', () => {
    // Vitest's own BASE_URL=/ must not leak in, nor settings of the shell that runs the tests.
    const { BASE_URL: _vite, ALLOW_DEV_IDP: _allow, OIDC_ISSUER: _issuer, ...env } = process.env;
    const r = spawnSync(process.execPath, ['scripts/start.ts'], { env: { ...env, CONTENT_DIR: fixtureContent(), BASE_URL: 'https://kb.example.org', PORT: '0' }, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/ALLOW_DEV_IDP/);
    expect(r.stderr).toMatch(/OIDC_ISSUER/);
  });
});

// Issue 39, item 3: HOST defaulted to 0.0.0.0, so in dev mode anyone on the same network signed in as anyone
// through the machine's LAN address, whatever BASE_URL said.
describe('dev mode on the network', () => {
  it('listens on loopback unless HOST is set, and says so at start', async () => {
    expect(loadConfig({})).toMatchObject({ host: '127.0.0.1', hostExplicit: false });
    expect(loadConfig({ HOST: '0.0.0.0' })).toMatchObject({ host: '0.0.0.0', hostExplicit: true });
    expect(loadConfig({ OIDC_ISSUER: 'https://id.example.org', OIDC_CLIENT_ID: 'kb' }).host).toBe('0.0.0.0');

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-test-data-'));
    const logged: string[] = [];
    const config = loadConfig({ CONTENT_DIR: fixtureContent(), DIST_DIR: path.join(dataDir, 'no-dist'), DATA_DIR: dataDir, PORT: '0', ...(await testDatabaseEnv()) });
    const srv = asTestServer(await startServer(config, { log: (m) => logged.push(m) }), dataDir, dataDir);
    try {
      expect((srv.server.address() as AddressInfo).address).toBe('127.0.0.1');
      expect(logged.join('\n')).toMatch(/dev mode: listening on 127\.0\.0\.1 only.*set HOST/);
    } finally {
      await srv.stop();
    }
  });

  it('refuses sign-in over a connection from another machine unless ALLOW_DEV_IDP=true; this machine signs in', async () => {
    const lan = await startTestServer({ ownOrigin: true, env: { ALLOW_DEV_IDP: 'false', HOST: '0.0.0.0' } });
    const open = await startTestServer({ ownOrigin: true, env: { ALLOW_DEV_IDP: 'true', HOST: '0.0.0.0' } });
    try {
      const fromLan = peerAs(lan);
      const fromLanOpen = peerAs(open);
      const refused = ['/api/auth/idp/login?next=/account', '/api/auth/idp/callback?state=x&code=y', '/idp/.well-known/openid-configuration', '/idp/auth?client_id=kb-web&response_type=code&scope=openid'];
      for (const peer of ['192.0.2.50', '::ffff:192.0.2.50', 'fd00::50']) {
        for (const p of refused) {
          const res = await fromLan(peer, 'GET', p);
          expect(res.status, `${peer} ${p}`).toBe(403);
          expect(res.body, `${peer} ${p}`).toContain('ALLOW_DEV_IDP');
        }
        expect((await fromLan(peer, 'POST', '/idp/interaction/abc/login', 'email=admin%40example.com')).status, peer).toBe(403);
        // With ALLOW_DEV_IDP=true the same requests are answered.
        expect((await fromLanOpen(peer, 'GET', '/api/auth/idp/login?next=/account')).status, peer).toBe(302);
        expect((await fromLanOpen(peer, 'GET', '/idp/.well-known/openid-configuration')).status, peer).toBe(200);
      }
      // From this machine (IPv4, IPv6 and IPv4-mapped loopback) sign-in starts; the whole flow goes through.
      for (const peer of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) expect((await fromLan(peer, 'GET', '/api/auth/idp/login')).status, peer).toBe(302);
      const { final } = await signInThroughIdp(lan.url, 'local@example.org');
      expect(final.status).toBe(302);
      expect(final.headers.getSetCookie().some((c) => c.startsWith('kb_session='))).toBe(true);
    } finally {
      await lan.stop();
      await open.stop();
    }
  });
});

/**
 * One request on a fresh connection that the server sees as coming from `peer`. This machine may have no
 * other interface to connect from: the server's connection listener is told the peer's address instead,
 * before the HTTP server reads the request from it.
 */
function peerAs(srv: TestServer): (peer: string, method: string, p: string, form?: string) => Promise<{ status: number; body: string }> {
  let pretend: string | null = null;
  srv.server.prependListener('connection', (socket: net.Socket) => {
    // The next connection after a call below is the call's own (the calls run one at a time).
    if (pretend) Object.defineProperty(socket, 'remoteAddress', { value: pretend, configurable: true });
    pretend = null;
  });
  return (peer, method, p, form) =>
    new Promise((resolve, reject) => {
      pretend = peer;
      const req = http.request(`${srv.url}${p}`, { method, agent: false, headers: { Connection: 'close', ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end(form);
    });
}
