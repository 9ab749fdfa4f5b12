// The real server for website tests: its own origin (so the embedded identity provider's redirects and
// the OAuth checks line up with what the browser sees) over a build of the sample content made for that
// very origin (a server refuses files built for another BASE_URL). One build per suite, ~4 s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/lib/config.ts';
import { startServer } from '../../api/server.ts';
import { buildSite } from '../../scripts/build.ts';
import { asTestServer, freePort, seedSampleIndex, type TestServer } from '../helpers/server.ts';
import { fixtureContent } from '../helpers/content.ts';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from './browser.ts';

export async function startWebServer(env: Record<string, string> = {}): Promise<TestServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-web-test-'));
  const dataDir = path.join(root, 'var');
  const distDir = path.join(root, 'dist');
  const base = {
    CONTENT_DIR: fixtureContent(),
    DIST_DIR: distDir,
    DATA_DIR: dataDir,
    BASE_URL: origin,
    ALLOW_DEV_IDP: 'true',
    SEARCH_RATE_LIMIT_PER_MINUTE: '100000',
    OAUTH_REGISTRATIONS_PER_HOUR: '100000',
    PORT: String(port),
    HOST: '127.0.0.1',
    ...env,
  };
  await buildSite({ ...process.env, ...base, PIPELINE: 'off' }, { renderInProcess: true });
  seedSampleIndex(dataDir);
  const running = await startServer(loadConfig(base), { log: () => {} });
  return asTestServer(running, dataDir, root);
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
