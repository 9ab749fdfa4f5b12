// /agent-login.sh in two steps (issue 16, item 10), for agents whose shell shows output only when a
// command ends: --start prints the code and link and exits, keeping the pending sign-in in a 0600 file;
// --poll waits for the approval and saves the key. Run by `sh` with only curl, as people run it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor } from '../../helpers/auth.ts';
import { sender } from '../../helpers/http.ts';

function run(file: string, args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn('sh', [file, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

let srv: TestServer;
let tmp: string;
let script: string;
beforeAll(async () => {
  srv = await startTestServer({ ownOrigin: true, env: { DEVICE_POLL_INTERVAL_SECONDS: '1' } });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-agent-login-2-'));
  script = path.join(tmp, 'agent-login.sh');
  fs.writeFileSync(script, await (await srv.get('/agent-login.sh')).text());
});
afterAll(async () => {
  await srv.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('agent-login.sh --start, then --poll', () => {
  it('prints the code and exits at once, then finishes the sign-in in a second command', async () => {
    const credentials = path.join(tmp, 'one', 'credentials.json');
    const env = { HOME: tmp, KB_CREDENTIALS: credentials };
    const started = await run(script, ['--start'], env);
    expect(started.stderr).toBe('');
    expect(started.status).toBe(0);
    const code = /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(started.stdout)![1];
    expect(started.stdout).toContain(`${srv.url}/device?user_code=${code}`);
    expect(started.stdout).toContain('sh -s -- --poll');
    const pending = `${credentials}.pending`;
    expect(fs.statSync(pending).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(credentials)).toBe(false);
    // The device_code is a secret: kept in the file, never printed.
    const kept = JSON.parse(fs.readFileSync(pending, 'utf8'));
    expect(started.stdout).not.toContain(kept.device_code);

    const person = await sessionFor(srv, 'two-step@example.org');
    expect((await sender(srv)('/api/device/approve', { method: 'POST', as: person, json: { user_code: code, action: 'approve' } })).status).toBe(200);
    const polled = await run(script, ['--poll'], env);
    expect(polled.stderr).toBe('');
    expect(polled.status).toBe(0);
    expect(polled.stdout).toContain('Signed in as two-step@example.org');
    expect(fs.existsSync(pending)).toBe(false);
    expect(fs.statSync(credentials).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(fs.readFileSync(credentials, 'utf8'));
    const me = await (await srv.get('/api/auth/me', { headers: { Authorization: `Bearer ${saved.api_key}` } })).json();
    expect(me).toMatchObject({ authenticated: true, user: { id: person.userId } });
  });

  it('--poll says what to do when there is nothing pending, and forgets a denied sign-in', async () => {
    const credentials = path.join(tmp, 'two', 'credentials.json');
    const env = { HOME: tmp, KB_CREDENTIALS: credentials };
    const nothing = await run(script, ['--poll'], env);
    expect(nothing.status).toBe(1);
    expect(nothing.stderr).toMatch(/run with --start first/);
    const started = await run(script, ['--start'], env);
    const code = /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(started.stdout)![1];
    await sender(srv)('/api/device/approve', { method: 'POST', as: await sessionFor(srv, 'no@example.org'), json: { user_code: code, action: 'deny' } });
    const denied = await run(script, ['--poll'], env);
    expect(denied.status).toBe(2);
    expect(fs.existsSync(`${credentials}.pending`)).toBe(false);
    expect(fs.existsSync(credentials)).toBe(false);
    expect((await run(script, ['--bogus'], env)).status).toBe(1);
    expect((await run(script, ['--help'], env)).stdout).toMatch(/--start/);
  });
});
