// bench writes: comments created per second through the real server (POST /api/comments, each comment and
// its audit event in one transaction), under 1, 8 and 32 concurrent clients (autocannon), with p50/p99
// latency and the p50/p99 of /api/health probed every 20 ms during each load; then reads of one comment
// per second (GET /api/comments/{id}, 8 clients); side by side for three set-ups: SQLite (one instance), PostgreSQL with one instance, and
// PostgreSQL with two instances behind one origin (same BASE_URL and KEYS_DIR, own DATA_DIRs; the clients'
// connections alternate between them). PostgreSQL is a throwaway cluster (scripts/lib/postgres-cluster.ts)
// with fsync and synchronous_commit on; without PostgreSQL installed only the SQLite rows are measured.
// After each set-up: stored comments = comment.create audit events, audit seq 1..n without gaps, and
// `npm run audit:verify` against the running server.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { openDatabase } from '../../src/lib/data/db/index.ts';
import { auditOrigin } from '../../src/lib/data/audit/index.ts';
import { seedPerson } from './seed.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { postgresUnavailable, startCluster, type PostgresCluster } from '../lib/postgres-cluster.ts';
import { startChild, table, type ChildServer } from './util.ts';

const CLIENTS = [1, 8, 32];
const READ_CLIENTS = 8;
const BASE_URL = 'http://127.0.0.1';
/** PostgreSQL's durable defaults, said explicitly: every commit waits for its WAL to reach the disk. */
const PG_SETTINGS = { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' };

interface Row {
  clients: number;
  per_second: number;
  p50_ms: number;
  p99_ms: number;
  ok_2xx: number;
  non_2xx: number;
  errors: number;
  /** /api/health latency while the writes ran. */
  health_p50_ms: number;
  health_p99_ms: number;
}

interface SetupResult {
  name: string;
  instances: number;
  rows: Row[];
  /** GET /api/comments/{id} per second. */
  reads_per_second: number;
  comments_stored: number;
  audit_events: number;
  audit_size: number;
  audit_seq_max: number;
  audit_seq_gapless: boolean;
  audit_verify: string;
  consistent: boolean;
}

/** Runs `fn` with process.env changed by `vars` (undefined removes), then puts it back. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, val] of Object.entries(v)) {
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
    }
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(saved);
  }
}

/**
 * Probes `url` every `everyMs` until stopped; the latencies, sorted. The probe runs in a thread of its own:
 * in this thread autocannon's clients keep the event loop busy, and a probe here measured the wait for
 * this process's own loop as well as the server's answer (p99 17 ms at one client on a quiet machine).
 */
function probeWhile(url: string, everyMs: number): { stop(): Promise<number[]> } {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
    const times = [];
    let running = true;
    parentPort.on('message', () => (running = false));
    (async () => {
      while (running) {
        const t = performance.now();
        await fetch(workerData.url).then((r) => r.arrayBuffer()).catch(() => undefined);
        times.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, workerData.everyMs));
      }
      parentPort.postMessage(times);
    })();`,
    { eval: true, workerData: { url, everyMs } },
  );
  const done = new Promise<number[]>((resolve, reject) => {
    worker.once('message', (times: number[]) => resolve(times));
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const times = await done;
      await worker.terminate();
      return times.sort((a, b) => a - b);
    },
  };
}

const pct = (sorted: number[], p: number) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10 : 0);

/** Comments per second under `connections` clients, with /api/health's latency meanwhile. */
async function writeRow(urls: string[], healthUrl: string, secret: string, video: string, connections: number, seconds: number): Promise<Row> {
  const probe = probeWhile(healthUrl, 20);
  // With several URLs autocannon gives connection i the URL i mod n: the load alternates between the
  // instances, and one histogram holds every request's latency. (Its run() takes an array of URLs,
  // node_modules/autocannon/lib/run.js; its types only say string.)
  const r = await autocannon({
    url: (urls.length === 1 ? urls[0] : urls) as string,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    body: JSON.stringify({ entity_type: 'video', entity_id: video, body: 'A benchmark comment with a few words in it.' }),
  });
  const health = await probe.stop();
  return { clients: connections, per_second: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, ok_2xx: r['2xx'], non_2xx: r.non2xx, errors: r.errors, health_p50_ms: pct(health, 50), health_p99_ms: pct(health, 99) };
}

/** GET /api/comments/{id} per second for one comment, the clients alternating between the instances. */
async function readRate(baseUrls: string[], secret: string, video: string, seconds: number): Promise<number> {
  const made = await fetch(`${baseUrls[0]}/api/comments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    body: JSON.stringify({ entity_type: 'video', entity_id: video, body: 'The comment the read benchmark reads.' }),
  });
  const { comment_id } = (await made.json()) as { comment_id: string };
  const urls = baseUrls.map((u) => `${u}/api/comments/${comment_id}`);
  const r = await autocannon({ url: (urls.length === 1 ? urls[0] : urls) as string, connections: READ_CLIENTS, duration: seconds });
  return r.non2xx + r.errors > 0 ? -1 : Math.round(r.requests.average);
}

function filesystemOf(dir: string): string {
  const r = spawnSync('stat', ['-f', '-c', '%T', dir], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
}

/** One set-up: a user and API key made directly in its database, `instances` servers on it, the load, the checks. */
async function measure(opts: { name: string; slug: string; root: string; databaseUrl?: string; instances: number; seconds: number; video: string }): Promise<SetupResult> {
  const dir = path.join(opts.root, opts.slug);
  const keysDir = path.join(dir, 'keys'); // shared by every instance, as behind one origin they must
  const dataDirs = Array.from({ length: opts.instances }, (_, i) => path.join(dir, `instance-${i + 1}`));
  const target = opts.databaseUrl ?? path.join(dataDirs[0], 'kb.sqlite');
  const env = { KEYS_DIR: keysDir, AUDIT_ORIGIN: undefined, DATABASE_URL: opts.databaseUrl };

  const secret = (await withEnv(env, () => seedPerson(target, dataDirs[0], auditOrigin(BASE_URL)))).apiKey;

  const servers: ChildServer[] = [];
  const rows: Row[] = [];
  let readsPerSecond = 0;
  let auditVerify = 'not run';
  try {
    for (const dataDir of dataDirs) {
      servers.push(
        await startChild('api/server.ts', [], {
          ...env,
          DATA_DIR: dataDir,
          DIST_DIR: path.join(dir, 'no-dist'),
          PORT: '0',
          HOST: '127.0.0.1',
          BASE_URL,
          WRITE_RATE_LIMIT_PER_MINUTE: '100000000',
          TEST_DATABASE: undefined,
        }),
      );
    }
    const urls = servers.map((s) => `${s.url}/api/comments`);
    for (const connections of CLIENTS) rows.push(await writeRow(urls, `${servers[0].url}/api/health`, secret, opts.video, connections, opts.seconds));
    readsPerSecond = await readRate(servers.map((s) => s.url), secret, opts.video, opts.seconds);
    // The log as a client outside sees it: signatures, roots recomputed from the events, consistency.
    const v = spawnSync(process.execPath, ['scripts/audit-verify.ts', servers[0].url], { encoding: 'utf8', timeout: 120_000 });
    const said = `${v.stdout ?? ''}`.trim().split('\n').pop() ?? '';
    auditVerify = v.status === 0 ? said || 'OK' : `FAILED (exit ${v.status}): ${`${v.stdout ?? ''}${v.stderr ?? ''}`.trim().split('\n').slice(-3).join(' / ')}`;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }

  const check = await withEnv(env, () => openDatabase(target, { applicationName: 'kb-bench-check' }));
  let counts: { comments: number; events: number; size: number; min: number | null; max: number | null };
  try {
    const audit = (await check.prepare('SELECT COUNT(*) AS size, MIN(seq) AS min, MAX(seq) AS max FROM audit_events').get()) as { size: number | string; min: number | string | null; max: number | string | null };
    counts = {
      comments: Number(await check.prepare('SELECT COUNT(*) FROM comments').pluck().get()),
      events: Number(await check.prepare("SELECT COUNT(*) FROM audit_events WHERE kind = 'comment.create'").pluck().get()),
      size: Number(audit.size),
      min: audit.min === null ? null : Number(audit.min),
      max: audit.max === null ? null : Number(audit.max),
    };
  } finally {
    await check.close();
  }
  // seq is the primary key (no duplicates): 1..max holding max rows means no gaps.
  const gapless = counts.size === 0 || (counts.min === 1 && counts.max === counts.size);
  return {
    name: opts.name,
    instances: opts.instances,
    rows,
    reads_per_second: readsPerSecond,
    comments_stored: counts.comments,
    audit_events: counts.events,
    audit_size: counts.size,
    audit_seq_max: counts.max ?? 0,
    audit_seq_gapless: gapless,
    audit_verify: auditVerify,
    consistent: counts.comments === counts.events && gapless && auditVerify.startsWith('OK'),
  };
}

export async function runWritesBench(args: string[]): Promise<Record<string, unknown>> {
  const seconds = Number(args[0] ?? 8);
  if (!(seconds > 0)) throw new Error(`bench writes: seconds per row must be a positive number, not "${args[0]}"`);
  const video = loadSnapshot(path.resolve('content')).videos[0].video_id;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-writes-'));
  const setups: SetupResult[] = [];
  let postgres: { version: string; settings: Record<string, string>; filesystem: string } | { skipped: string };
  try {
    setups.push(await measure({ name: 'SQLite, one instance', slug: 'sqlite', root, instances: 1, seconds, video }));

    const unavailable = postgresUnavailable();
    if (unavailable) {
      postgres = { skipped: unavailable };
    } else {
      let cluster: PostgresCluster | undefined;
      try {
        cluster = await startCluster({ settings: PG_SETTINGS, stopMode: 'fast', tmpPrefix: 'kb-bench-pg-' });
        postgres = { version: cluster.version, settings: cluster.settings, filesystem: filesystemOf(os.tmpdir()) };
        setups.push(await measure({ name: 'PostgreSQL, one instance', slug: 'pg-one', root, databaseUrl: await cluster.createDatabase('bench_one'), instances: 1, seconds, video }));
        setups.push(await measure({ name: 'PostgreSQL, two instances', slug: 'pg-two', root, databaseUrl: await cluster.createDatabase('bench_two'), instances: 2, seconds, video }));
      } finally {
        await cluster?.stop();
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }

  const short = ['sqlite', 'pg1', 'pg2'];
  console.log(`\ncomments created through POST /api/comments (each with its audit event, in one transaction), ${seconds} s per row`);
  console.log(`  sqlite: SQLite, one instance: WAL, synchronous=NORMAL (a commit survives a crash of the process, but is not flushed to disk on each commit; the WAL is synced at checkpoints, so an OS crash or power loss can lose the last commits)`);
  if ('skipped' in postgres) {
    console.log(`  PostgreSQL skipped: ${postgres.skipped}`);
  } else {
    const s = postgres.settings;
    console.log(`  ${postgres.version}`);
    console.log(`    throwaway cluster on loopback (temporary folder, ${postgres.filesystem} file system): fsync=${s.fsync}, synchronous_commit=${s.synchronous_commit} (each commit waits for its WAL to be flushed to disk), full_page_writes=${s.full_page_writes}, wal_sync_method=${s.wal_sync_method}, shared_buffers=${s.shared_buffers}`);
    console.log(`  pg1: PostgreSQL, one instance`);
    console.log(`  pg2: PostgreSQL, two instances behind one origin (same BASE_URL and KEYS_DIR); the clients' connections alternate between them (1 client: the first only)`);
  }
  console.log(`  /s: comments created per second; p50, p99: latency in ms; health p50, p99: GET /api/health (every 20 ms, first instance) during the load, in ms\n`);
  console.log(
    table(
      CLIENTS.map((clients, i) => {
        const row: Record<string, number> = { clients };
        setups.forEach((setup, j) => {
          const r = setup.rows[i];
          row[`${short[j]} /s`] = r.per_second;
          row[`${short[j]} p50`] = r.p50_ms;
          row[`${short[j]} p99`] = r.p99_ms;
          row[`${short[j]} health p50`] = r.health_p50_ms;
          row[`${short[j]} health p99`] = r.health_p99_ms;
        });
        return row;
      }),
    ),
  );
  console.log(`\nreads of one comment (GET /api/comments/{id}, ${READ_CLIENTS} clients): ${setups.map((s, j) => `${short[j]} ${s.reads_per_second}/s`).join(', ')}`);
  console.log('');
  for (const s of setups) {
    const failed = s.rows.reduce((n, r) => n + r.non_2xx + r.errors, 0);
    const created = s.rows.reduce((n, r) => n + r.ok_2xx, 0);
    console.log(
      `${s.consistent ? 'ok  ' : 'FAIL'} ${s.name}: ${created} requests answered 2xx${failed ? `, ${failed} non-2xx or errors` : ''}; ${s.comments_stored} comments stored, ${s.audit_events} comment.create audit events; ` +
        `audit seq 1..${s.audit_seq_max} over ${s.audit_size} events, ${s.audit_seq_gapless ? 'no gaps' : 'GAPS'}; audit:verify ${s.audit_verify}`,
    );
  }
  console.log(`(a request still in flight when a row ends is stored but not counted: up to ${CLIENTS.reduce((a, b) => a + b, 0)} more comments than 2xx answers)`);
  if (setups.some((s) => !s.consistent)) process.exitCode = 1;

  return {
    seconds_per_row: seconds,
    sqlite: { journal_mode: 'wal', synchronous: 'normal' },
    postgres,
    setups: setups.map((s) => ({ ...s })),
  };
}
