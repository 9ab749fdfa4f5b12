import { defineConfig } from 'vitest/config';
import { postgresBinDir } from './scripts/lib/postgres-cluster.ts';

// The suites of the write side run twice: on the embedded SQLite default (project `sqlite`, every test)
// and on PostgreSQL (project `postgres`: each server a test starts gets a fresh database on a PostgreSQL
// the test file starts, test/helpers/postgres-setup.ts). Without PostgreSQL's binaries the second project
// is left out with a message, except in CI, where its files fail (.ci/run installs postgresql).
const POSTGRES_SUITES = [
  'test/api/agents/**/*.test.ts',
  'test/api/audit/**/*.test.ts',
  'test/api/auth/**/*.test.ts',
  'test/api/comments/**/*.test.ts',
  'test/api/device/**/*.test.ts',
  'test/api/notifications/**/*.test.ts',
  'test/api/oauth/**/*.test.ts',
  'test/api/posts/**/*.test.ts',
  'test/api/proposals/**/*.test.ts',
  'test/api/sources/**/*.test.ts',
  'test/pipeline/knowledge.test.ts',
];

// The tlog tiles test appends 66k events to cross a tile boundary: ~2 min on PostgreSQL for what it
// checks about tile serving, which reads the same store the other audit tests cover there.
const POSTGRES_EXCLUDE = ['test/api/audit/tiles.test.ts'];

const withPostgres = postgresBinDir() !== null || process.env.CI === 'true';
if (!withPostgres) console.warn('PostgreSQL tests skipped: no initdb/pg_ctl found (apt-get install postgresql)');

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      ...(withPostgres
        ? [{ extends: true, test: { name: 'postgres', include: POSTGRES_SUITES, exclude: POSTGRES_EXCLUDE, env: { TEST_DATABASE: 'postgres' }, setupFiles: ['test/helpers/postgres-setup.ts'] } }]
        : []),
    ],
  },
});
