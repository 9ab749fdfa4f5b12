// /agent-login.sh, downloaded from the server and run by `sh` (dash here) with only curl: it prints the
// code and link, polls while a signed-in person approves (or denies) through the API, and on approval
// writes a 0600 credential file whose api_key works. Spawned asynchronously: the server lives in this
// process, so a blocking child would deadlock it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';
import { credentialsFolder } from '../../../src/lib/read/discovery/agent-login.ts';
import { deviceClient } from './helpers.ts';

interface Run {
  /** Resolves with the first user code the script prints. */
  code: Promise<string>;
  done: Promise<{ status: number | null; stdout: string; stderr: string }>;
}

function runScript(file: string, env: Record<string, string>): Run {
  const child = spawn('sh', [file], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let found: (code: string) => void;
  const code = new Promise<string>((resolve) => (found = resolve));
  child.stdout.on('data', (d) => {
    stdout += d;
    const m = /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(stdout);
    if (m) found(m[1]);
  });
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, stderr })),
  );
  return { code, done };
}

async function download(srv: TestServer, dir: string): Promise<string> {
  const res = await srv.get('/agent-login.sh');
  expect(res.status).toBe(200);
  const file = path.join(dir, 'agent-login.sh');
  fs.writeFileSync(file, await res.text());
  const check = spawn('sh', ['-n', file]);
  expect(await new Promise((r) => check.on('close', r))).toBe(0); // parses as POSIX sh
  return file;
}

let srv: TestServer;
let tmp: string;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { DEVICE_POLL_INTERVAL_SECONDS: '1' } });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-agent-login-'));
});
afterAll(async () => {
  await srv.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('agent-login.sh', () => {
  it('signs in with the device flow while a person approves, and writes a 0600 credential file that works', async () => {
    const home = fs.mkdtempSync(path.join(tmp, 'home-'));
    const file = await download(srv, tmp);
    const run = runScript(file, { HOME: home, KB_CLIENT_NAME: 'my "agent"' });
    const userCode = await run.code;

    // The person opens the link, sees what asks, and approves while signed in.
    const dev = deviceClient(srv);
    const person = await sessionFor(srv, 'owner@example.org', 'Olga Owner');
    const seen = await (await dev.lookup(userCode, person.headers)).json();
    expect(seen).toMatchObject({ client_name: 'my agent', client_host: os.hostname(), viewer: { can_approve: true } });
    expect((await dev.decide(userCode, 'approve', person.headers)).status).toBe(200);

    const { status, stdout, stderr } = await run.done;
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toContain(`${srv.url}/device?user_code=${userCode}`);
    expect(stdout).toContain('Signed in as owner@example.org');

    const credentials = path.join(home, '.config', credentialsFolder({ siteName: 'AI Transformation Knowledge Base' } as never), 'credentials.json');
    expect(stdout).toContain(credentials);
    expect(fs.statSync(credentials).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(credentials)).mode & 0o077).toBe(0);
    expect(fs.readdirSync(path.dirname(credentials))).toEqual(['credentials.json']); // no temp file left
    const saved = JSON.parse(fs.readFileSync(credentials, 'utf8'));
    expect(Object.keys(saved).sort()).toEqual(['api_key', 'issued_at', 'server', 'user_email']);
    expect(saved).toMatchObject({ server: srv.url, user_email: 'owner@example.org' });
    expect(saved.api_key).toMatch(/^kb_/);
    expect(Math.abs(Date.parse(saved.issued_at) - Date.now())).toBeLessThan(60_000);
    expect(stdout).not.toContain(saved.api_key);

    const me = await (await srv.get('/api/auth/me', { headers: { Authorization: `Bearer ${saved.api_key}` } })).json();
    expect(me).toMatchObject({ authenticated: true, via: 'api_key', user: { id: person.userId } });
  });

  it('replaces an existing credential file (KB_CREDENTIALS) with a fresh 0600 one', async () => {
    const target = path.join(tmp, 'creds', 'kb.json');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, '{"old":true}', { mode: 0o644 });
    const file = await download(srv, tmp);
    const run = runScript(file, { HOME: tmp, KB_CREDENTIALS: target });
    const userCode = await run.code;
    await deviceClient(srv).decide(userCode, 'approve', (await sessionFor(srv, 'again@example.org')).headers);
    const { status } = await run.done;
    expect(status).toBe(0);
    expect(fs.statSync(target).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(target, 'utf8')).user_email).toBe('again@example.org');
  });

  it('denied: says so, exits 2 and saves nothing', async () => {
    const target = path.join(tmp, 'denied', 'credentials.json');
    const file = await download(srv, tmp);
    const run = runScript(file, { HOME: tmp, KB_CREDENTIALS: target });
    const userCode = await run.code;
    await deviceClient(srv).decide(userCode, 'deny', (await sessionFor(srv, 'nope@example.org')).headers);
    const { status, stderr } = await run.done;
    expect(status).toBe(2);
    expect(stderr).toMatch(/denied/);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('expired: says so and exits 3', async () => {
    const short = await startTestServer({ ownOrigin: true, env: { DEVICE_POLL_INTERVAL_SECONDS: '1', DEVICE_CODE_TTL_SECONDS: '2' } });
    try {
      const file = await download(short, fs.mkdtempSync(path.join(tmp, 'short-')));
      const target = path.join(tmp, 'expired', 'credentials.json');
      const run = runScript(file, { HOME: tmp, KB_CREDENTIALS: target });
      await run.code;
      const { status, stderr } = await run.done;
      expect(status).toBe(3);
      expect(stderr).toMatch(/expired/);
      expect(fs.existsSync(target)).toBe(false);
    } finally {
      await short.stop();
    }
  });

  it('honours slow_down by polling less often', async () => {
    const file = await download(srv, tmp);
    const target = path.join(tmp, 'slow', 'credentials.json');
    const run = runScript(file, { HOME: tmp, KB_CREDENTIALS: target });
    const userCode = await run.code;
    // Make the server see a too-fast poll: one extra poll of our own right after the script's first.
    const row = async () => await srv.db.prepare('SELECT interval, last_poll_at FROM device_requests WHERE user_code = ?').get(userCode.replace('-', '')) as { interval: number; last_poll_at: string | null };
    while (!(await row()).last_poll_at) await new Promise((r) => setTimeout(r, 50));
    await srv.db.prepare('UPDATE device_requests SET interval = 2 WHERE user_code = ?').run(userCode.replace('-', ''));
    // The script's next poll, a second later, is now too fast: slow_down raises the interval to 7 s.
    const before = Date.now();
    while ((await row()).interval === 2 && Date.now() - before < 5000) await new Promise((r) => setTimeout(r, 50));
    expect((await row()).interval).toBe(7);
    const slowedAt = Date.parse((await row()).last_poll_at!);
    await deviceClient(srv).decide(userCode, 'approve', (await sessionFor(srv, 'patient@example.org')).headers);
    const { status } = await run.done;
    expect(status).toBe(0);
    // The next poll came no sooner than the raised interval.
    const consumedAt = Date.parse((await row()).last_poll_at!);
    expect(consumedAt - slowedAt).toBeGreaterThanOrEqual(7000);
  }, 30_000);
});
