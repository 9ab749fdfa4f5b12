// bench auth: token-endpoint and bearer-verification throughput, side by side, against a real server in a
// child process (autocannon, 16 connections). The token endpoint runs refresh grants, each connection
// rotating its own refresh token chain (every request a transaction: rotate, issue two tokens, audit);
// bearer verification is GET /api/auth/me with an OAuth access token, next to an API key and no
// credential; the MCP row is a stateless tools/call of search with the OAuth token.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { seedPerson } from './seed.ts';
import { startChild, table, type LoadResult } from './util.ts';

const CONNECTIONS = 16;
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** One complete authorization: consent page, approval, code exchange. Returns the tokens. */
async function authorize(url: string, clientId: string, session: string): Promise<{ access_token: string; refresh_token: string }> {
  const verifier = 'v'.repeat(43) + Math.random().toString(36).slice(2);
  const challenge = (await import('node:crypto')).createHash('sha256').update(verifier).digest('base64url');
  const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, code_challenge: challenge, scope: 'read', state: 's' });
  const cookie = `kb_session=${session}`;
  const page = await (await fetch(`${url}/api/oauth/v2/authorize?${q}`, { headers: { Cookie: cookie } })).text();
  const fields = Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
  const approved = await fetch(`${url}/api/oauth/v2/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Cookie: cookie, Origin: url, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision: 'approve' }),
  });
  const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
  const res = await fetch(`${url}/api/oauth/v2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT_URI, code_verifier: verifier }),
  });
  if (res.status !== 200) throw new Error(`code exchange failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { access_token: string; refresh_token: string };
}

async function run(opts: autocannon.Options): Promise<LoadResult> {
  const r = await autocannon({ connections: CONNECTIONS, pipelining: 1, ...opts });
  return { rps: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

export async function runAuthBench(args: string[]): Promise<Record<string, unknown>> {
  const seconds = Number(args[0] ?? 8);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-auth-'));
  const { session, apiKey } = await seedPerson(path.join(dir, 'kb.sqlite'), dir, 'bench.local/audit');
  const server = await startChild('api/server.ts', [], {
    DATA_DIR: dir,
    DIST_DIR: path.join(dir, 'no-dist'),
    CONTENT_DIR: path.resolve('content'),
    PORT: '0',
    HOST: '127.0.0.1',
    BASE_URL: 'http://bench.local',
    ALLOW_DEV_IDP: 'true', // bench.local is no loopback origin; the bench signs in without a provider
    WRITE_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  const rows: Record<string, unknown>[] = [];
  try {
    const url = server.url;
    const reg = await (await fetch(`${url}/api/oauth/v2/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', client_name: 'bench' }),
    })).json() as { client_id: string };
    // One grant per connection, so each connection rotates its own refresh-token chain.
    const grants = [];
    for (let i = 0; i < CONNECTIONS + 1; i++) grants.push(await authorize(url, reg.client_id, session));
    const accessToken = grants.pop()!.access_token;
    // A pool of live refresh tokens: a request takes one, its answer puts the rotated one back, so no
    // token is ever sent twice (which would be reuse, and revoke its family). autocannon's per-connection
    // context is reset after every request of a one-request list, hence the shared pool.
    const pool = grants.map((g) => g.refresh_token);
    const refreshRequest: autocannon.Request = {
      method: 'POST',
      path: '/api/oauth/v2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      setupRequest: (req) => ({ ...req, body: `grant_type=refresh_token&client_id=${reg.client_id}&refresh_token=${pool.shift()}` }),
      onResponse: (status, body) => {
        if (status === 200) pool.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
      },
    };
    const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'governance', limit: 5 } } });
    const targets: { name: string; opts: autocannon.Options }[] = [
      { name: 'GET /api/auth/me, no credential (baseline)', opts: { url: `${url}/api/auth/me` } },
      { name: 'GET /api/auth/me, API key', opts: { url: `${url}/api/auth/me`, headers: { authorization: `Bearer ${apiKey}` } } },
      { name: 'GET /api/auth/me, OAuth access token', opts: { url: `${url}/api/auth/me`, headers: { authorization: `Bearer ${accessToken}` } } },
      {
        name: 'POST /mcp tools/call search, OAuth token',
        opts: { url: `${url}/mcp`, method: 'POST', body: mcpBody, headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
      },
      { name: 'POST /api/oauth/v2/token, refresh grant (rotation)', opts: { url, requests: [refreshRequest] } },
    ];
    // Warm up the read paths (the refresh chains are not replayed: a warm-up would consume them).
    for (const t of targets.slice(0, 4)) await run({ ...t.opts, duration: 1 });
    for (const t of targets) {
      const r = await run({ ...t.opts, duration: seconds });
      rows.push({ target: t.name, ...r });
    }
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nauth: requests per second (autocannon, ${CONNECTIONS} connections, ${seconds} s each)`);
  console.log(table(rows.map((r) => ({ target: String(r.target), 'req/s': r.rps as number, 'p50 ms': r.p50_ms as number, 'p99 ms': r.p99_ms as number, errors: (r.errors as number) + (r.non2xx as number) }))));
  return { connections: CONNECTIONS, seconds, results: rows };
}
