// Starts the real server on an ephemeral port with a temporary DATA_DIR, over the sample build made once
// by global-setup (or a dist/ and content/ the test gives).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { inject } from 'vitest';
import { loadConfig } from '../../src/lib/config.ts';
import { startServer, type RunningServer } from '../../api/server.ts';
import { indexDir } from '../../src/lib/search/index.ts';
import { fixtureContent } from './content.ts';

export interface TestServer extends RunningServer {
  dataDir: string;
  get(pathAndQuery: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/** A port that was free a moment ago (for servers whose public origin must be their real address). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * @param opts.ownOrigin serve with BASE_URL = the server's real address (http://127.0.0.1:<port>) and no
 *   prerendered files, for protocol tests whose clients check issuer and redirect URLs (OAuth, OIDC).
 */
export async function startTestServer(
  opts: { distDir?: string; contentDir?: string; env?: Record<string, string>; ownOrigin?: boolean } = {},
): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-test-data-'));
  try {
    return await startIn(dataDir, opts);
  } catch (err) {
    // A server that did not start (tests of refused configurations) leaves no folder behind.
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

async function startIn(dataDir: string, opts: { distDir?: string; contentDir?: string; env?: Record<string, string>; ownOrigin?: boolean }): Promise<TestServer> {
  const port = opts.ownOrigin ? await freePort() : 0;
  const config = loadConfig({
    CONTENT_DIR: opts.contentDir ?? fixtureContent(),
    DIST_DIR: opts.ownOrigin ? path.join(dataDir, 'no-dist') : (opts.distDir ?? inject('sampleDist')),
    DATA_DIR: dataDir,
    BASE_URL: opts.ownOrigin ? `http://127.0.0.1:${port}` : 'http://kb.test',
    // http://kb.test is not a loopback origin: dev mode (the embedded identity provider) must be allowed.
    ALLOW_DEV_IDP: 'true',
    // Tests send many searches from one address; the per-address limit has its own test (hostile-queries).
    SEARCH_RATE_LIMIT_PER_MINUTE: '100000',
    OAUTH_REGISTRATIONS_PER_HOUR: '100000',
    PORT: String(port),
    HOST: '127.0.0.1',
    ...(await testDatabaseEnv()),
    ...opts.env,
  });
  // A DATA_DIR the test gives is the test's to check: it starts as the test left it.
  if (!opts.env?.DATA_DIR) seedSampleIndex(dataDir);
  const running = await startServer(config, { log: () => {} });
  return asTestServer(running, dataDir, dataDir);
}

/**
 * Puts a copy of the sample content's search index (built once by global-setup) into a fresh DATA_DIR, as a
 * restarted server finds its own: the server uses it only when it was built from the content and with the
 * embedder it has (src/lib/search/open.ts), and builds its own otherwise. Building it at each start took
 * 1-9 s of CPU a server, and more with both cores busy; index-build.test.ts tests that first build.
 */
export function seedSampleIndex(dataDir: string): void {
  fs.cpSync(inject('sampleIndex'), indexDir(dataDir), { recursive: true });
}

/**
 * In the `postgres` test project (TEST_DATABASE=postgres), a fresh database for each server on the
 * file's PostgreSQL (test/helpers/postgres-setup.ts); elsewhere nothing, and the server uses SQLite. A new
 * connection may take 30 s: on a loaded CI machine one took over the default 5 s, and the server's start
 * failed with it.
 */
export async function testDatabaseEnv(): Promise<Record<string, string>> {
  if (process.env.TEST_DATABASE !== 'postgres') return {};
  const cluster = (globalThis as { kbTestPostgres?: { createDatabase(): Promise<string> } }).kbTestPostgres;
  if (!cluster) throw new Error('TEST_DATABASE=postgres, but no PostgreSQL was started (test/helpers/postgres-setup.ts)');
  return { DATABASE_URL: await cluster.createDatabase(), PG_CONNECT_TIMEOUT_MS: '30000' };
}

/** A running server as tests use it; stopping it also removes `cleanup` (its temporary folder). */
export function asTestServer(running: RunningServer, dataDir: string, cleanup: string): TestServer {
  return {
    ...running,
    // The server replaces its in-memory site when a new build lands: read it live.
    get staticSite() {
      return running.staticSite;
    },
    dataDir,
    get: (p, init) => fetch(running.url + p, init),
    stop: async () => {
      try {
        await running.close();
      } finally {
        fs.rmSync(cleanup, { recursive: true, force: true });
      }
    },
  };
}

/** Every file below a folder, relative and with forward slashes. */
export function walk(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}
