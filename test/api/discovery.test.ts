// Discovery documents, the agent reference and the OpenAPI document.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.stop());

const BASE = 'http://kb.test';

async function get(p: string, type: string, accept = '*/*') {
  const res = await srv.get(p, { headers: { Accept: accept } });
  expect(res.status, p).toBe(200);
  expect(res.headers.get('content-type'), p).toBe(type);
  return res;
}

describe('discovery documents', () => {
  it('/llms.txt is an llms.txt index with absolute links', async () => {
    const text = await (await get('/llms.txt', 'text/plain; charset=utf-8')).text();
    expect(text).toMatch(/^# .+\n\n> .+/);
    expect(text).toContain(`(${BASE}/api/latest)`);
    expect(text).toContain(`(${BASE}/SKILL.md)`);
  });

  it('/SKILL.md and /api/skill.md are the same skill document', async () => {
    const a = await (await get('/SKILL.md', 'text/markdown; charset=utf-8')).text();
    const b = await (await get('/api/skill.md', 'text/markdown; charset=utf-8')).text();
    expect(a).toBe(b);
    expect(a).toMatch(/^---\nname: [a-z-]+\ndescription: .+\n---\n/);
  });

  it('/api gives prose to agents and a JSON summary to browsers', async () => {
    const prose = await get('/api', 'text/markdown; charset=utf-8');
    // Both representations of one path (and, being over 1 KB, its compressed variants): caches key on both.
    expect(prose.headers.get('vary')).toBe('Accept, Accept-Encoding');
    const reference = await prose.text();
    expect(reference).toMatch(/^# .*API reference/);
    // Where a transparency-log client starts, and how to verify without trusting the server.
    expect(reference).toContain('/api/audit/checkpoint`');
    expect(reference).toContain('--key <verifier key> --state <file>');
    const browser = await get('/api', 'application/json; charset=utf-8', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect((await browser.json()).openapi).toBe('/openapi.json');
    const client = await get('/api', 'application/json; charset=utf-8', 'application/json');
    expect((await client.json()).counts.videos).toBeGreaterThanOrEqual(60);
  });

  it('/.well-known/oauth-authorization-server is RFC 8414 metadata naming the spec endpoints', async () => {
    const m = await (await get('/.well-known/oauth-authorization-server', 'application/json; charset=utf-8')).json();
    expect(m).toMatchObject({
      issuer: BASE,
      authorization_endpoint: `${BASE}/api/oauth/v2/authorize`,
      token_endpoint: `${BASE}/api/oauth/v2/token`,
      registration_endpoint: `${BASE}/api/oauth/v2/register`,
      revocation_endpoint: `${BASE}/api/oauth/v2/revoke`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(m.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(m.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['none', 'client_secret_basic']));
  });

  it('/.well-known/oauth-protected-resource is RFC 9728 metadata for /mcp', async () => {
    const m = await (await get('/.well-known/oauth-protected-resource', 'application/json; charset=utf-8')).json();
    expect(m).toMatchObject({ resource: `${BASE}/mcp`, authorization_servers: [BASE], bearer_methods_supported: ['header'] });
  });

  it('/.well-known/agent.json and /.well-known/mcp.json point at the live endpoints', async () => {
    const agent = await (await get('/.well-known/agent.json', 'application/json; charset=utf-8')).json();
    expect(agent.endpoints).toMatchObject({ briefing: `${BASE}/api/latest`, mcp: `${BASE}/mcp`, openapi: `${BASE}/openapi.json` });
    expect(agent.skills.length).toBeGreaterThanOrEqual(3);
    const mcp = await (await get('/.well-known/mcp.json', 'application/json; charset=utf-8')).json();
    expect(mcp).toMatchObject({ endpoint: `${BASE}/mcp`, transport: 'streamable-http' });
  });

  it('/agent-login.sh is a POSIX sh device-flow client for this server (KB_SERVER overrides it)', async () => {
    const script = await (await get('/agent-login.sh', 'text/x-shellscript; charset=utf-8')).text();
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    expect(script).toContain(`DEFAULT_SERVER='${BASE}'`);
    expect(script).toContain('/api/oauth/device');
    const code = script.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n');
    expect(code).not.toMatch(/\bjq\b|\[\[ |\bfunction\b|\blocal\b|\bwget\b/); // curl and POSIX sh only
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-sh-'));
    try {
      const file = path.join(dir, 'agent-login.sh');
      fs.writeFileSync(file, script);
      execFileSync('sh', ['-n', file]); // parses as POSIX sh
      // The whole sign-in is run against a live server in test/api/device/agent-login.test.ts; here only
      // the override and the failure path: an unreachable server is a clear message and exit status 1.
      const run = spawnSync('sh', [file], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: os.tmpdir(), KB_SERVER: 'http://127.0.0.1:1' } });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('agent-login: cannot reach http://127.0.0.1:1');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('/api/latest and its alias /api/brief are the same briefing', async () => {
    const a = await (await get('/api/latest', 'application/json; charset=utf-8')).json();
    const b = await (await get('/api/brief', 'application/json; charset=utf-8')).json();
    expect(a).toEqual(b);
    expect(a.generated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(a.latest_videos[0].url).toMatch(/^\/api\/videos\/[^?]+\?agent=true$/);
    expect(a.latest_digest.content.match(/^## [1-5]\. /gm)).toHaveLength(5);
  });

  it('/api/config says dev_mode while no external identity provider is configured', async () => {
    const cfg = await (await get('/api/config', 'application/json; charset=utf-8')).json();
    expect(cfg).toMatchObject({ dev_mode: true, key_prefix: 'kb_', base_url: BASE });
  });

  it('/api/skills lists skills and /api/skills/{name} serves each as Markdown', async () => {
    const list = await (await get('/api/skills', 'application/json; charset=utf-8')).json();
    expect(list.total).toBeGreaterThanOrEqual(3);
    for (const s of list.items) {
      const md = await (await get(s.url, 'text/markdown; charset=utf-8')).text();
      expect(md).toContain(`name: ${s.name}`);
    }
  });
});

describe('/openapi.json', () => {
  it('is OpenAPI 3.1.0 with info.version 3.0 and documents every read with its parameters', async () => {
    const doc = await (await get('/openapi.json', 'application/json; charset=utf-8')).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('3.0');
    const paths = Object.keys(doc.paths);
    for (const p of [
      '/api/videos', '/api/videos/{video_id}', '/api/channels', '/api/channels/{channel_id}', '/api/essays', '/api/essays/{slug}',
      '/api/essays/{slug}/thumbnail', '/api/tags', '/api/digests', '/api/digests/{date}', '/api/digests/{date}/thumbnail',
      '/api/personas', '/api/personas/{persona_id}', '/api/personas/modelfiles/{persona_id}/{mode}/{lang}', '/api/knowledge',
      '/api/knowledge/{slug}', '/api/graph', '/api/graph/data', '/api', '/api/latest', '/api/brief', '/api/skill.md', '/api/skills',
      '/api/skills/{name}', '/api/config', '/api/health', '/llms.txt', '/SKILL.md', '/.well-known/agent.json',
      '/.well-known/mcp.json', '/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource', '/agent-login.sh',
    ]) {
      expect(paths, p).toContain(p);
    }
    const videoParams = doc.paths['/api/videos'].get.parameters;
    const limit = videoParams.find((p: { name: string }) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } });
    expect(videoParams.map((p: { name: string }) => p.name).sort()).toEqual(['agent', 'channel', 'highlight', 'limit', 'offset', 'since', 'tag']);
    expect(doc.paths['/api/videos'].get.responses['422'].content['application/json'].schema.$ref).toBe('#/components/schemas/HTTPValidationError');
    expect(doc.components.schemas.HTTPValidationError).toBeDefined();
  });
});
