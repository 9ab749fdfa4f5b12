// Shared steps of the personal-knowledge tests: a server pointed at the loopback git host, and the connect
// flow as a browser runs it (begin → the host's consent → our callback).
import { expect } from 'vitest';
import { Browser } from '../../helpers/browser.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import type { GitHost } from './git-host.ts';

export async function serverFor(host: GitHost, env: Record<string, string> = {}): Promise<TestServer> {
  const srv = await startTestServer({ ownOrigin: true, env: { ...host.env(), WRITE_RATE_LIMIT_PER_MINUTE: '10000', ...env } });
  host.registerClient(`${srv.url}/api/auth/vcs/callback`);
  return srv;
}

export interface Person extends TestSession {
  browser: Browser;
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

/** A signed-in person with a browser holding their session, and a JSON client with the same session. */
export async function person(srv: TestServer, email: string, name?: string): Promise<Person> {
  const s = await sessionFor(srv, email, name);
  const browser = new Browser(srv.url);
  browser.cookies.set('kb_session', s.cookie.slice('kb_session='.length));
  return {
    ...s,
    browser,
    api: (path, init = {}) => {
      const { json, ...rest } = init;
      return srv.get(path, {
        ...rest,
        headers: { ...s.headers, ...(json !== undefined ? { 'Content-Type': 'application/json' } : {}), ...(rest.headers as Record<string, string>) },
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
  };
}

/** Runs the connect flow in the person's browser; returns where our callback sent the browser. */
export async function connect(p: Person): Promise<string> {
  // A fresh session at the host each time, so the consent (and the account) is the one the test sets up.
  for (const name of [...p.browser.cookies.keys()]) if (name !== 'kb_session') p.browser.cookies.delete(name);
  const begin = await p.api('/api/auth/vcs/begin');
  expect(begin.status, await begin.clone().text()).toBe(200);
  const { authorize_url } = (await begin.json()) as { authorize_url: string };
  const last = await p.browser.follow(authorize_url, {}, /\/account\?/);
  expect(last.status).toBe(302);
  return last.headers.get('location')!;
}

export async function putNote(p: Person, slug: string, content: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await p.api(`/api/me/personal-knowledge/notes/${slug}`, { method: 'PUT', json: { content, ...extra }, headers });
  return { status: res.status, body: (await res.json()) as Record<string, any>, etag: res.headers.get('etag'), headers: res.headers };
}

export async function getJson(p: Person, path: string) {
  const res = await p.api(path);
  return { status: res.status, body: (await res.json()) as any, etag: res.headers.get('etag') };
}
