// A real, throwaway PostgreSQL server for the tests: Debian's `postgresql` binaries, initdb into a temporary
// folder, pg_ctl on a free loopback port (and a unix socket in that folder), no system service. About a
// second from nothing to a running server with fsync off.
//
// Use:
//   describePostgres('store on PostgreSQL', () => {
//     let pg: PgCluster;
//     beforeAll(async () => { pg = await startPostgres(); });
//     afterAll(() => pg?.stop());            // always: stops the server even when tests of the file fail
//     it('…', async () => { const url = await pg.createDatabase(); … });
//   });
//
// Without the binaries the suite is skipped with a message, except in CI (CI=true), where it fails: .ci/run
// installs Debian's postgresql. PG_BIN_DIR points at another bin folder (one with initdb and pg_ctl).
// As root, initdb refuses to run, so the cluster belongs to the `postgres` user (runuser). Should a test
// process die before afterAll runs, a small watchdog stops its server and removes the folder.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, it } from 'vitest';

export interface PgCluster {
  /** postgres:// URL of a database on this server, as user postgres (trust authentication). */
  url(database: string): string;
  /** Creates a fresh, empty database (a generated name unless given) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (immediate mode) and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

const BINARIES = ['initdb', 'pg_ctl'];

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

let skipNoticePrinted = false;

/** `describe` when PostgreSQL is installed; otherwise a skipped suite outside CI and a failing one in CI. */
export function describePostgres(name: string, fn: () => void): void {
  if (postgresBinDir()) {
    describe(name, fn);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('has PostgreSQL installed', () => {
        throw new Error('PostgreSQL is required in CI: apt-get install postgresql');
      });
    });
    return;
  }
  if (!skipNoticePrinted) {
    skipNoticePrinted = true;
    process.stderr.write('PostgreSQL tests skipped: no initdb/pg_ctl found (apt-get install postgresql)\n');
  }
  describe.skip(name, fn);
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

/** The uid/gid of the `postgres` user, or a clear error when there is none. */
function postgresUser(): { uid: number; gid: number } {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    if (Number.isInteger(uid) && Number.isInteger(gid)) return { uid, gid };
  } catch {
    // fall through
  }
  throw new Error("startPostgres: running as root, but there is no 'postgres' user to run initdb/pg_ctl as (initdb refuses root; apt-get install postgresql creates the user)");
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

/** initdb + pg_ctl start in a fresh temporary folder. Callers stop it in afterAll (see the top of this file). */
export async function startPostgres(): Promise<PgCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('startPostgres: no initdb/pg_ctl found (apt-get install postgresql, or set PG_BIN_DIR)');
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? postgresUser() : null;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-pg-'));
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');

  // Runs a PostgreSQL binary as the cluster's owner, in the cluster's folder (the postgres user may not be
  // able to read the current directory), with no PG* settings of the caller leaking in.
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PG')));
  env.LC_ALL = 'C';
  const command = (name: string, args: string[]): [string, string[]] =>
    owner ? ['runuser', ['-u', 'postgres', '--', path.join(bin, name), ...args]] : [path.join(bin, name), args];
  const run = (name: string, args: string[]): { ok: boolean; output: string } => {
    const [cmd, argv] = command(name, args);
    const r = spawnSync(cmd, argv, { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
    return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`.trim() };
  };
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });

  let port = 0;
  let watchdog: ReturnType<typeof spawn> | null = null;
  try {
    const initArgs = ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8'];
    let init = run('initdb', initArgs);
    if (!init.ok && /locale/i.test(init.output)) {
      fs.rmSync(data, { recursive: true, force: true });
      init = run('initdb', [...initArgs.slice(0, -1), '--locale=C']);
    }
    if (!init.ok) throw new Error(`initdb failed:\n${init.output}`);

    // The free port can be taken between finding it and the server binding it: try a few.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const options = [
        '-c listen_addresses=127.0.0.1',
        `-p ${port}`,
        `-k ${shellQuote(dir)}`,
        '-c fsync=off',
        '-c synchronous_commit=off',
        '-c full_page_writes=off',
        '-c max_connections=200',
      ].join(' ');
      const start = run('pg_ctl', ['-w', '-t', '60', '-D', data, '-l', log, '-o', options, 'start']);
      if (start.ok) break;
      const serverLog = tail(log);
      const portTaken = /could not bind|already in use/i.test(serverLog);
      if (!portTaken || attempt >= 3) {
        throw new Error(`pg_ctl start failed (port ${port}):\n${start.output}\n--- server log (tail) ---\n${serverLog}`);
      }
      run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    }

    // Watchdog: if this test process goes away without stop() (killed, crashed), stop the server and remove
    // the folder. stop() ends it first.
    const [stopCmd, stopArgv] = command('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    const script = [
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done`,
      `${[stopCmd, ...stopArgv].map(shellQuote).join(' ')} >/dev/null 2>&1`,
      `rm -rf ${shellQuote(dir)}`,
    ].join('\n');
    watchdog = spawn('sh', ['-c', script], { cwd: dir, env, detached: true, stdio: 'ignore' });
    watchdog.unref();
  } catch (err) {
    run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    removeDir();
    process.stderr.write(`startPostgres: ${(err as Error).message}\n`);
    throw err;
  }

  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  let stopped = false;

  return {
    url,
    async createDatabase(name?: string): Promise<string> {
      if (stopped) throw new Error('createDatabase: the PostgreSQL cluster is stopped');
      const db = name ?? `test_${process.pid}_${++counter}`;
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(db)) throw new Error(`createDatabase: unsafe database name ${JSON.stringify(db)}`);
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${db}"`);
      } finally {
        await client.end();
      }
      return url(db);
    },
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      if (watchdog?.pid) {
        try {
          process.kill(-watchdog.pid); // its own process group (detached): the shell and its sleep
        } catch {
          // already gone
        }
      }
      const r = run('pg_ctl', ['-w', '-D', data, '-m', 'immediate', 'stop']);
      removeDir();
      if (!r.ok) throw new Error(`pg_ctl stop failed:\n${r.output}`);
    },
  };
}
