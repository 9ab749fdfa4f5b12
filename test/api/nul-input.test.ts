// NUL characters (U+0000) in every kind of string input: PostgreSQL's text cannot hold one, so before they
// were refused at the edge a NUL in a path id, a query parameter or a body answered 500 there (and logged a
// stack per distinct path). Now, on both databases: 404 for a path, 422 naming the parameter or field for
// the rest (RFC 6749 invalid_request at the OAuth endpoints, a JSON-RPC error at /mcp), nothing stored, and
// no unhandled error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sessionFor, type TestSession } from '../helpers/auth.ts';
import { sender, type Send } from '../helpers/http.ts';
import { failAuditEvents } from '../helpers/db-faults.ts';
import { captureConsoleErrors } from '../helpers/console-log.ts';
import { discover, fullFlow } from './oauth/helpers.ts';
import { fixtureContent } from '../helpers/content.ts';

const video = loadSnapshot(fixtureContent()).videos[0].video_id;
const NUL = '\u0000';
let srv: TestServer;
let send: Send;
let ana: TestSession;
// The app logs unhandled errors to console.error: kept to check that none happened (and how often).
let log: ReturnType<typeof captureConsoleErrors>;

beforeAll(async () => {
  log = captureConsoleErrors();
  srv = await startTestServer({ ownOrigin: true, env: { WRITE_RATE_LIMIT_PER_MINUTE: '10000' } });
  send = sender(srv);
  ana = await sessionFor(srv, 'nul-ana@example.org', 'Ana');
}, 60_000);
afterAll(async () => {
  await srv?.stop();
  log?.restore();
});

const unhandled = () => log.lines.filter((l) => l.includes('unhandled error'));
const count = async (table: string) => Number(((await srv.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()) as { n: number | string }).n);

describe('a NUL character in a request', () => {
  it('in a path id is 404', async () => {
    for (const path of ['/api/users/a%00b', `/api/comments/c%00`, '/api/posts/a%00b', '/api/me/personal-knowledge/notes/a%00b']) {
      const res = await send(path, { as: ana });
      expect(res.status, path).toBe(404);
      expect((await res.json()).hint).toMatch(/NUL/);
    }
  });

  it('in a query parameter is 422 naming it', async () => {
    for (const [path, name] of [['/api/audit?kind=a%00b', 'kind'], ['/api/comments?entity_type=video&entity_id=a%00', 'entity_id'], ['/api/search?q=agents%00', 'q']] as const) {
      const res = await srv.get(path);
      expect(res.status, path).toBe(422);
      expect((await res.json()).detail[0]).toMatchObject({ type: 'value_error', loc: ['query', name], msg: expect.stringMatching(/NUL/) });
    }
  });

  it('in a JSON body is 422 naming the field, after 401 for the anonymous, and stores nothing', async () => {
    const comments = await count('comments');
    const posts = await count('posts');
    expect((await send('/api/comments', { method: 'POST', json: { entity_type: 'video', entity_id: video, body: `a${NUL}b` } })).status).toBe(401);
    const c = await send('/api/comments', { method: 'POST', as: ana, json: { entity_type: 'video', entity_id: video, body: `a${NUL}b` } });
    expect(c.status).toBe(422);
    expect((await c.json()).detail[0]).toMatchObject({ loc: ['body', 'body'], msg: expect.stringMatching(/NUL/) });
    const p = await send('/api/posts', { method: 'POST', as: ana, json: { title: 'Title', tags: ['ok'], summary: 'fine', body: 'x', [`k${NUL}`]: 1 } });
    expect(p.status).toBe(422);
    expect((await p.json()).detail[0].loc).toEqual(['body', `k${NUL}`]);
    const nested = await send('/api/posts', { method: 'POST', as: ana, json: { title: 'Title', tags: ['ok', `t${NUL}`] } });
    expect((await nested.json()).detail[0].loc).toEqual(['body', 'tags', 1]);
    const source = await send('/api/sources', { method: 'POST', as: ana, json: { title: 'Pasted', text: `text${NUL}` } });
    expect(source.status).toBe(422);
    expect([await count('comments'), await count('posts')]).toEqual([comments, posts]);
  });

  it('in a form sent to the website is shown on the page, and nothing is stored', async () => {
    const posts = await count('posts');
    const res = await srv.get('/posts/me', { method: 'POST', headers: { ...ana.headers, 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ title: `A title${NUL}`, summary: 's' }).toString() });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/NUL/);
    expect(await count('posts')).toBe(posts);
  });

  it('at the OAuth endpoints is an RFC 6749 invalid_request', async () => {
    for (const [path, body] of [
      ['/api/oauth/v2/token', { grant_type: 'authorization_code', client_id: `a${NUL}b`, code: 'x' }],
      ['/api/oauth/v2/revoke', { token: `t${NUL}`, client_id: 'c' }],
      ['/api/oauth/device', { client_id: `a${NUL}` }],
    ] as const) {
      const res = await srv.get(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString() });
      expect(res.status, path).toBe(400);
      expect(await res.json(), path).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/NUL/) });
    }
    const q = await srv.get(`/api/oauth/v2/authorize?client_id=a%00b&response_type=code`);
    expect(q.status).toBe(400);
    expect((await q.json()).error).toBe('invalid_request');
  });

  it('in an MCP tool call is a JSON-RPC error through the SDK client, and stores nothing', async () => {
    const as: oauth.AuthorizationServer = await discover(srv);
    const flow = await fullFlow(srv, as, { email: 'nul-mcp@example.org' });
    const mcp = new Client({ name: 'kb-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${flow.tokens.access_token}` } } }));
    try {
      const comments = await count('comments');
      await expect(mcp.callTool({ name: 'comment', arguments: { entity_type: 'video', entity_id: video, body: `through MCP${NUL}` } })).rejects.toThrow(/NUL/);
      expect(await count('comments')).toBe(comments);
    } finally {
      await mcp.close();
    }
  });

  it('never got as far as an unhandled error', () => {
    expect(unhandled()).toEqual([]);
  });
});

describe('an unexpected error repeated on many paths of one route', () => {
  it('is logged with its stack once', async () => {
    const made = await Promise.all([1, 2, 3].map(async (i) => (await send('/api/comments', { method: 'POST', as: ana, json: { entity_type: 'video', entity_id: video, body: `log once ${i}` } })).json()));
    const restore = await failAuditEvents(srv.db, 'comment.edit');
    try {
      for (const c of made) {
        const res = await send(`/api/comments/${c.comment_id}`, { method: 'PATCH', as: ana, json: { body: 'changed' } });
        expect(res.status).toBe(500);
      }
    } finally {
      await restore();
    }
    const lines = unhandled();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('PATCH /api/comments/:comment_id');
    expect(lines[0]).not.toContain(made[0].comment_id);
  });
});
