// Issue 42, item 11: every read of /openapi.json says what it answers, as a user of the document sees it.
// A client generated from the served document with openapi-typescript, used through openapi-fetch by a
// program that reads real fields of every JSON read, type-checks under tsc --strict and runs against the
// server; every real answer of the reads conforms to its documented schema, which declares every field;
// every operation has an example (parameters, body, answer), each valid against its schema; and every
// operation documents a 4xx.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';

const run = promisify(execFile);
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema?: Schema;
}
interface Media {
  schema?: Schema;
  example?: unknown;
}
interface Operation {
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

let srv: TestServer;
let doc: Doc;
const ADMIN = 'admin@example.com';

beforeAll(async () => {
  srv = await startTestServer({ env: { ADMIN_EMAILS: ADMIN } });
  doc = (await (await srv.get('/openapi.json')).json()) as Doc;
});
afterAll(async () => {
  await srv?.stop();
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([p, item]) => METHODS.filter((m) => item[m]).map((m) => ({ key: `${m.toUpperCase()} ${p}`, method: m, path: p, op: item[m] })));

function resolve(schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; i < 20 && typeof s.$ref === 'string'; i++) s = doc.components.schemas[s.$ref.split('/').pop()!] ?? {};
  return s;
}

/** allOf's parts as one object schema: their properties and required fields together. */
function merged(parts: Schema[]): Schema {
  const all = parts.map((p) => resolve(p)).map((p) => (Array.isArray(p.allOf) ? merged(p.allOf as Schema[]) : p));
  const open = all.find((p) => p.additionalProperties !== undefined)?.additionalProperties;
  return {
    type: 'object',
    properties: Object.assign({}, ...all.map((p) => p.properties ?? {})),
    required: all.flatMap((p) => (p.required as string[] | undefined) ?? []),
    ...(open !== undefined ? { additionalProperties: open } : {}),
  };
}

const isType = (t: string, v: unknown) =>
  t === 'null' ? v === null : t === 'array' ? Array.isArray(v) : t === 'object' ? v !== null && typeof v === 'object' && !Array.isArray(v) : t === 'integer' ? Number.isInteger(v) : typeof v === t;

/**
 * Checks a value against a JSON Schema of the document (the part of JSON Schema OpenAPI 3.1 and our schemas
 * use). With `declared`, also that every field of an object is declared: a field the schema does not name
 * is reported unless the schema allows others (additionalProperties), so an answer with a field the document
 * does not show fails. Examples are checked as JSON Schema reads them (another field is allowed), so an
 * example may already show a field a change under way adds.
 */
function violations(schema: Schema | undefined, value: unknown, declared = true, at = '$', out: string[] = []): string[] {
  let s = resolve(schema);
  if (Object.keys(s).every((k) => k === 'description')) return out; // {}: any value
  if (Array.isArray(s.allOf)) s = merged(s.allOf as Schema[]);
  for (const k of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(s[k])) continue;
    const fits = (s[k] as Schema[]).filter((alt) => violations(alt, value, declared, at).length === 0).length;
    if (k === 'oneOf' ? fits !== 1 : fits === 0) out.push(`${at}: fits ${fits} of the ${k} alternatives`);
    return out;
  }
  if ('const' in s && s.const !== value) out.push(`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(s.const)}`);
  if (Array.isArray(s.enum) && !s.enum.includes(value)) out.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`);
  const types = s.type === undefined ? null : ([] as string[]).concat(s.type as string);
  if (types && !types.some((t) => isType(t, value))) {
    out.push(`${at}: ${JSON.stringify(value)?.slice(0, 80)} is not ${types.join(' or ')}`);
    return out;
  }
  if (typeof value === 'string') {
    if (typeof s.maxLength === 'number' && value.length > s.maxLength) out.push(`${at}: longer than ${s.maxLength}`);
    if (typeof s.minLength === 'number' && value.length < s.minLength) out.push(`${at}: shorter than ${s.minLength}`);
    if (s.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) out.push(`${at}: ${value} is not a date`);
    if (typeof s.pattern === 'string') {
      let re: RegExp | null = null;
      try {
        re = new RegExp(s.pattern, 'u');
      } catch {
        // a pattern in another dialect than JavaScript's: not checked here
      }
      if (re && !re.test(value)) out.push(`${at}: ${value} does not match ${s.pattern}`);
    }
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) out.push(`${at}: below ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) out.push(`${at}: above ${s.maximum}`);
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => violations(s.items as Schema | undefined, v, declared, `${at}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    const props = (s.properties ?? {}) as Record<string, Schema>;
    for (const k of (s.required as string[] | undefined) ?? []) if (!(k in value)) out.push(`${at}: no ${k}`);
    for (const [k, v] of Object.entries(value)) {
      if (props[k]) violations(props[k], v, declared, `${at}.${k}`, out);
      else if (s.additionalProperties !== undefined && s.additionalProperties !== false) violations(s.additionalProperties as Schema, v, declared, `${at}.${k}`, out);
      else if (declared || s.additionalProperties === false) out.push(`${at}.${k}: not in the schema`);
    }
  }
  return out;
}

const jsonAnswer = (op: Operation): Media | undefined => op.responses['200']?.content?.['application/json'];

/** The content reads: anonymous GETs that answer JSON, as the document lists them. */
const reads = () =>
  operations().filter(
    ({ method, op }) => method === 'get' && jsonAnswer(op) && (op.security ?? []).every((r) => Object.keys(r).length === 0 || op.security!.some((x) => Object.keys(x).length === 0)) && op.tags?.some((t) => ['content', 'agent', 'discovery'].includes(t)),
  );

/** The operation's path with its parameters' examples filled in, and its required query parameters. */
function exampleUrl(p: string, op: Operation, extra: Record<string, string> = {}): string {
  const params = op.parameters ?? [];
  const filled = p.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(String(params.find((x) => x.name === name && x.in === 'path')?.example)));
  const q = new URLSearchParams(extra);
  for (const x of params) if (x.in === 'query' && x.required) q.set(x.name, String(x.example));
  const qs = q.toString();
  return qs ? `${filled}?${qs}` : filled;
}

describe('typed reads in /openapi.json', () => {
  it('no JSON answer is a generic object: every read has its schema, named for generated clients', () => {
    expect(doc.components.schemas.JsonObject, 'the generic JsonObject is still a component').toBeUndefined();
    const generic: string[] = [];
    for (const { key, op } of operations()) {
      if (key === 'POST /mcp') continue; // JSON-RPC messages of the Model Context Protocol, which its SDKs type
      for (const [status, answer] of Object.entries(op.responses)) {
        const s = resolve(answer.content?.['application/json']?.schema);
        if (!status.startsWith('2') || !answer.content?.['application/json']) continue;
        const typed = s.properties !== undefined || s.type === 'array' || Array.isArray(s.anyOf) || Array.isArray(s.oneOf) || Array.isArray(s.allOf);
        if (!typed) generic.push(`${key} ${status}`);
      }
    }
    expect(generic).toEqual([]);
    // Patterns are ECMA-262 with Unicode, as JSON Schema reads them: none carries a regex's flags ("…$/u").
    const patterns: string[] = [];
    JSON.stringify(doc, (k, v: unknown) => (k === 'pattern' && typeof v === 'string' && patterns.push(v), v));
    expect(patterns.length).toBeGreaterThan(5);
    for (const p of patterns) {
      expect(p, p).not.toMatch(/\/[dgimsuvy]+$/);
      expect(() => new RegExp(p, 'u'), p).not.toThrow();
    }
    for (const [p, name] of [
      ['/api/videos', 'VideoList'],
      ['/api/videos/{video_id}', 'VideoDetail'],
      ['/api/latest', 'Briefing'],
      ['/api/knowledge/{slug}', 'KnowledgeConceptDetail'],
      ['/api/graph/data', 'GraphData'],
      ['/api/health', 'Health'],
    ] as const) {
      expect(jsonAnswer(doc.paths[p].get)?.schema, p).toEqual({ $ref: `#/components/schemas/${name}` });
    }
  });

  it('every answer of every content read conforms to its schema, which declares each of its fields', async () => {
    const checked: string[] = [];
    const problems: string[] = [];
    const admin = await sessionFor(srv, ADMIN);
    for (const { key, path: p, op } of reads()) {
      const variants: [string, Record<string, string>, Record<string, string>][] = [['', {}, {}]];
      if (op.parameters?.some((x) => x.name === 'agent')) variants.push([' agent=true', { agent: 'true' }, {}]);
      if (op.parameters?.some((x) => x.name === 'lang' && x.in === 'query')) variants.push([' lang=sl', { lang: 'sl' }, {}]);
      if (op.parameters?.some((x) => x.name === 'draft')) variants.push([' draft=true', { draft: 'true' }, {}]);
      if (p === '/api/health') variants.push([' detail=true (admin)', { detail: 'true' }, admin.headers]);
      for (const [label, query, headers] of variants) {
        const url = exampleUrl(p, op, query);
        const res = await srv.get(url, { headers: { Accept: 'application/json', ...headers } });
        expect(res.status, url).toBe(200);
        problems.push(...violations(jsonAnswer(op)!.schema, await res.json()).map((v) => `${key}${label}: ${v}`));
        checked.push(`${key}${label}`);
      }
    }
    expect(problems).toEqual([]);
    // Every read the issue names, and the variants that add fields.
    expect(checked).toEqual(
      expect.arrayContaining(
        ['/api/videos', '/api/videos/{video_id}', '/api/latest', '/api/essays', '/api/essays/{slug}', '/api/digests', '/api/digests/{date}', '/api/knowledge', '/api/knowledge/{slug}', '/api/personas', '/api/personas/{persona_id}', '/api/channels', '/api/channels/{channel_id}', '/api/tags', '/api/graph/data', '/.well-known/agent.json', '/api/health', '/api']
          .map((p) => `GET ${p}`)
          .concat(['GET /api/essays/{slug} lang=sl', 'GET /api/health detail=true (admin)', 'GET /api/videos/{video_id} agent=true']),
      ),
    );
  });

  it('every operation has an example of its parameters, its request body and its answer, valid against its schema', () => {
    const missing: string[] = [];
    const invalid: string[] = [];
    for (const { key, op } of operations()) {
      for (const p of op.parameters ?? []) {
        if (p.in !== 'path' && !(p.in === 'query' && p.required)) continue;
        const example = p.example ?? p.schema?.example;
        if (example === undefined) missing.push(`${key}: parameter ${p.name}`);
        else invalid.push(...violations(p.schema, example, false).map((v) => `${key} parameter ${p.name}: ${v}`));
      }
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        if (media.example === undefined) missing.push(`${key}: request ${type}`);
        else if (type.endsWith('json') || type.endsWith('urlencoded')) invalid.push(...violations(media.schema, media.example, false).map((v) => `${key} request ${type}: ${v}`));
      }
      for (const [status, answer] of Object.entries(op.responses)) {
        if (!status.startsWith('2')) continue;
        for (const [type, media] of Object.entries(answer.content ?? {})) {
          if (type === 'application/octet-stream') continue; // binary tiles
          if (media.example === undefined) missing.push(`${key}: answer ${status} ${type}`);
          else if (type.endsWith('json')) invalid.push(...violations(media.schema, media.example, false).map((v) => `${key} answer ${status}: ${v}`));
          else expect(typeof media.example, `${key} ${status} ${type}`).toBe('string');
        }
      }
    }
    expect(missing, 'add them in api/openapi/examples.ts (content reads: api/content/examples.ts)').toEqual([]);
    expect(invalid).toEqual([]);
    // Every operation shows something: none lacks all three.
    const bare = operations().filter(({ op }) => !JSON.stringify(op).includes('"example"'));
    expect(bare.map((o) => o.key)).toEqual([]);
  });

  it("the content reads' examples are real: their ids answer 200, and the example is the answer's start", async () => {
    for (const { key, path: p, op } of reads().filter((r) => r.path.includes('{'))) {
      const res = await srv.get(exampleUrl(p, op), { headers: { Accept: 'application/json' } });
      expect(res.status, key).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      const example = jsonAnswer(op)!.example as Record<string, unknown>;
      for (const field of ['video_id', 'slug', 'date', 'persona_id', 'channel_id', 'title', 'page_url']) if (field in body) expect(example[field], `${key} ${field}`).toEqual(body[field]);
    }
  });

  it('every operation documents a 4xx; a read without parameters answers the 422 it documents for a NUL in the query', async () => {
    const without = operations().filter(({ op }) => !Object.keys(op.responses).some((s) => s.startsWith('4')));
    expect(without.map((o) => o.key)).toEqual([]);
    const nulOnly = operations().filter(({ method, op }) => method === 'get' && Object.keys(op.responses).filter((s) => s.startsWith('4')).join() === '422' && !op.parameters?.length);
    expect(nulOnly.map((o) => o.key)).toEqual(expect.arrayContaining(['GET /api/latest', 'GET /api/essays', 'GET /api/tags', 'GET /api/graph/data', 'GET /.well-known/agent.json', 'GET /api/audit/pubkey']));
    for (const { key, path: p, op } of nulOnly) {
      const res = await srv.get(`${p}?q=%00`);
      expect(res.status, key).toBe(422);
      expect(violations(op.responses['422'].content!['application/json'].schema, await res.json()), key).toEqual([]);
    }
  });
});

describe('a client generated from /openapi.json with openapi-typescript', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-typed-client-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads real fields of every JSON read under tsc --strict, and the program gets them from the server', async () => {
    // The generator's CLI, from its workspace (tools/typed-client: it needs TypeScript 5's API).
    fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
    const cli = path.resolve('tools/typed-client/node_modules/openapi-typescript/bin/cli.js');
    await run(process.execPath, [cli, 'openapi.json', '-o', 'schema.d.ts'], { cwd: dir });
    const types = fs.readFileSync(path.join(dir, 'schema.d.ts'), 'utf8');
    expect(types).toContain('Briefing: {');
    // The program a user writes: openapi-fetch over the generated paths, reading fields of every read.
    fs.symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir');
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2024', module: 'nodenext', moduleResolution: 'nodenext', types: ['node'], allowImportingTsExtensions: true, skipLibCheck: false }, files: ['read.ts'] }),
    );
    fs.writeFileSync(path.join(dir, 'read.ts'), PROGRAM);
    const tsc = path.resolve('node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir }).catch((err: { stdout?: string }) => ({ stdout: String(err.stdout), failed: true }));
    expect('failed' in checked ? checked.stdout : '').toBe('');
    const { stdout } = await run(process.execPath, ['read.ts', srv.url], { cwd: dir });
    const got = JSON.parse(stdout) as Record<string, unknown[]>;
    const latest = await (await srv.get('/api/latest')).json();
    expect(got.briefing).toEqual([latest.stats.total_videos, latest.latest_videos[0].page_url, latest.freshness.last_digest_date, latest.agent.auth_metadata]);
    expect(Object.keys(got).sort()).toEqual(['agent', 'api', 'briefing', 'channel', 'concept', 'config', 'digest', 'essay', 'graph', 'health', 'metadata', 'persona', 'skills', 'tags', 'video'].sort());
    for (const [name, values] of Object.entries(got)) for (const v of values) expect(v, `${name}: ${JSON.stringify(values)}`).not.toBeNull();
  });
});

/** What a user of the generated client writes: every value printed must exist, and the types must hold. */
const PROGRAM = `import createClient from 'openapi-fetch';
import type { paths, components } from './schema.d.ts';

const api = createClient<paths>({ baseUrl: process.argv[2], headers: { Accept: 'application/json' } });
const must = <T>(r: { data?: T; error?: unknown }): T => {
  if (r.data === undefined) throw new Error(JSON.stringify(r.error));
  return r.data;
};
const out: Record<string, unknown[]> = {};

const latest = must(await api.GET('/api/latest'));
out.briefing = [latest.stats.total_videos, latest.latest_videos[0].page_url, latest.freshness.last_digest_date, latest.agent.auth_metadata];

const videos = must(await api.GET('/api/videos', { params: { query: { limit: 2, agent: true } } }));
const video = must(await api.GET('/api/videos/{video_id}', { params: { path: { video_id: videos.items[0].video_id } } }));
const cited: string[] = video.knowledge.map((k) => k.slug).concat(video.digests.map((d) => d.date));
out.video = [videos.total, video.title, video.channel.name, video.transcript === null ? 'no transcript' : video.transcript.length, cited.length, video.page_url];
// @ts-expect-error: the type of a video has its fields, not any field
void video.no_such_field;

const channels = must(await api.GET('/api/channels'));
const channel = must(await api.GET('/api/channels/{channel_id}', { params: { path: { channel_id: channels.items[0].channel_id }, query: { limit: 1 } } }));
out.channel = [channel.name, channel.video_count, channel.videos.items[0]?.title ?? 'no videos', channel.last_video_date ?? 'never'];

const essays = must(await api.GET('/api/essays'));
const essay = must(await api.GET('/api/essays/{slug}', { params: { path: { slug: essays.items[0].slug }, query: { lang: 'sl' } } }));
const lang: 'en' | 'sl' = essay.lang;
out.essay = [essay.title, lang, essay.content.length, Object.keys(essay.translations).length, essay.available_languages.join(',')];

const digests = must(await api.GET('/api/digests'));
const digest = must(await api.GET('/api/digests/{date}', { params: { path: { date: digests.items[0].date } } }));
out.digest = [digest.title, digest.items.length, digest.items[0].sources[0]?.video_id ?? 'no source', digest.items[0].headline];

const knowledge = must(await api.GET('/api/knowledge'));
const concept = must(await api.GET('/api/knowledge/{slug}', { params: { path: { slug: knowledge.items[0].slug } } }));
const source = concept.sources[0];
const kinds: components['schemas']['KnowledgeSource']['type'][] = concept.sources.map((s) => s.type);
out.concept = [concept.title, concept.body.length, source.type === 'web_page' ? source.url : source.date, kinds.length, concept.related.map((r) => r.title).length];

const personas = must(await api.GET('/api/personas'));
const persona = must(await api.GET('/api/personas/{persona_id}', { params: { path: { persona_id: personas.items[0].persona_id } } }));
const mf = persona.modelfiles[0];
const modelfile = must(await api.GET('/api/personas/modelfiles/{persona_id}/{mode}/{lang}', { params: { path: { persona_id: persona.persona_id, mode: mf.mode, lang: mf.lang } } }));
out.persona = [persona.name, persona.modes.join(','), modelfile.modelfile.length];

const tags = must(await api.GET('/api/tags'));
out.tags = [tags.items[0].tag, tags.items[0].count, tags.items[0].videos_url];

const graph = must(await api.GET('/api/graph/data'));
out.graph = [graph.node_count, graph.nodes[0].type, graph.nodes[0].x, graph.edges[0].kind];

const skills = must(await api.GET('/api/skills'));
out.skills = [skills.total, skills.items[0].name, skills.items[0].url];

// /api answers Markdown or, as asked here, JSON: the type says both.
const summary = must(await api.GET('/api'));
if (typeof summary === 'string') throw new Error('asked for JSON, got Markdown');
const card = must(await api.GET('/.well-known/agent.json'));
out.api = [summary.counts.videos, summary.openapi];
out.agent = [card.endpoints.mcp, card.capabilities.anonymous_read, card.skills.length];

const as = must(await api.GET('/.well-known/oauth-authorization-server'));
const resource = must(await api.GET('/.well-known/oauth-protected-resource'));
const mcp = must(await api.GET('/.well-known/mcp.json'));
out.metadata = [as.token_endpoint, as.scopes_supported.includes('write'), resource.resource, mcp.transport];

const config = must(await api.GET('/api/config'));
const health = must(await api.GET('/api/health'));
const ok: 'ok' = health.status;
out.config = [config.key_prefix, config.dev_mode];
out.health = [ok];

console.log(JSON.stringify(out));
`;
