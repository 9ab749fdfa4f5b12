// Issue 15, item 2: a call that needs a user answers 401 (with WWW-Authenticate) before it looks at the
// request, as FastAPI resolves the identity dependency before the body: an anonymous caller with an empty,
// malformed or wrong body, or bad parameters, is told to sign in first, not to fix a body it will resend.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { bearerFor, sessionFor } from '../../helpers/auth.ts';
import { CATALOGUE, NEEDS_USER } from '../../../api/openapi/catalogue.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

/** Every operation whose catalogue access needs a signed-in user, plus the chat routes (chat token). */
const needsUser = Object.entries(CATALOGUE)
  .filter(([, e]) => NEEDS_USER.has(e.access) || e.access === 'chat')
  .map(([key]) => {
    const [method, path] = key.split(' ');
    return { method, path };
  });

/** The path with each parameter replaced by a value no route accepts (too long, not a uuid or a kind). */
const badPath = (path: string) => path.replace(/\{[^}]+\}/g, 'x'.repeat(300));

const BAD_BODIES: { name: string; body?: string; type?: string }[] = [
  { name: 'no body' },
  { name: 'an empty JSON object', body: '{}', type: 'application/json' },
  { name: 'a wrong JSON body', body: '{"unexpected":[1,2,3],"limit":-5}', type: 'application/json' },
  { name: 'malformed JSON', body: '{"entity_type":', type: 'application/json' },
];

describe('401 before 422 for every route that needs a user', () => {
  it('the catalogue names the spec\'s signed-in writes among them', () => {
    const keys = needsUser.map((o) => `${o.method} ${o.path}`);
    for (const k of ['POST /api/comments', 'POST /api/posts', 'POST /api/sources', 'POST /api/sources/knowledge', 'POST /api/chat/auth', 'POST /api/device/approve', 'POST /api/account/api-keys']) {
      expect(keys).toContain(k);
    }
  });

  for (const { method, path } of needsUser) {
    it(`${method} ${path}: anonymous with bad input answers 401 with WWW-Authenticate`, async () => {
      for (const variant of BAD_BODIES) {
        for (const target of [path.replace(/\{[^}]+\}/g, 'some-id'), `${badPath(path)}?limit=abc&offset=-1&user_code=${'x'.repeat(50)}`]) {
          const withBody = method !== 'GET' && method !== 'DELETE' && variant.body !== undefined;
          if (!withBody && variant.body !== undefined) continue;
          const res = await srv.get(target, {
            method,
            headers: withBody && variant.type ? { 'Content-Type': variant.type } : {},
            body: withBody ? variant.body : undefined,
          });
          expect(res.status, `${method} ${target} with ${variant.name}: ${await res.clone().text()}`).toBe(401);
          expect(res.headers.get('www-authenticate'), `${method} ${target}`).toMatch(/^Bearer/);
          const body = await res.json();
          expect(typeof body.detail, `${method} ${target}: a {"detail": "…"} body`).toBe('string');
        }
      }
    });
  }

  it('an invalid bearer token is refused 401 invalid_token before the body is validated', async () => {
    const res = await srv.get('/api/comments', { method: 'POST', headers: { Authorization: 'Bearer nope', 'Content-Type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('an API key on a browser-session-only route is refused before its body is validated', async () => {
    const who = await sessionFor(srv, 'keyholder@example.com');
    const key = await bearerFor(srv, who.userId);
    const keys = await srv.get('/api/account/api-keys', { method: 'POST', headers: { ...key.headers, 'Content-Type': 'application/json' }, body: '{"name": 5}' });
    expect(keys.status).toBe(403);
    const approve = await srv.get('/api/device/approve', { method: 'POST', headers: { ...key.headers, 'Content-Type': 'application/json' }, body: '{}' });
    expect(approve.status).toBe(401);
  });

  it('a signed-in caller with the same bad body gets the 422 it needs next', async () => {
    const who = await sessionFor(srv, 'writer@example.com');
    for (const path of ['/api/comments', '/api/posts', '/api/sources', '/api/sources/knowledge', '/api/chat/auth', '/api/device/approve', '/api/account/api-keys']) {
      const res = await srv.get(path, { method: 'POST', headers: { ...who.headers, 'Content-Type': 'application/json' }, body: '{"unexpected":true}' });
      expect(res.status, path).toBe(422);
      expect(Array.isArray((await res.json()).detail), path).toBe(true);
    }
  });
});
