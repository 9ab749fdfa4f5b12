// Several real server processes (`node api/server.ts`) on one PostgreSQL database, as a deployment runs them
// behind one origin: the same BASE_URL (instance 0's real address, so OAuth clients can check the issuer),
// the same KEYS_DIR, one DATABASE_URL, and a DATA_DIR of their own each.
//
// Use (the cluster from test/helpers/postgres.ts, once per file):
//   const group = await startInstances(pg, { count: 2, seed: ({ identity }) => …keys… });
//   group.instances[0].url … group.query('SELECT …') … group.instances[0].kill() … await group.stop();
// or, for the write tests, `const w = writersOnTwoInstances(names)` in a describe block (it starts both).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { openDatabase, type Db } from '../../src/lib/data/db/index.ts';
import { auditOrigin, createAuditLog, type AuditLog } from '../../src/lib/data/audit/index.ts';
import { createIdentity, type Identity } from '../../src/lib/data/identity/index.ts';
import { indexDir } from '../../src/lib/search/manifest.ts';
import { startPostgres, type PgCluster } from '../helpers/postgres.ts';
import { freePort } from '../helpers/server.ts';
import { fixtureContent } from '../helpers/content.ts';

export interface Instance {
  /** The instance's own address (http://127.0.0.1:<port>). */
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** What the process wrote to stdout and stderr (the last 50 kB), for failure messages. */
  output(): string;
  /** SIGKILL, and resolves when the process is gone. */
  kill(): Promise<void>;
}

export interface SeedContext {
  db: Db;
  audit: AuditLog;
  identity: Identity;
}

/**
 * A seed step: signs in one person per name (e-mail `<name>@example.org`) and returns an API key of each,
 * in order.
 * @example seed: async ({ identity }) => keys.push(...(await peopleWithKeys(identity, ['busy', 'calm'])))
 */
export async function peopleWithKeys(identity: Identity, names: string[]): Promise<string[]> {
  const keys: string[] = [];
  for (const name of names) {
    const { user } = await identity.signIn({ issuer: 'https://idp.test', subject: name, email: `${name}@example.org`, emailVerified: true, name });
    keys.push((await identity.createApiKey(user.id, { name: 'test', expiresAt: null })).secret);
  }
  return keys;
}

export interface InstanceGroup {
  instances: Instance[];
  /** The public origin all instances share (BASE_URL). */
  baseUrl: string;
  databaseUrl: string;
  keysDir: string;
  /** One query on the shared database, through its own short-lived connection. */
  query<T extends Record<string, unknown> = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Opens the database as the servers do (with the audit log and identity over the shared keys), runs fn, closes it. */
  withDb<T>(fn: (ctx: SeedContext) => Promise<T>): Promise<T>;
  /** SIGTERM every live instance (SIGKILL after 10 s), and removes the folders. */
  stop(): Promise<void>;
}

export const TEST_ENV = {
  // Load tests: one user writes many times a minute; searches and registrations come from one address.
  WRITE_RATE_LIMIT_PER_MINUTE: '100000',
  SEARCH_RATE_LIMIT_PER_MINUTE: '100000',
  LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
  OAUTH_REGISTRATIONS_PER_HOUR: '100000',
  // Checkpoints soon after writes, so the latest one covers the whole log quickly.
  AUDIT_CHECKPOINT_INTERVAL_SECONDS: '1',
  // A smaller embedder builds the first instance's search index faster; these tests search by keyword.
  EMBEDDING_DIMENSIONS: '32',
};


/** The environment a child server gets: ours without what vitest or the caller set that would leak in. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === 'BASE_URL' || k === 'DATABASE_URL' || k === 'KEYS_DIR' || k === 'TEST_DATABASE' || k.startsWith('PG') || k.startsWith('VITEST')) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Should this test process end without stop(), its servers must not outlive it.
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
}

function startOne(port: number, env: Record<string, string>, dataDir: string): Promise<Instance> {
  const child = spawn(process.execPath, ['api/server.ts'], { env: childEnv({ ...env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' }), stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);
  let out = '';
  const append = (d: Buffer) => {
    out = (out + d.toString()).slice(-50_000);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server on port ${port} did not listen within 120 s:\n${out}`));
    }, 120_000);
    const onData = () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      resolve({
        url: m[1],
        dataDir,
        child,
        output: () => out,
        kill: async () => {
          child.kill('SIGKILL');
          await exited;
        },
      });
    };
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`server on port ${port} exited (${code ?? signal}) before listening:\n${out}`));
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * A fresh database on `cluster`, `seed` run on it (users, keys) before any server starts, then `count`
 * servers on it. The first builds its search index; the others start from a copy of it.
 */
export async function startInstances(
  cluster: PgCluster,
  opts: { count?: number; env?: Record<string, string>; seed?: (ctx: SeedContext) => Promise<unknown> } = {},
): Promise<InstanceGroup> {
  const count = opts.count ?? 2;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-multi-'));
  const keysDir = path.join(root, 'keys');
  const databaseUrl = await cluster.createDatabase();
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const baseUrl = `http://127.0.0.1:${ports[0]}`;
  const env: Record<string, string> = {
    BASE_URL: baseUrl,
    DATABASE_URL: databaseUrl,
    KEYS_DIR: keysDir,
    CONTENT_DIR: fixtureContent(),
    DIST_DIR: path.join(root, 'no-dist'),
    ...TEST_ENV,
    ...opts.env,
  };

  const withDb = async <T>(fn: (ctx: SeedContext) => Promise<T>): Promise<T> => {
    // The test process has no KEYS_DIR, so it looks for keys in <dataDir>/keys: with dataDir = root, that is
    // the shared folder itself (the audit signing and pseudonym keys the servers then load).
    if (process.env.KEYS_DIR) throw new Error('startInstances: unset KEYS_DIR in the test environment');
    const db = await openDatabase(databaseUrl);
    try {
      const audit = await createAuditLog(db, { dataDir: root, origin: auditOrigin(baseUrl), checkpointEvery: 100, checkpointIntervalSeconds: 60 });
      const identity = createIdentity(db, audit, { keyPrefix: 'kb_', adminEmails: [], moderatorEmails: [], sessionTtlHours: 1 });
      return await fn({ db, audit, identity });
    } finally {
      await db.close();
    }
  };

  const instances: Instance[] = [];
  const stop = async () => {
    await Promise.all(
      instances.map(async (i) => {
        if (i.child.exitCode !== null || i.child.signalCode !== null) return;
        const gone = new Promise<void>((r) => i.child.once('exit', () => r()));
        i.child.kill('SIGTERM');
        const t = setTimeout(() => i.child.kill('SIGKILL'), 10_000);
        await gone;
        clearTimeout(t);
      }),
    );
    fs.rmSync(root, { recursive: true, force: true });
  };

  try {
    await withDb(async (ctx) => opts.seed?.(ctx));
    const dataDirs = ports.map((_, i) => path.join(root, `data-${i}`));
    instances.push(await startOne(ports[0], env, dataDirs[0]));
    // The same content and embedder: the others load the first one's index instead of building their own.
    for (const dir of dataDirs.slice(1)) fs.cpSync(indexDir(dataDirs[0]), indexDir(dir), { recursive: true });
    instances.push(...(await Promise.all(ports.slice(1).map((p, i) => startOne(p, env, dataDirs[i + 1])))));
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    instances,
    baseUrl,
    databaseUrl,
    keysDir,
    async query<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as T[];
      } finally {
        await client.end();
      }
    },
    withDb,
    stop,
  };
}

/** `npm run audit:verify -- <url> --key <key>`, the real script: its exit code and output. */
export function auditVerify(url: string, key: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', 'audit:verify', '--', url, '--key', key], { env: childEnv({}), timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A JSON request; the response body parsed (the text when not JSON). Loose on purpose: tests assert its shape. */
export async function call(url: string, init: RequestInit & { json?: unknown } = {}): Promise<{ status: number; body: any }> {
  const { json, ...rest } = init;
  const res = await fetch(url, {
    ...rest,
    headers: { ...(json !== undefined ? { 'Content-Type': 'application/json' } : {}), ...(rest.headers as Record<string, string>) },
    body: json !== undefined ? JSON.stringify(json) : rest.body,
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

/** Every audit event as an instance serves it (GET /api/audit, all pages). */
export async function auditEventsOf(url: string): Promise<{ seq: number; kind: string; subject_id: string; entry: string }[]> {
  const events: { seq: number; kind: string; subject_id: string; entry: string }[] = [];
  for (let after = 0; ; ) {
    const { status, body } = await call(`${url}/api/audit?after_seq=${after}&limit=200`);
    if (status !== 200) throw new Error(`GET ${url}/api/audit: ${status}`);
    events.push(...body.items);
    if (body.next_after_seq === null) return events;
    after = body.next_after_seq;
  }
}

export interface Writers {
  /** The PostgreSQL server under both instances (for outages: pause, resume, restart). */
  cluster: PgCluster;
  group: InstanceGroup;
  /** Instances 0 and 1. */
  a: Instance;
  b: Instance;
  /** An API key per name, in order. */
  keys: string[];
  /** A video of the sample content to comment on. */
  video: string;
}

/**
 * The setup the write tests share, registered as this file's beforeAll/afterAll: one PostgreSQL cluster,
 * two instances (with `env`), a person with an API key per name seeded before they start, and a video to
 * write about. The returned object is filled in by beforeAll.
 * @example const w = writersOnTwoInstances(['busy', 'calm']); … call(`${w.a.url}/api/comments`, …)
 */
export function writersOnTwoInstances(names: string[], opts: { env?: Record<string, string> } = {}): Writers {
  const w = { keys: [] as string[] } as Writers;
  let cluster: PgCluster | undefined;
  beforeAll(async () => {
    cluster = await startPostgres();
    w.cluster = cluster;
    w.group = await startInstances(cluster, { count: 2, env: opts.env, seed: async ({ identity }) => w.keys.push(...(await peopleWithKeys(identity, names))) });
    [w.a, w.b] = w.group.instances;
    const videos = await call(`${w.a.url}/api/videos?limit=1`);
    expect(videos.status).toBe(200);
    w.video = videos.body.items[0].video_id;
    expect(w.video).toBeTruthy();
  });
  afterAll(async () => {
    await w.group?.stop();
    await cluster?.stop();
  });
  return w;
}

/** 1..n */
export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);
