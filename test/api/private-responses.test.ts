// Responses that depend on a credential are never kept by a shared cache (issue 39, item 11):
// /api/me/personal-knowledge, its notes and history, and /api/auth/vcs/begin said nothing about caching, so
// a CDN or proxy in front could keep one person's answer and hand it to the next caller. Every GET
// operation of /openapi.json that takes a session or a bearer credential is called here with one (real
// resources in its path), and its answer must say `private, no-store` (or `private, no-cache` with a Vary
// on the credential).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { bearerFor } from '../helpers/auth.ts';
import { connect, person, putNote, type Person } from './personal-knowledge/helpers.ts';

let srv: TestServer;
let admin: Person;
let key: Record<string, string>;
const params: Record<string, string> = {};
const queries: Record<string, string> = {};

beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { ADMIN_EMAILS: 'admin@example.org', WRITE_RATE_LIMIT_PER_MINUTE: '10000' } });
  admin = await person(srv, 'admin@example.org', 'Ada Admin');
  key = (await bearerFor(srv, admin.userId)).headers;
  // Something of the person's behind every path parameter: a comment, a post, a note, a device request.
  const video = ((await (await srv.get('/api/latest')).json()) as { latest_videos: { video_id: string }[] }).latest_videos[0].video_id;
  const comment = await (await admin.api('/api/comments', { method: 'POST', json: { entity_type: 'video', entity_id: video, body: 'A comment of mine.' } })).json();
  const post = await (await admin.api('/api/posts', { method: 'POST', json: { title: 'A draft of mine', summary: 'Mine.', tags: ['agents'] } })).json();
  expect(await connect(admin)).toBe('/account?pk=connected');
  expect((await putNote(admin, 'first', '# My note\n', { base_blob: null })).status).toBe(200);
  const device = await (await srv.get('/api/oauth/device', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ client_name: 'agent', client_host: 'box' }) })).json();
  Object.assign(params, { video_id: video, comment_id: comment.comment_id, post_id: post.post_id, slug: 'first', user_id: admin.userId });
  Object.assign(queries, {
    '/api/health': 'detail=true',
    '/api/comments': `entity_type=video&entity_id=${video}`,
    '/api/device/lookup': `user_code=${device.user_code}`,
  });
  params.post_slug = post.slug;
});
afterAll(() => srv.stop());

interface Operation {
  security?: Record<string, string[]>[];
}

/** Every GET operation that takes a browser session or a bearer credential, as the served document says. */
async function credentialedGets(): Promise<{ path: string; session: boolean; bearer: boolean }[]> {
  const doc = (await (await srv.get('/openapi.json')).json()) as { paths: Record<string, { get?: Operation }> };
  return Object.entries(doc.paths)
    .filter(([, ops]) => ops.get)
    .map(([path, ops]) => {
      const schemes = new Set((ops.get!.security ?? []).flatMap((r) => Object.keys(r)));
      return { path, session: schemes.has('session'), bearer: schemes.has('bearer') };
    })
    .filter((op) => op.session || op.bearer);
}

function url(template: string): string {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    // /api/posts/{slug} reads a post by slug or id; /api/me/.../notes/{slug} is the note.
    if (name === 'slug' && template.startsWith('/api/posts/')) return params.post_slug;
    const v = params[name];
    if (v === undefined) throw new Error(`no value for {${name}} in ${template}`);
    return encodeURIComponent(v);
  });
  return queries[template] ? `${path}?${queries[template]}` : path;
}

function keptFromSharedCaches(res: Response): boolean {
  const cc = (res.headers.get('cache-control') ?? '').toLowerCase();
  const has = (d: string) => cc.split(',').some((x) => x.trim().split('=')[0] === d);
  const varies = /(^|,)\s*(cookie|authorization)\s*(,|$)/i.test(res.headers.get('vary') ?? '');
  return has('private') && (has('no-store') || (has('no-cache') && varies));
}

describe('responses to a credential', () => {
  it('are private and never stored, on every GET operation that takes one', async () => {
    const ops = await credentialedGets();
    expect(ops.map((o) => o.path)).toEqual(
      expect.arrayContaining(['/api/me/personal-knowledge', '/api/me/personal-knowledge/notes', '/api/me/personal-knowledge/notes/{slug}', '/api/me/personal-knowledge/history', '/api/auth/vcs/begin', '/api/account/me', '/api/notifications']),
    );
    for (const op of ops) {
      for (const [how, headers] of [
        ['session', admin.headers],
        ['bearer', key],
      ] as const) {
        if (how === 'session' ? !op.session : !op.bearer) continue;
        const res = await srv.get(url(op.path), { headers, redirect: 'manual' });
        await res.arrayBuffer();
        expect.soft(keptFromSharedCaches(res), `${op.path} with a ${how}: ${res.status}, Cache-Control: ${res.headers.get('cache-control')}, Vary: ${res.headers.get('vary')}`).toBe(true);
      }
    }
  });

  it('leave anonymous reads cacheable as before', async () => {
    const res = await srv.get('/api/videos?limit=5');
    expect(res.headers.get('cache-control')).toMatch(/^public/);
    const withCookie = await srv.get('/api/videos?limit=5', { headers: admin.headers });
    expect(withCookie.headers.get('cache-control')).toMatch(/^public/);
  });
});
