// Dev mode (the embedded identity provider: anyone signs in as any e-mail) only on this machine: the
// configuration refuses it for a public BASE_URL unless ALLOW_DEV_IDP=true says so, and `npm start` stops.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/lib/config.ts';

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
    const r = spawnSync(process.execPath, ['scripts/start.ts'], { env: { ...env, BASE_URL: 'https://kb.example.org', PORT: '0' }, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/ALLOW_DEV_IDP/);
    expect(r.stderr).toMatch(/OIDC_ISSUER/);
  });
});
