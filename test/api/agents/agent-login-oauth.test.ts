// /agent-login.sh asks for OAuth tokens for /mcp (issue 42, item 9): run as documented, `curl -fsS
// <server>/agent-login.sh | sh -s -- --scope 'read write'`, it saves an OAuth access token as api_key that the
// MCP server (through the official SDK client) takes as well as the REST API, with its refresh token, and
// `--refresh` renews it; `--start`/`--poll` keep the resource and scope between the two steps. Without
// these options it still saves the spec's API key (agent-login.test.ts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender } from '../../helpers/http.ts';

interface Run {
  /** Resolves with the first user code the script prints; rejects if it ends without one. */
  code: Promise<string>;
  done: Promise<{ status: number | null; stdout: string; stderr: string }>;
}

/** `curl -fsS <server>/agent-login.sh | sh -s -- <args>`, as the script's header and the README say. */
function login(srv: TestServer, args: string[], env: Record<string, string>): Run {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('sh', ['-c', `curl -fsS '${srv.url}/agent-login.sh' | sh -s -- ${quoted}`], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let found: (code: string) => void;
  let ended: (err: Error) => void;
  const code = new Promise<string>((resolve, reject) => ((found = resolve), (ended = reject)));
  code.catch(() => {}); // awaited only by the tests that wait for a code
  child.stdout.on('data', (d) => {
    stdout += d;
    const m = /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(stdout);
    if (m) found(m[1]);
  });
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (status) => {
      ended(new Error(`agent-login.sh ended (${status}) without a code: ${stderr}`));
      resolve({ status, stdout, stderr });
    }),
  );
  return { code, done };
}

let srv: TestServer;
let tmp: string;
let person: TestSession;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { DEVICE_POLL_INTERVAL_SECONDS: '1' } });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-agent-login-oauth-'));
  person = await sessionFor(srv, 'shell@example.org', 'Shell User');
});
afterAll(async () => {
  await srv.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const approve = async (userCode: string) => {
  const res = await sender(srv)('/api/device/approve', { method: 'POST', as: person, json: { user_code: userCode, action: 'approve' } });
  expect(res.status).toBe(200);
};

async function mcpWith(token: string): Promise<Client> {
  const client = new Client({ name: 'shell-agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('agent-login.sh --scope', () => {
  it('saves an OAuth access token for /mcp that the MCP server takes, and --refresh renews it', async () => {
    const credentials = path.join(tmp, 'oauth', 'credentials.json');
    const env = { HOME: tmp, KB_CREDENTIALS: credentials };
    const run = login(srv, ['--scope', 'read write'], env);
    const userCode = await run.code;
    // The approval page (through its lookup) shows what the device asks for.
    expect((await (await srv.get(`/api/device/lookup?user_code=${userCode}`)).json()).scope).toBe('read write');
    await approve(userCode);
    const { status, stdout, stderr } = await run.done;
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toContain(`An OAuth access token for ${srv.url}/mcp (scope: read write)`);
    expect(stdout).toContain('sh -s -- --refresh');

    expect(fs.statSync(credentials).mode & 0o777).toBe(0o600);
    const saved = read(credentials);
    expect(Object.keys(saved).sort()).toEqual(['api_key', 'client_id', 'expires_at', 'issued_at', 'refresh_token', 'resource', 'scope', 'server', 'user_email']);
    expect(saved).toMatchObject({ server: srv.url, user_email: 'shell@example.org', scope: 'read write', resource: `${srv.url}/mcp` });
    expect(saved.api_key).toMatch(/^oat_/);
    expect(saved.refresh_token).toMatch(/^ort_/);
    expect(saved.client_id).toMatch(/^client_/);
    expect(Date.parse(saved.expires_at) - Date.parse(saved.issued_at)).toBe(3600_000);
    expect(stdout).not.toContain(saved.api_key);
    expect(stdout).not.toContain(saved.refresh_token);

    // One login: the saved token acts at /mcp through the SDK client, and on the REST API.
    const video = (await (await srv.get('/api/videos?limit=1')).json()).items[0].video_id;
    const mcp = await mcpWith(saved.api_key);
    const wrote = await mcp.callTool({ name: 'comment', arguments: { entity_type: 'video', entity_id: video, body: 'From the shell, through MCP.' } });
    expect(wrote.isError, JSON.stringify(wrote.content)).toBeFalsy();
    expect(wrote.structuredContent).toMatchObject({ author: { id: person.userId } });
    await mcp.close();
    expect(await (await srv.get('/api/auth/me', { headers: { Authorization: `Bearer ${saved.api_key}` } })).json()).toMatchObject({ authenticated: true, user: { id: person.userId } });

    // The access token lasts an hour: --refresh swaps both tokens (the refresh token rotates).
    const renewed = await login(srv, ['--refresh'], env).done;
    expect(renewed.stderr).toBe('');
    expect(renewed.status).toBe(0);
    expect(renewed.stdout).toMatch(/^Renewed\./);
    const after = read(credentials);
    expect(fs.statSync(credentials).mode & 0o777).toBe(0o600);
    expect(after).toMatchObject({ server: srv.url, user_email: 'shell@example.org', scope: 'read write', resource: `${srv.url}/mcp`, client_id: saved.client_id });
    expect(after.api_key).toMatch(/^oat_/);
    expect(after.api_key).not.toBe(saved.api_key);
    expect(after.refresh_token).not.toBe(saved.refresh_token);
    const again = await mcpWith(after.api_key);
    expect((await again.listTools()).tools.map((t) => t.name)).toContain('comment');
    await again.close();
  }, 30_000);

  it('in two steps keeps the resource and scope it asked for; --refresh of an API key says what to do', async () => {
    const credentials = path.join(tmp, 'two', 'credentials.json');
    const env = { HOME: tmp, KB_CREDENTIALS: credentials };
    const started = await login(srv, ['--start', `--resource=${srv.url}/mcp`, '--scope', 'read'], env).done;
    expect(started.stderr).toBe('');
    expect(started.status).toBe(0);
    await approve(/enter the code ([A-Z]{4}-[A-Z]{4})/.exec(started.stdout)![1]);
    const polled = await login(srv, ['--poll'], env).done;
    expect(polled.stderr).toBe('');
    expect(polled.status).toBe(0);
    expect(fs.existsSync(`${credentials}.pending`)).toBe(false);
    const saved = read(credentials);
    expect(saved).toMatchObject({ scope: 'read', resource: `${srv.url}/mcp` });
    // A read-only token: /mcp takes it, and a tool that acts asks for the write scope.
    const res = await srv.get('/mcp', {
      method: 'POST',
      headers: { Authorization: `Bearer ${saved.api_key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'comment', arguments: {} } }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/insufficient_scope.*scope="read write"/);

    // A resource the server does not serve: the device flow's refusal, nothing saved.
    const elsewhere = path.join(tmp, 'elsewhere', 'credentials.json');
    const refused = await login(srv, ['--resource', 'https://elsewhere.example/mcp'], { HOME: tmp, KB_CREDENTIALS: elsewhere }).done;
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/did not start a sign-in/);
    expect(fs.existsSync(elsewhere)).toBe(false);

    // An API key file has nothing to refresh.
    const keyFile = path.join(tmp, 'key', 'credentials.json');
    fs.mkdirSync(path.dirname(keyFile), { recursive: true });
    fs.writeFileSync(keyFile, JSON.stringify({ server: srv.url, api_key: 'kb_x', user_email: 'a@example.org', issued_at: '2026-01-01T00:00:00Z' }), { mode: 0o600 });
    const nothing = await login(srv, ['--refresh'], { HOME: tmp, KB_CREDENTIALS: keyFile }).done;
    expect(nothing.status).toBe(1);
    expect(nothing.stderr).toMatch(/needs no refresh .*--scope 'read write'/);
  }, 30_000);
});
