// npm run audit:verify with a pinned key (--key) and a state file (--state) (issue 15, item 11): someone with
// file access to DATA_DIR, where the signing key sits beside the database, rewrites an event, rebuilds the
// tree and re-signs every checkpoint, or cuts the log back. Everything the server then serves verifies; the
// verifier that remembers what it accepted before says FAIL all the same.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { checkpointBody, createSigner, loadOrCreateKey, signNote, verifierKey } from '../../src/lib/data/audit/checkpoint.ts';
import { MemoryTree, leafHash } from '../../src/lib/data/audit/merkle.ts';
import { canonicalJson } from '../../src/lib/data/audit/canonical.ts';

// Async: the server under test lives in this process, so a blocking child call would deadlock it.
const exec = promisify(execFile);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-audit-verify-'));

/** `npm run audit:verify -- …`, the documented entry point: its exit code, stdout and stderr. */
async function verify(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { BASE_URL: _vite, ...env } = process.env;
  try {
    // Killed past 30 s (an honest run takes a few): a verifier that never ends fails its test, not the suite.
    const r = await exec('npm', ['run', '--silent', 'audit:verify', '--', ...args], { timeout: 30_000, killSignal: 'SIGKILL', env: { ...env, KB_NODE_QUIET: '1', npm_config_loglevel: 'error' } });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let srv: TestServer;
let key: string;
const keyFile = path.join(work, 'published-verifier-key.txt');
const N = 57;

beforeAll(async () => {
  srv = await startTestServer({ env: { AUDIT_CHECKPOINT_EVERY: '20', AUDIT_CHECKPOINT_INTERVAL_SECONDS: '3600' } });
  await srv.db.transaction(async () => {
    for (let i = 1; i <= N; i++) await srv.audit.append({ kind: 'comment.create', subjectType: 'comment', subjectId: `c${i}`, actor: { userId: 'u1' }, data: { i } });
  });
  await srv.audit.checkpointNow();
  // The operator publishes the verifier key where the server cannot change it; a verifier keeps a copy.
  key = ((await (await srv.get('/api/audit/pubkey')).json()) as { verifier_key: string }).verifier_key;
  fs.writeFileSync(keyFile, `${key}\n`);
});
afterAll(async () => {
  await srv?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

/**
 * What an attacker with the DATA_DIR can do: change history with the guards lifted, rebuild every stored
 * hash from the entries, and re-sign a checkpoint at each size the log had, with the log's own key.
 */
function rewriteHistory(change: (raw: Database.Database) => void) {
  const raw = new Database(path.join(srv.dataDir, 'kb.sqlite'));
  const guards = raw.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'audit_%'").all();
  for (const g of guards) raw.exec(`DROP TRIGGER ${g.name}`);
  raw.transaction(() => {
    change(raw);
    const tree = new MemoryTree();
    raw.exec('DELETE FROM audit_tree');
    const insert = raw.prepare('INSERT INTO audit_tree (level, idx, hash) VALUES (?, ?, ?)');
    for (const entry of raw.prepare<[], string>('SELECT entry FROM audit_events ORDER BY seq').pluck().all()) {
      const before = tree.size;
      tree.append(leafHash(entry));
      for (let level = 0; (before + 1) % 2 ** level === 0; level++) insert.run(level, (before + 1) / 2 ** level - 1, tree.read(level, (before + 1) / 2 ** level - 1));
    }
    const origin = raw.prepare<[], string>('SELECT origin FROM audit_log_meta').pluck().get()!;
    const signer = createSigner(origin, loadOrCreateKey(path.join(srv.dataDir, 'keys', 'audit-ed25519.pem')));
    const sizes = raw.prepare<[], number>('SELECT tree_size FROM audit_checkpoints ORDER BY tree_size').pluck().all();
    raw.exec('DELETE FROM audit_checkpoints');
    for (const size of sizes) {
      const root = tree.root(size);
      raw.prepare('INSERT INTO audit_checkpoints (tree_size, root_hash, note, created_at) VALUES (?, ?, ?, ?)').run(size, root, signNote(checkpointBody(origin, size, root), signer), new Date().toISOString());
    }
  })();
  for (const g of guards) raw.exec(g.sql);
  raw.close();
}

describe('npm run audit:verify with --key and --state', () => {
  const state = path.join(work, 'state.json');

  it('passes on the honest log and records the checkpoint it verified', async () => {
    const r = await verify(srv.url, '--key', keyFile, '--state', state);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`OK: ${N} events, 3 signed checkpoints verified`);
    const saved = JSON.parse(fs.readFileSync(state, 'utf8'));
    expect(saved).toMatchObject({ verifier_key: key, tree_size: N, checkpoint: await (await srv.get('/api/audit/checkpoint')).text() });
    // Again, the key given as itself rather than as a file.
    expect((await verify(srv.url, '--key', key, '--state', state)).code).toBe(0);
  });

  it('fails on a key other than the pinned one, which the server’s own key would not catch', async () => {
    const other = verifierKey(createSigner(key.split('+')[0], generateKeyPairSync('ed25519').privateKey));
    const r = await verify(srv.url, '--key', other);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL: checkpoint 20: signature does not verify/);
    const unpinned = await verify(srv.url);
    expect(unpinned.code).toBe(0);
    expect(unpinned.stderr).toMatch(/the verifier key came from the server itself/);
  });

  it('detects a log rewritten and re-signed with the same key (a fork), which verifies on its own', async () => {
    const kept = fs.readFileSync(state, 'utf8');
    rewriteHistory((raw) => {
      const e = JSON.parse(raw.prepare('SELECT entry FROM audit_events WHERE seq = 33').pluck().get() as string);
      e.data = { i: 'rewritten' };
      raw.prepare('UPDATE audit_events SET entry = ? WHERE seq = 33').run(canonicalJson(e));
    });
    // Signatures, roots and proofs all check out: without memory, the verifier cannot tell.
    const fresh = await verify(srv.url, '--key', keyFile);
    expect(fresh.code).toBe(0);

    const r = await verify(srv.url, '--key', keyFile, '--state', state);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL: fork: the log now gives tree size 57 the root \S+, but the checkpoint verified before \(state file\) signed \S+/);
    // The state keeps the checkpoint it had: the evidence, and what the next run compares with.
    expect(fs.readFileSync(state, 'utf8')).toBe(kept);
  });

  it('detects a log cut back (a rollback)', async () => {
    const fresh = path.join(work, 'state-rollback.json');
    expect((await verify(srv.url, '--key', keyFile, '--state', fresh)).code).toBe(0);
    rewriteHistory((raw) => {
      raw.exec('DELETE FROM audit_events WHERE seq > 40');
      raw.exec('DELETE FROM audit_checkpoints WHERE tree_size > 40');
    });
    expect((await verify(srv.url, '--key', keyFile)).code).toBe(0);
    const r = await verify(srv.url, '--key', keyFile, '--state', fresh);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL: rollback: the log's latest checkpoint is of tree size 40, but one of tree size 57 was verified before/);
  });

  it('refuses a state written for another key, and a command line without a base URL', async () => {
    const other = verifierKey(createSigner(key.split('+')[0], generateKeyPairSync('ed25519').privateKey));
    const r = await verify(srv.url, '--key', other, '--state', state);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the state file was written for the key/);
    expect((await verify('--key', key)).code).toBe(2);
  });

  it('stops with an error on a server whose paging never advances, instead of asking forever', async () => {
    // A hostile audit endpoint: every page names the page it is on (or an earlier one) as the next.
    const answers: Record<string, (after: number) => unknown> = {
      'the same page again': (after) => ({ items: [], next_after_seq: after }),
      'an earlier page': (after) => ({ items: [{ seq: 1 }], next_after_seq: Math.max(0, after - 1) }),
      'empty pages that move on': (after) => ({ items: [], next_after_seq: after + 1 }),
      'a next that is no number': () => ({ items: [{ seq: 1 }], next_after_seq: '2' }),
    };
    for (const [name, answer] of Object.entries(answers)) {
      const server = http.createServer((req, res) => {
        const u = new URL(req.url ?? '/', 'http://x');
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(answer(Number(u.searchParams.get('after_seq') ?? 0))));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const r = await verify(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, '--key', key);
        expect(r.code, name).toBe(2);
        expect(r.stderr, name).toMatch(/next_after_seq .* does not advance past \d+.*stopped/);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  }, 150_000);
});
