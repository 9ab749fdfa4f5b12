// Setup file of the `postgres` test project (vitest.config.ts): every startTestServer() of a test file
// gets its own fresh database on one PostgreSQL server started for that file. Without PostgreSQL the
// project's files are skipped outside CI and fail in CI, as test/helpers/postgres.ts decides.
import { afterAll, beforeAll } from 'vitest';
import { postgresBinDir, startPostgres, type PgCluster } from './postgres.ts';

let cluster: PgCluster | undefined;

beforeAll(async () => {
  if (!postgresBinDir()) {
    if (process.env.CI === 'true') throw new Error('PostgreSQL is required in CI: apt-get install postgresql');
    return;
  }
  cluster = await startPostgres();
  (globalThis as { kbTestPostgres?: PgCluster }).kbTestPostgres = cluster;
});

afterAll(async () => {
  await cluster?.stop();
});
