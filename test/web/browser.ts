// A real browser for the website tests: Debian's Chromium driven by playwright-core, one per test file,
// with a fresh profile, offline except for the test server (thumbnails from the video host are refused,
// so runs are hermetic), screenshots into test-artifacts/web/ and axe-core checks.
// Without /usr/bin/chromium the suites are skipped with a message, except in CI, where .ci/run installs it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe } from 'vitest';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = path.resolve('test-artifacts', 'web');

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/** `describe` when Chromium is there; otherwise a skipped suite outside CI and a failure in CI. */
export function describeInBrowser(name: string, fn: () => void): void {
  if (fs.existsSync(CHROMIUM)) {
    describe(name, fn);
    return;
  }
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium before the tests`);
  console.warn(`skipping "${name}": ${CHROMIUM} is missing (apt-get install chromium to run the browser tests)`);
  describe.skip(name, fn);
}

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(origin: string): Promise<TestBrowser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1200, height: 900 },
    locale: 'en-GB',
  });
  await context.route((url) => url.origin !== origin, (route) => route.abort());
  // Cumulative layout shift of each page, read by layoutShift().
  await context.addInitScript(() => {
    const w = window as unknown as { __cls: number };
    w.__cls = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) if (!e.hadRecentInput) w.__cls += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
  });
  const page = context.pages()[0] ?? (await context.newPage());
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return {
    context,
    page,
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The page's cumulative layout shift so far (0 when nothing moved while it loaded). */
export async function layoutShift(page: Page): Promise<number> {
  await page.waitForLoadState('networkidle');
  return page.evaluate(() => (window as unknown as { __cls: number }).__cls);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * axe-core's violations of impact serious or critical, as "rule: selector" lines. Evaluated through the
 * DevTools protocol, so the server pages' Content-Security-Policy (scripts from this origin only) does
 * not stand in the way.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() =>
    (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe.run(document, {
      resultTypes: ['violations'],
    }),
  );
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id}: ${n.target.join(' ')}`));
}
