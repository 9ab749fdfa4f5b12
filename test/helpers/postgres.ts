// A real, throwaway PostgreSQL server for the tests: Debian's `postgresql` binaries, initdb into a temporary
// folder, pg_ctl on a free loopback port (and a unix socket in that folder), no system service. About a
// second from nothing to a running server with fsync off. The cluster itself (binaries, runuser as root,
// watchdog) is scripts/lib/postgres-cluster.ts, shared with the benches; this file adds the tests' settings
// and the vitest side.
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
import { describe, it } from 'vitest';
import { postgresBinDir, postgresUnavailable, startCluster } from '../../scripts/lib/postgres-cluster.ts';

export { postgresBinDir };

export interface PgCluster {
  /** postgres:// URL of a database on this server, as user postgres (trust authentication). */
  url(database: string): string;
  /** Creates a fresh, empty database (a generated name unless given) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server as an outage would (sessions ended, data kept), without blocking the event loop. */
  pause(): Promise<void>;
  /** Starts a paused server again on the same port. */
  resume(): Promise<void>;
  /** `pg_ctl restart -m fast`. */
  restart(): Promise<void>;
  /** Stops the server (immediate mode) and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Speed over durability: a test's server is thrown away after the file. */
const TEST_SETTINGS = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

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

let counter = 0;

/** initdb + pg_ctl start in a fresh temporary folder. Callers stop it in afterAll (see the top of this file). */
export async function startPostgres(): Promise<PgCluster> {
  const unavailable = postgresUnavailable();
  if (unavailable) throw new Error(`startPostgres: ${unavailable}`);
  let cluster;
  try {
    cluster = await startCluster({ settings: TEST_SETTINGS, stopMode: 'immediate', tmpPrefix: 'kb-pg-' });
  } catch (err) {
    process.stderr.write(`startPostgres: ${(err as Error).message}\n`);
    throw err;
  }
  return {
    url: cluster.url,
    createDatabase: (name?: string) => cluster.createDatabase(name ?? `test_${process.pid}_${++counter}`),
    pause: cluster.pause,
    resume: cluster.resume,
    restart: cluster.restart,
    stop: cluster.stop,
  };
}
