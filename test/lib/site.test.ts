import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readPipelineSummary, siteContext } from '../../src/lib/site.ts';
import { loadConfig, ConfigError } from '../../src/lib/config.ts';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-site-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('pipeline summary for /api/latest freshness', () => {
  it('says never when no job has run', () => {
    expect(readPipelineSummary(tmp())).toEqual({ last_run_at: null, last_status: 'never' });
  });

  it('takes the most recent finished job run', () => {
    const d = tmp();
    fs.mkdirSync(path.join(d, 'pipeline'));
    fs.writeFileSync(
      path.join(d, 'pipeline', 'status.json'),
      JSON.stringify({
        jobs: {
          'ingest-videos': { started_at: '2026-11-21T01:00:00Z', finished_at: '2026-11-21T01:02:00Z', status: 'ok' },
          'build-digest': { started_at: '2026-11-21T05:00:00Z', finished_at: '2026-11-21T05:01:00Z', status: 'failed' },
        },
      }),
    );
    expect(readPipelineSummary(d)).toEqual({ last_run_at: '2026-11-21T05:01:00Z', last_status: 'failed' });
  });

  it('does not trust a malformed status file', () => {
    const d = tmp();
    fs.mkdirSync(path.join(d, 'pipeline'));
    fs.writeFileSync(path.join(d, 'pipeline', 'status.json'), '{"jobs": 5}');
    expect(readPipelineSummary(d).last_status).toBe('unknown');
  });
});

describe('configuration', () => {
  it('derives BASE_URL from PORT and dev mode from the absence of an OIDC issuer', () => {
    const c = loadConfig({ PORT: '8080' }, '/srv/kb');
    expect(c.baseUrl).toBe('http://localhost:8080');
    expect(c.devMode).toBe(true);
    expect(c.dataDir).toBe('/srv/kb/var');
    const prod = loadConfig({ BASE_URL: 'https://kb.example.org/', OIDC_ISSUER: 'https://id.example.org', OIDC_CLIENT_ID: 'kb' });
    expect(prod.baseUrl).toBe('https://kb.example.org');
    expect(prod.devMode).toBe(false);
    expect(prod.secureCookies).toBe(true);
    expect(siteContext(prod, new Date('2026-11-21T06:00:00.123Z')).generatedAt).toBe('2026-11-21T06:00:00Z');
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ KEY_PREFIX: 'Bad-Prefix' })).toThrow(/KEY_PREFIX/);
    expect(() => loadConfig({ OIDC_ISSUER: 'https://id.example.org' })).toThrow(/OIDC_CLIENT_ID/);
  });
});
