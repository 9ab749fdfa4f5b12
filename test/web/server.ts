// The real server for website tests: its own origin (so the embedded identity provider's redirects and
// the OAuth checks line up with what the browser sees) over a build of the sample content made for that
// very origin (a server refuses files built for another BASE_URL). One build per suite, ~4 s (8-15 s with
// both cores busy); the next suite in the same worker with the same settings reuses it on the same port
// when that port is free again (the server only reads its dist/).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { inject } from 'vitest';
import { loadConfig } from '../../src/lib/config.ts';
import { startServer } from '../../api/server.ts';
import { buildSite } from '../../scripts/build.ts';
import { asTestServer, freePort, seedSampleIndex, type TestServer } from '../helpers/server.ts';
import { fixtureContent } from '../helpers/content.ts';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from './browser.ts';

/** The sample site this worker built last: its origin's port, the settings it was built with, its folder. */
let lastBuild: { port: number; key: string; dir: string } | undefined;

/** Whether nothing listens on this loopback port now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A port and a build of the sample content for its origin: the last one this worker made when the settings
 * are the same and its port is free, otherwise a new one (in global-setup's folder, removed after the run).
 */
async function sampleBuild(env: Record<string, string>): Promise<{ port: number; distDir: string; dataDir: string }> {
  const key = JSON.stringify(env);
  const folders = (dir: string) => ({ distDir: path.join(dir, 'dist'), dataDir: path.join(dir, 'var') });
  if (lastBuild?.key === key && (await portFree(lastBuild.port))) return { port: lastBuild.port, ...folders(lastBuild.dir) };
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(inject('webBuilds'), 'build-'));
  const base = { ...webEnv(`http://127.0.0.1:${port}`, port, env), CONTENT_DIR: fixtureContent(), DIST_DIR: folders(dir).distDir, DATA_DIR: folders(dir).dataDir };
  await buildSite({ ...process.env, ...base, PIPELINE: 'off' }, { renderInProcess: true });
  // The one it replaces stays until global-setup's teardown: a server may still be running on it.
  lastBuild = { port, key, dir };
  return { port, ...folders(dir) };
}

function webEnv(origin: string, port: number, env: Record<string, string>): Record<string, string> {
  return {
    BASE_URL: origin,
    ALLOW_DEV_IDP: 'true',
    SEARCH_RATE_LIMIT_PER_MINUTE: '100000',
    OAUTH_REGISTRATIONS_PER_HOUR: '100000',
    PORT: String(port),
    HOST: '127.0.0.1',
    ...env,
  };
}

export async function startWebServer(env: Record<string, string> = {}): Promise<TestServer> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-web-test-'));
  const dataDir = path.join(root, 'var');
  try {
    // A suite's own content (env.CONTENT_DIR) gets a build of its own, in its folder.
    const shared = env.CONTENT_DIR ? null : await sampleBuild(env);
    const port = shared?.port ?? (await freePort());
    const distDir = shared?.distDir ?? path.join(root, 'dist');
    const base = { CONTENT_DIR: fixtureContent(), ...webEnv(`http://127.0.0.1:${port}`, port, env), DIST_DIR: distDir, DATA_DIR: dataDir };
    if (shared) fs.cpSync(shared.dataDir, dataDir, { recursive: true }); // what the build left there (its parse cache)
    else await buildSite({ ...process.env, ...base, PIPELINE: 'off' }, { renderInProcess: true });
    seedSampleIndex(dataDir);
    const running = await startServer(loadConfig(base), { log: () => {} });
    return asTestServer(running, dataDir, root);
  } catch (err) {
    fs.rmSync(root, { recursive: true, force: true });
    throw err;
  }
}

/**
 * The web server over the built sample site and a Chromium page on it, for a file's beforeAll; close
 * both with closeWebBrowser in its afterAll.
 * @example beforeAll(async () => ({ srv, browser, page } = await openWebBrowser()));
 */
export async function openWebBrowser(): Promise<{ srv: TestServer; browser: TestBrowser; page: Page }> {
  const srv = await startWebServer();
  const browser = await launchBrowser(srv.url);
  return { srv, browser, page: browser.page };
}

/** Closes what openWebBrowser opened (either may be missing when its beforeAll failed). */
export async function closeWebBrowser(srv: TestServer | undefined, browser: TestBrowser | undefined): Promise<void> {
  await browser?.close();
  await srv?.stop();
}
