// Issue 15, item 4: /openapi.json is complete enough for generic tooling. Every operation has a catalogue
// entry (api/openapi/catalogue.ts) and with it a unique operationId, a description and its security; the
// security schemes and tags are declared; routes that need a user document 401 before 422; and Redocly's
// `recommended` ruleset finds no error, nor an example that does not fit its schema (issue 42, item 11).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { CATALOGUE, NEEDS_USER, TAGS } from '../../../api/openapi/catalogue.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Op {
  key: string;
  method: string;
  path: string;
  op: {
    operationId?: string;
    description?: string;
    tags?: string[];
    security?: Record<string, string[]>[];
    parameters?: unknown[];
    requestBody?: unknown;
    responses: Record<string, { description: string; headers?: Record<string, unknown> }>;
  };
}

let srv: TestServer;
let doc: {
  info: { description: string };
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, Op['op']>>;
  components: { securitySchemes: Record<string, Record<string, unknown>> };
};
let ops: Op[];

beforeAll(async () => {
  srv = await startTestServer();
  const res = await srv.get('/openapi.json');
  expect(res.status).toBe(200);
  doc = await res.json();
  ops = Object.entries(doc.paths).flatMap(([p, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ key: `${m.toUpperCase()} ${p}`, method: m, path: p, op: item[m] })),
  );
});
afterAll(async () => {
  await srv?.stop();
});

describe('/openapi.json for generic tooling', () => {
  it('every operation has an entry in api/openapi/catalogue.ts, and every entry an operation', () => {
    const missing = ops.filter((o) => !CATALOGUE[o.key]).map((o) => o.key);
    expect(missing, `operations without an entry in api/openapi/catalogue.ts (add operationId, access and a description): ${missing.join(', ')}`).toEqual([]);
    const documented = new Set(ops.map((o) => o.key));
    const stale = Object.keys(CATALOGUE).filter((k) => !documented.has(k));
    expect(stale, `catalogue entries for operations /openapi.json no longer has: ${stale.join(', ')}`).toEqual([]);
  });

  it('operationIds are present, unique and usable as function names', () => {
    const seen = new Map<string, string>();
    for (const o of ops) {
      expect(o.op.operationId, o.key).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(seen.get(o.op.operationId!), `${o.key} reuses the operationId of ${seen.get(o.op.operationId!)}`).toBeUndefined();
      seen.set(o.op.operationId!, o.key);
    }
  });

  it('every operation has a description, and every tag it uses is declared with one', () => {
    const declared = new Map(doc.tags.map((t) => [t.name, t.description]));
    for (const o of ops) {
      expect((o.op.description ?? '').length, `${o.key} has no description`).toBeGreaterThan(20);
      for (const t of o.op.tags ?? []) expect(declared.get(t), `${o.key}: tag ${t} is not declared in TAGS (api/openapi/catalogue.ts)`).toBeTruthy();
    }
    expect(TAGS.every((t) => t.description.length > 10)).toBe(true);
  });

  it('declares the bearer API key, the session cookie and OAuth 2.1 with PKCE and its metadata URL', () => {
    const s = doc.components.securitySchemes;
    expect(s.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(s.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'kb_session' });
    expect(s.oauth2).toMatchObject({
      type: 'oauth2',
      flows: {
        authorizationCode: {
          authorizationUrl: 'http://kb.test/api/oauth/v2/authorize',
          tokenUrl: 'http://kb.test/api/oauth/v2/token',
          scopes: { read: expect.any(String), write: expect.any(String), moderate: expect.any(String), admin: expect.any(String) },
        },
      },
    });
    expect(String(s.oauth2.description)).toContain('http://kb.test/.well-known/oauth-authorization-server');
    expect(String(s.oauth2.description)).toContain('PKCE');
  });

  it('every operation states its security: empty for anonymous ones, the schemes for the rest', () => {
    const schemes = new Set(Object.keys(doc.components.securitySchemes));
    for (const o of ops) {
      expect(Array.isArray(o.op.security), `${o.key} has no security`).toBe(true);
      for (const req of o.op.security!) for (const name of Object.keys(req)) expect(schemes.has(name), `${o.key}: unknown scheme ${name}`).toBe(true);
      const access = CATALOGUE[o.key].access;
      if (access === 'public') expect(o.op.security, o.key).toEqual([]);
      if (NEEDS_USER.has(access)) expect(o.op.security!.some((r) => Object.keys(r).length === 0), `${o.key} needs a user: no anonymous alternative`).toBe(false);
    }
    expect(doc.paths['/api/comments'].post.security).toEqual([{ bearer: [] }, { session: [] }, { oauth2: ['write'] }]);
    expect(doc.paths['/api/videos'].get.security).toEqual([]);
    expect(doc.paths['/mcp'].post.security).toEqual([{}, { oauth2: ['read'] }, { oauth2: ['read', 'write'] }]);
    expect(doc.paths['/api/chat/completions'].post.security).toEqual([{ chatToken: [] }, { bearer: [] }, { session: [] }, { oauth2: ['read'] }]);
  });

  it('routes that need a user document 401 with WWW-Authenticate, before 422', () => {
    expect(doc.info.description).toContain('401 comes before any 422');
    for (const o of ops.filter((x) => NEEDS_USER.has(CATALOGUE[x.key].access))) {
      const r401 = o.op.responses['401'];
      expect(r401, `${o.key} documents no 401`).toBeDefined();
      expect(r401.description, o.key).toContain('401 comes before any 422');
      expect(r401.headers?.['WWW-Authenticate'], o.key).toBeDefined();
    }
  });

  it('operations with parameters or a JSON body validated by zod document 422 (the spec\'s examples among them)', () => {
    for (const key of ['GET /api/users/{user_id}', 'GET /api/posts/{post_id}', 'GET /api/posts/{post_id}/essay', 'GET /api/skills/{name}', 'GET /api/essays/{slug}/thumbnail']) {
      const o = ops.find((x) => x.key === key)!;
      expect(o.op.responses['422'], key).toBeDefined();
    }
    // The spec's GET /api/posts/{slug} is the URL of PATCH and DELETE /api/posts/{post_id}: one path, whose read
    // says it takes the slug too.
    expect(doc.paths['/api/posts/{slug}']).toBeUndefined();
    const posts = [doc.paths['/api/posts/{post_id}'].get.description, doc.paths['/api/posts/{post_id}'].patch.description];
    for (const d of posts) expect(d).toMatch(/spec/);
    expect(doc.paths['/api/posts/{post_id}'].get.description).toMatch(/slug/);
  });

  it('redocly lint (recommended, with every example checked against its schema) reports no error, and no operation without a 4xx', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      fs.writeFileSync(file, JSON.stringify(doc));
      fs.writeFileSync(
        path.join(dir, 'redocly.yaml'),
        // Another field in an example is allowed, as JSON Schema reads it: an example may show a field a change under way adds.
        'extends:\n  - recommended\nrules:\n  no-invalid-media-type-examples:\n    severity: error\n    allowAdditionalProperties: true\n  no-invalid-parameter-examples: error\n  no-invalid-schema-examples: error\n',
      );
      const cli = path.resolve('node_modules/@redocly/cli/bin/cli.js');
      const run = await promisify(execFile)(process.execPath, [cli, 'lint', '--format', 'json', '--max-problems', '1000', file], {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        maxBuffer: 32 * 1024 * 1024,
      }).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }));
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as { problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
      const errors = report.problems.filter((p) => p.severity === 'error' || p.ruleId === 'operation-4xx-response' || p.ruleId === 'no-ambiguous-paths');
      expect(errors.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
      expect(report.problems.length, 'the run checked the document').toBeGreaterThan(0); // its known warnings: no license, the 302 steps
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
