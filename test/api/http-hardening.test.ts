// HTTP hardening from the security review (issue 13, items 11, 12, 14 and its notes): deeply nested JSON
// is a 422 and no stack trace, unexpected errors are logged once, DATA_DIR is private, every response says
// nosniff, https deployments send HSTS, pages are not framed, personalised pages are not kept by shared
// caches, and secrets in logged URLs are redacted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OpenAPIHono } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sessionFor } from '../helpers/auth.ts';
import { errorHandler } from '../../api/errors/index.ts';
import { redactUrl } from '../../api/server.ts';
import { MAX_JSON_DEPTH } from '../../api/validation/route.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.stop());

const postJson = (body: string) => srv.get('/api/oauth/device', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });

describe('deeply nested JSON bodies', () => {
  it('are a 422 json_invalid, with nothing echoed and nothing logged', async () => {
    const logged = vi.spyOn(console, 'error');
    try {
      const deep = 150_000; // the object form takes 6 bytes a level: under the 1 MB body limit
      for (const body of ['['.repeat(deep) + ']'.repeat(deep), `{"client_name":${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}}`, '['.repeat(1_000_000 - 1)]) {
        const res = await postJson(body);
        expect(res.status).toBe(422);
        const detail = (await res.json()).detail;
        expect(detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body', 0], input: {} });
      }
      expect(logged.mock.calls.map((c) => String(c[0])).filter((m) => /unhandled error/.test(m))).toEqual([]);
    } finally {
      logged.mockRestore();
    }
  });

  it(`accept nesting up to ${MAX_JSON_DEPTH} levels (then the schema decides)`, async () => {
    const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const ok = await postJson(`{"client_name":${nested(MAX_JSON_DEPTH - 1)},"client_host":"box"}`);
    expect(ok.status).toBe(422);
    expect((await ok.json()).detail[0]).toMatchObject({ type: 'string_type', loc: ['body', 'client_name'] });
    const fine = await postJson('{"client_name":"agent","client_host":"box"}');
    expect(fine.status).toBe(200);
  });
});

describe('unexpected errors', () => {
  it('are logged with their stack once, then counted, and answered 500 without internals', async () => {
    const lines: string[] = [];
    const app = new OpenAPIHono();
    app.onError(errorHandler((m) => lines.push(m)));
    app.get('/boom', () => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    for (let i = 0; i < 5; i++) {
      const res = await app.request('/boom');
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ detail: 'Internal server error' });
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^unhandled error on GET \/boom: RangeError: Maximum call stack size exceeded\n\s+at /);
  });
});

describe('DATA_DIR', () => {
  it('is made private (0700) even when it existed open to others, and the database is 0600', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-open-data-'));
    fs.chmodSync(dir, 0o755);
    const s = await startTestServer({ env: { DATA_DIR: dir } });
    try {
      const me = await sessionFor(s, 'perm@example.org');
      const res = await s.get('/api/comments', { method: 'POST', headers: { ...me.headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ entity_type: 'essay', entity_id: 'x', body: 'hello' }) });
      expect(res.status).toBeLessThan(500);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      for (const f of ['kb.sqlite', 'kb.sqlite-wal']) expect(fs.statSync(path.join(dir, f)).mode & 0o077, f).toBe(0);
    } finally {
      await s.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('response headers', () => {
  it('say nosniff on static files, dynamic JSON, errors and OAuth answers', async () => {
    for (const p of ['/api/videos', '/api/videos?limit=1', '/api/nope', '/api/health', '/.well-known/oauth-authorization-server']) {
      expect((await srv.get(p)).headers.get('x-content-type-options'), p).toBe('nosniff');
    }
    const token = await srv.get('/api/oauth/v2/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=nope' });
    expect(token.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('carry Strict-Transport-Security only when BASE_URL is https', async () => {
    expect((await srv.get('/api/health')).headers.get('strict-transport-security')).toBeNull();
    const https = await startTestServer({ env: { BASE_URL: 'https://kb.example.org' } });
    try {
      for (const p of ['/', '/api/videos', '/api/videos?limit=1', '/api/nope']) {
        expect((await https.get(p)).headers.get('strict-transport-security'), p).toBe('max-age=31536000');
      }
    } finally {
      await https.stop();
    }
  });

  it('give prerendered pages and the graph a policy: own scripts and styles, never framed', async () => {
    for (const p of ['/', '/api/graph', '/api/graph?x=1']) {
      const res = await srv.get(p);
      expect(res.headers.get('x-frame-options'), p).toBe('DENY');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp, p).toMatch(/frame-ancestors 'none'/);
      expect(csp, p).toMatch(/script-src 'self'/);
      expect(csp, p).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    }
    // JSON is no page: no policy needed.
    expect((await srv.get('/api/videos')).headers.get('content-security-policy')).toBeNull();
  });

  it('keep the signed-in search page out of shared caches', async () => {
    const me = await sessionFor(srv, 'searcher@example.org');
    const res = await srv.get('/search?q=agents', { headers: me.headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/\bprivate\b/);
    expect(res.headers.get('vary')).toMatch(/Cookie/);
  });
});

describe('the request log', () => {
  it('redacts codes, tokens and keys in URLs', () => {
    const logged = redactUrl('/api/device/lookup?user_code=BCDF-GHJK&x=1&device_code=abc&token=t&api_key=k&state=s&code=c');
    expect(logged).toBe('/api/device/lookup?user_code=[redacted]&x=1&device_code=[redacted]&token=[redacted]&api_key=[redacted]&state=[redacted]&code=[redacted]');
  });
});
