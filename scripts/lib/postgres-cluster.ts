// A throwaway PostgreSQL server, for the tests (test/helpers/postgres.ts) and the benches
// (scripts/bench/writes.ts): Debian's binaries (the newest /usr/lib/postgresql/<version>/bin, or PG_BIN_DIR),
// initdb into a temporary folder, pg_ctl on a free loopback port with its unix socket in that folder, no
// system service. stop() stops it and removes the folder; should the process die first, a small watchdog
// does. As root, initdb refuses to run, so the cluster belongs to the `postgres` user (runuser).
// No vitest here: the benches import it too. The caller says which settings the server runs with (the
// tests turn fsync off, the writes bench keeps PostgreSQL's durable defaults).
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface PostgresCluster {
  /** postgres:// URL of a database on this server, as user postgres (trust authentication, loopback). */
  url(database: string): string;
  /** Creates a fresh, empty database (a generated name unless given) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** `SELECT version()`, e.g. "PostgreSQL 15.8 (Debian 15.8-0+deb12u1) on x86_64-pc-linux-gnu, …". */
  version: string;
  /** The settings in force, as the running server reports them (SHOW): the write-path ones and any the caller set. */
  settings: Record<string, string>;
  /**
   * Stops the server as an outage would (`pg_ctl stop -m fast`: sessions are ended, the data stays), without
   * blocking this process's event loop; resume() starts it again on the same port.
   */
  pause(): Promise<void>;
  /** Starts a paused server again, on the same port and data. */
  resume(): Promise<void>;
  /** `pg_ctl restart -m fast`: sessions are ended, the server comes back on the same port at once. */
  restart(): Promise<void>;
  /** Stops the server (in the mode given to startCluster) and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Server settings, each passed as `-c name=value` after listen_addresses=127.0.0.1 and max_connections=200. */
  settings?: Record<string, string>;
  /** How stop() shuts the server down: `fast` (checkpoint first) or `immediate` (no checkpoint). Default fast. */
  stopMode?: 'fast' | 'immediate';
  /** Start of the temporary folder's name, in os.tmpdir(). Default `kb-pg-`. */
  tmpPrefix?: string;
}

const BINARIES = ['initdb', 'pg_ctl'];
/** The settings that matter for write throughput, reported in `settings` whatever the caller set. */
const REPORTED = ['fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'wal_level', 'shared_buffers', 'max_connections'];

function hasBinaries(dir: string): boolean {
  return BINARIES.every((b) => {
    try {
      fs.accessSync(path.join(dir, b), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The newest /usr/lib/postgresql/<version>/bin with initdb and pg_ctl (or PG_BIN_DIR when set), else null. */
export function postgresBinDir(): string | null {
  const fromEnv = process.env.PG_BIN_DIR;
  if (fromEnv) return hasBinaries(fromEnv) ? fromEnv : null;
  const root = '/usr/lib/postgresql';
  let versions: string[];
  try {
    versions = fs.readdirSync(root);
  } catch {
    return null;
  }
  const dirs = versions
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join(root, v, 'bin'));
  return dirs.find(hasBinaries) ?? null;
}

/** The uid/gid of the `postgres` user, or null when there is none. */
function postgresUser(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null;
  } catch {
    return null;
  }
}

/** Why a PostgreSQL cannot be started here, or null when it can (binaries found; as root, a postgres user). */
export function postgresUnavailable(): string | null {
  if (!postgresBinDir()) {
    return process.env.PG_BIN_DIR
      ? `no initdb/pg_ctl in PG_BIN_DIR=${process.env.PG_BIN_DIR}`
      : 'no initdb/pg_ctl in /usr/lib/postgresql/<version>/bin (apt-get install postgresql, or set PG_BIN_DIR)';
  }
  if (process.getuid?.() === 0 && !postgresUser()) {
    return "running as root, but there is no 'postgres' user to run initdb/pg_ctl as (initdb refuses root; apt-get install postgresql creates the user)";
  }
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Single-quotes a word for the shell pg_ctl hands its -o options to. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function tail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no server log)';
  }
}

let counter = 0;

type Result = { ok: boolean; output: string };

/**
 * Runs PostgreSQL's binaries as the cluster's owner (`owner` set: as root, through runuser), in the cluster's
 * folder (the postgres user may not be able to read the current directory), with no PG* settings of the
 * caller leaking in. `run` waits synchronously; `runAsync` does not (for pause() and resume() while servers
 * in this process keep answering).
 */
function binaries(bin: string, dir: string, owner: { uid: number; gid: number } | null) {
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PG')));
  env.LC_ALL = 'C';
  const command = (name: string, args: string[]): [string, string[]] =>
    owner ? ['runuser', ['-u', 'postgres', '--', path.join(bin, name), ...args]] : [path.join(bin, name), args];
  const run = (name: string, args: string[]): Result => {
    const [cmd, argv] = command(name, args);
    const r = spawnSync(cmd, argv, { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
    return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`.trim() };
  };
  const runAsync = (name: string, args: string[]): Promise<Result> =>
    new Promise((resolve) => {
      const [cmd, argv] = command(name, args);
      execFile(cmd, argv, { cwd: dir, env, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) => resolve({ ok: !err, output: `${stdout ?? ''}${stderr ?? ''}${err ? String(err) : ''}`.trim() }));
    });
  return { env, command, run, runAsync };
}
type Binaries = ReturnType<typeof binaries>;

/** initdb into `data`, in UTF-8 with the C.UTF-8 locale, or C where that locale is missing. */
function initCluster({ run }: Binaries, data: string): void {
  // --no-sync only skips initdb's own final flush of the fresh cluster; the server's settings decide
  // what every commit does.
  const initArgs = ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8'];
  let init = run('initdb', initArgs);
  if (!init.ok && /locale/i.test(init.output)) {
    fs.rmSync(data, { recursive: true, force: true });
    init = run('initdb', [...initArgs.slice(0, -1), '--locale=C']);
  }
  if (!init.ok) throw new Error(`initdb failed:\n${init.output}`);
}

/**
 * pg_ctl start on a free loopback port, its unix socket in `dir`, with the caller's settings. Returns the port
 * and the server's options (resume() starts it with them again).
 */
async function startServer({ run }: Binaries, dir: string, data: string, log: string, settings: Record<string, string>): Promise<{ port: number; serverOptions: string }> {
  // The free port can be taken between finding it and the server binding it: try a few.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const serverOptions = [
      '-c listen_addresses=127.0.0.1',
      `-p ${port}`,
      `-k ${shellQuote(dir)}`,
      '-c max_connections=200',
      ...Object.entries(settings).map(([k, v]) => `-c ${k}=${shellQuote(v)}`),
    ].join(' ');
    const start = run('pg_ctl', ['-w', '-t', '60', '-D', data, '-l', log, '-o', serverOptions, 'start']);
    if (start.ok) return { port, serverOptions };
    const serverLog = tail(log);
    if (!/could not bind|already in use/i.test(serverLog) || attempt >= 3) {
      throw new Error(`pg_ctl start failed (port ${port}):\n${start.output}\n--- server log (tail) ---\n${serverLog}`);
    }
    run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
  }
}

/**
 * Watchdog: if this process goes away without stop() (killed, crashed), stop the server and remove the
 * folder. stop() ends it first (it runs in a process group of its own).
 */
function startWatchdog({ env, command }: Binaries, dir: string, data: string): ReturnType<typeof spawn> {
  const [stopCmd, stopArgv] = command('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
  const script = [
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done`,
    `${[stopCmd, ...stopArgv].map(shellQuote).join(' ')} >/dev/null 2>&1`,
    `rm -rf ${shellQuote(dir)}`,
  ].join('\n');
  const watchdog = spawn('sh', ['-c', script], { cwd: dir, env, detached: true, stdio: 'ignore' });
  watchdog.unref();
  return watchdog;
}

/** The running server's version and the settings it reports (REPORTED and the caller's), read over a connection. */
async function serverFacts(url: string, settings: Record<string, string>): Promise<{ version: string; reported: Record<string, string> }> {
  const client = new pg.Client({ connectionString: url });
  const reported: Record<string, string> = {};
  try {
    await client.connect();
    const version = (await client.query<{ version: string }>('SELECT version()')).rows[0].version;
    for (const name of new Set([...REPORTED, ...Object.keys(settings)])) {
      if (!/^[a-z_][a-z0-9_.]*$/i.test(name)) continue;
      reported[name] = Object.values((await client.query(`SHOW ${name}`)).rows[0])[0] as string;
    }
    return { version, reported };
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * initdb + pg_ctl start in a fresh temporary folder. Call stop() in a finally (or afterAll).
 * @example const pg = await startCluster({ settings: { fsync: 'on', synchronous_commit: 'on' } })
 */
export async function startCluster(options: ClusterOptions = {}): Promise<PostgresCluster> {
  const { settings = {}, stopMode = 'fast', tmpPrefix = 'kb-pg-' } = options;
  const unavailable = postgresUnavailable();
  if (unavailable) throw new Error(`startCluster: ${unavailable}`);
  const bin = postgresBinDir()!;
  const owner = process.getuid?.() === 0 ? postgresUser() : null;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  const pgBin = binaries(bin, dir, owner);
  const { run, runAsync } = pgBin;

  let port = 0;
  let serverOptions = '';
  let watchdog: ReturnType<typeof spawn> | null = null;
  try {
    initCluster(pgBin, data);
    ({ port, serverOptions } = await startServer(pgBin, dir, data, log, settings));
    watchdog = startWatchdog(pgBin, dir, data);
  } catch (err) {
    run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (watchdog?.pid) {
      try {
        process.kill(-watchdog.pid); // its own process group (detached): the shell and its sleep
      } catch {
        // already gone
      }
    }
    const r = run('pg_ctl', ['-w', '-D', data, '-m', stopMode, 'stop']);
    fs.rmSync(dir, { recursive: true, force: true });
    if (!r.ok) throw new Error(`pg_ctl stop failed:\n${r.output}`);
  };

  let facts: { version: string; reported: Record<string, string> };
  try {
    facts = await serverFacts(url('postgres'), settings);
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }

  return {
    url,
    version: facts.version,
    settings: facts.reported,
    async pause() {
      const r = await runAsync('pg_ctl', ['-w', '-D', data, '-m', 'fast', 'stop']);
      if (!r.ok) throw new Error(`pg_ctl stop failed:\n${r.output}`);
    },
    async resume() {
      const r = await runAsync('pg_ctl', ['-w', '-t', '60', '-D', data, '-l', log, '-o', serverOptions, 'start']);
      if (!r.ok) throw new Error(`pg_ctl start failed:\n${r.output}\n--- server log (tail) ---\n${tail(log)}`);
    },
    async restart() {
      const r = await runAsync('pg_ctl', ['-w', '-t', '60', '-D', data, '-l', log, '-m', 'fast', '-o', serverOptions, 'restart']);
      if (!r.ok) throw new Error(`pg_ctl restart failed:\n${r.output}\n--- server log (tail) ---\n${tail(log)}`);
    },
    async createDatabase(name?: string): Promise<string> {
      if (stopped) throw new Error('createDatabase: the PostgreSQL cluster is stopped');
      const db = name ?? `db_${process.pid}_${++counter}`;
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(db)) throw new Error(`createDatabase: unsafe database name ${JSON.stringify(db)}`);
      const c = new pg.Client({ connectionString: url('postgres') });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE "${db}"`);
      } finally {
        await c.end();
      }
      return url(db);
    },
    stop,
  };
}
