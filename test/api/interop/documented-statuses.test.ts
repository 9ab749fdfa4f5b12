// Issue 15, item 4: every operation of /openapi.json is called with a few valid and invalid inputs, as
// anonymous, signed-in (session and API key) and moderator callers, and every status it answers must be
// one its document lists. Inputs are made from the document itself (parameters and body schemas) and from
// real identifiers of the sample content and of items the test creates first.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor, sessionFor, type TestSession } from '../../helpers/auth.ts';
import { fixtureContent } from '../../helpers/content.ts';

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses: Record<string, unknown>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const MODERATOR = 'moderator@example.com';

let srv: TestServer;
let contentRoot: string;
let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
let author: TestSession;
/** Real identifiers by parameter name (and for `slug`, by the path it is in). */
const known: Record<string, string> = {};

const json = async (res: Response) => (await res.json()) as Record<string, unknown> & { items?: Record<string, string>[] };

beforeAll(async () => {
  // Its writes are real (a draft concept file, an applied proposal): a copy of the content takes them.
  contentRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-statuses-'));
  const contentDir = path.join(contentRoot, 'content');
  fs.cpSync(fixtureContent(), contentDir, { recursive: true });
  srv = await startTestServer({
    contentDir,
    env: { WRITE_RATE_LIMIT_PER_MINUTE: '100000', LOGIN_RATE_LIMIT_PER_MINUTE: '100000', CHAT_RATE_LIMIT_PER_MINUTE: '100000', MODERATOR_EMAILS: MODERATOR },
  });
  doc = await json(await srv.get('/openapi.json')) as unknown as typeof doc;
  author = await sessionFor(srv, 'author@example.com');
  const send = (p: string, method: string, body: unknown) =>
    srv.get(p, { method, headers: { ...author.headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const videos = await json(await srv.get('/api/videos?limit=1'));
  known.video_id = videos.items![0].video_id;
  known.channel_id = (await json(await srv.get('/api/channels'))).items![0].channel_id;
  known.essay = (await json(await srv.get('/api/essays'))).items![0].slug;
  known.knowledge = (await json(await srv.get('/api/knowledge'))).items![0].slug;
  known.date = (await json(await srv.get('/api/digests'))).items![0].date;
  const persona = (await json(await srv.get('/api/personas'))).items![0] as unknown as { persona_id: string; modelfiles?: { mode: string; lang: string }[] };
  known.persona_id = persona.persona_id;
  const personaDoc = await json(await srv.get(`/api/personas/${persona.persona_id}`));
  const modelfile = JSON.stringify(personaDoc).match(/modelfiles\/[^/"]+\/([^/"]+)\/([^/"?]+)/);
  known.mode = modelfile?.[1] ?? 'chat';
  known.lang = modelfile?.[2] ?? 'en';
  const skills = await json(await srv.get('/api/skills'));
  known.name = String((skills.items ?? (skills as unknown as { skills: Record<string, string>[] }).skills)?.[0]?.name ?? 'kb');
  known.user_id = author.userId;
  const post = await json(await send('/api/posts', 'POST', { title: 'A post for the status walk', summary: 'Made by the test.', tags: ['walk'] }));
  known.post_id = String(post.post_id ?? post.id);
  known.post = String(post.slug ?? known.post_id);
  const comment = await json(await send('/api/comments', 'POST', { entity_type: 'video', entity_id: known.video_id, body: 'A comment for the status walk' }));
  known.comment_id = String(comment.comment_id ?? comment.id);
  known.kind = 'like';
  known.notification_id = randomUUID();
  known.proposal_id = String((await json(await srv.get('/api/proposals?status=all'))).items?.[0]?.proposal_id ?? 'p-unknown');
  known.key_id = String((await json(await send('/api/account/api-keys', 'POST', { name: 'walk' }))).key_id ?? 'k-unknown');
  known.client_id = 'unknown-client';
  known.note = 'walk-note';
  known.L = '0';
  known.N = '000';
});
afterAll(async () => {
  await srv?.stop();
  fs.rmSync(contentRoot, { recursive: true, force: true });
});

function resolve(schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) s = doc.components.schemas[(s.$ref as string).split('/').pop()!] ?? {};
  return s;
}

/** Fields and parameters that name something get a real one (a video to comment on, a persona to chat with). */
function realValue(name: string): string | undefined {
  const real: Record<string, string | undefined> = { entity_type: 'video', entity_id: known.video_id, video_id: known.video_id, persona_id: known.persona_id, mode: known.mode, lang: known.lang, user_id: known.user_id };
  return real[name];
}

/** A value the schema accepts, as far as a sampler can tell (examples, defaults, enums, bounds). */
function sample(schema: Schema | undefined, depth = 0): unknown {
  const s = resolve(schema);
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s.const !== undefined) return s.const;
  for (const k of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[k])) return sample((s[k] as Schema[]).find((x) => resolve(x).type !== 'null'), depth);
  }
  if (Array.isArray(s.allOf)) return Object.assign({}, ...(s.allOf as Schema[]).map((x) => sample(x, depth)));
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined);
  if (type === 'object' || s.properties) {
    if (depth > 4) return {};
    const props = (s.properties ?? {}) as Record<string, Schema>;
    const required = new Set((s.required as string[] | undefined) ?? []);
    return Object.fromEntries(Object.entries(props).filter(([k]) => required.has(k)).map(([k, v]) => [k, realValue(k) ?? sample(v, depth + 1)]));
  }
  if (type === 'array') return Array.from({ length: Math.max(1, Number(s.minItems ?? 1)) }, () => sample(s.items as Schema, depth + 1));
  if (type === 'integer' || type === 'number') return Number(s.minimum ?? 1);
  if (type === 'boolean') return true;
  if (s.format === 'date') return '2026-11-20';
  if (s.format === 'uuid') return randomUUID();
  if (s.format === 'uri' || s.format === 'url') return 'http://127.0.0.1:9/walk';
  if (s.format === 'email') return 'someone@example.com';
  return 'walk'.padEnd(Math.max(4, Number(s.minLength ?? 0)), 'k').slice(0, Math.max(4, Number(s.maxLength ?? 64)));
}

/** Another accepted value, away from the default: the other boolean, the last enum value, the maximum. */
function alternative(schema: Schema | undefined): string {
  const s = resolve(schema);
  if (Array.isArray(s.enum)) return String(s.enum.at(-1));
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : s.type;
  if (type === 'boolean') return String(s.default !== true);
  if ((type === 'integer' || type === 'number') && s.maximum !== undefined) return String(s.maximum);
  return String(sample(s));
}

/** A value no sensible schema accepts for this parameter. */
function invalid(schema: Schema | undefined): string {
  const s = resolve(schema);
  const type = Array.isArray(s.type) ? (s.type as string[])[0] : s.type;
  if (type === 'integer' || type === 'number') return 'not-a-number';
  if (type === 'boolean') return 'maybe';
  // Over every length limit the schemas set (the longest, a comment body, is 1500), within the URL size Node reads.
  return 'x'.repeat(1600);
}

function pathValue(path: string, name: string): string {
  if (name === 'slug') {
    if (path.startsWith('/api/essays')) return known.essay;
    if (path.startsWith('/api/knowledge')) return known.knowledge;
    if (path.startsWith('/api/posts')) return known.post;
    return known.note;
  }
  if (name === 'date') return known.date;
  return known[name] ?? 'walk';
}

interface Call {
  name: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function calls(path: string, method: string, op: Operation): Call[] {
  const params = op.parameters ?? [];
  const fill = (bad: boolean) => path.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(bad ? 'x'.repeat(400) : pathValue(path, n)));
  const query = (which: 'required' | 'all' | 'other' | 'invalid') => {
    const q = new URLSearchParams();
    for (const p of params.filter((x) => x.in === 'query')) {
      if (which === 'required' && !p.required) continue;
      const value = which === 'invalid' ? invalid(p.schema) : which === 'other' ? alternative(p.schema) : (realValue(p.name) ?? String(sample(p.schema)));
      q.set(p.name, value);
    }
    const s = q.toString();
    return s ? `?${s}` : '';
  };
  const content = op.requestBody?.content ?? {};
  const type = Object.keys(content)[0];
  const encode = (value: unknown) =>
    type === 'application/x-www-form-urlencoded'
      ? new URLSearchParams(Object.entries((value ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)])).toString()
      : JSON.stringify(value);
  const good = type ? encode(sample(content[type].schema)) : undefined;
  const typeHeader: Record<string, string> = type ? { 'Content-Type': type } : {};
  const out: Call[] = [
    { name: 'required parameters', path: fill(false) + query('required'), headers: typeHeader, body: good },
    { name: 'every parameter', path: fill(false) + query('all'), headers: typeHeader, body: good },
    { name: 'every parameter, other values', path: fill(false) + query('other'), headers: typeHeader, body: good },
    { name: 'invalid parameters', path: fill(true) + query('invalid'), headers: typeHeader, body: good },
  ];
  if (type) {
    out.push({ name: 'a wrong body', path: fill(false) + query('required'), headers: typeHeader, body: type.includes('json') ? '{"unexpected":[1]}' : 'unexpected=1' });
    out.push({ name: 'malformed JSON', path: fill(false) + query('required'), headers: { 'Content-Type': 'application/json' }, body: '{"a":' });
    out.push({ name: 'no body', path: fill(false) + query('required'), headers: {} });
  }
  return out;
}

describe('every status an operation answers is documented', () => {
  it('walks every operation as anonymous, session, API key and moderator callers', async () => {
    const undocumented: string[] = [];
    let count = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        for (const call of calls(path, method, op)) {
          const callers: [string, () => Promise<Record<string, string>>][] = [
            ['anonymous', async () => ({})],
            ['session', async () => (await sessionFor(srv, `walker-${count}@example.com`)).headers],
            ['API key', async () => (await bearerFor(srv, (await sessionFor(srv, `keyed-${count}@example.com`)).userId)).headers],
            ['moderator', async () => (await sessionFor(srv, MODERATOR)).headers],
          ];
          for (const [who, headers] of callers) {
            // Sign-out ends the shared moderator session: it gets one of its own.
            const h = path === '/api/auth/logout' && who === 'moderator' ? (await sessionFor(srv, `mod-out-${count}@example.com`)).headers : await headers();
            const res = await srv.get(call.path, {
              method: method.toUpperCase(),
              headers: { ...h, ...call.headers },
              body: method === 'get' ? undefined : call.body,
              redirect: 'manual',
            });
            await res.arrayBuffer();
            count++;
            const status = String(res.status);
            if (!(status in op.responses) && !('default' in op.responses)) {
              undocumented.push(`${method.toUpperCase()} ${path} answered ${status} (${who}, ${call.name}); documented: ${Object.keys(op.responses).join(', ')}`);
            }
          }
        }
      }
    }
    expect(count).toBeGreaterThan(1000);
    expect(undocumented).toEqual([]);
  }, 240_000);
});
