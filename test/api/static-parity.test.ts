// One read model: every prerendered file equals, byte for byte, what the dynamic route answers for the
// same read (a query string sends a request to the dynamic routes).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { urlPathForDistFile, contentTypeForFile } from '../../src/lib/representation.ts';
import { startTestServer, walk, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
const clientDir = path.join(inject('sampleDist'), 'client');
const files = walk(clientDir).filter((f) => !f.startsWith('_astro/'));

beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.stop());

describe('prerendered files and their dynamic twins', () => {
  it('prerenders every kind of read', () => {
    const urls = new Set(files.map(urlPathForDistFile));
    for (const p of [
      '/api', '/api/latest', '/api/brief', '/api/skill.md', '/api/skills', '/api/config', '/api/health',
      '/api/videos', '/api/channels', '/api/essays', '/api/digests', '/api/personas', '/api/knowledge', '/api/tags',
      '/api/graph', '/api/graph/data', '/llms.txt', '/SKILL.md', '/.well-known/agent.json', '/.well-known/mcp.json',
      '/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource', '/agent-login.sh',
    ]) {
      expect(urls.has(p), p).toBe(true);
    }
    expect(files.filter((f) => /^api\/videos\/[^/]+\/index\.json$/.test(f)).length).toBeGreaterThanOrEqual(60);
    expect(files.filter((f) => /^api\/personas\/modelfiles\/.+\/index\.json$/.test(f)).length).toBeGreaterThanOrEqual(16);
  });

  it('serves every file at its path and the dynamic route answers the same bytes', async () => {
    expect(files.length).toBeGreaterThan(200);
    const mismatches: string[] = [];
    for (const rel of files) {
      const url = urlPathForDistFile(rel);
      const expected = fs.readFileSync(path.join(clientDir, rel));
      const type = contentTypeForFile(rel);
      // /api has two representations; ask for the one this file is.
      const headers = { Accept: type.startsWith('application/json') ? 'application/json' : '*/*' };
      const fromFile = await srv.get(url, { headers });
      const dynamic = await srv.get(`${url}?parity=1`, { headers });
      for (const [how, res] of [['static', fromFile], ['dynamic', dynamic]] as const) {
        const body = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200 || !body.equals(expected) || res.headers.get('content-type') !== type) {
          mismatches.push(`${how} ${url} (${rel}): ${res.status} ${res.headers.get('content-type')}`);
        }
      }
      expect(dynamic.headers.get('etag'), url).toBe(fromFile.headers.get('etag'));
    }
    expect(mismatches).toEqual([]);
  });
});
