// The progress a job prints in a log (not a terminal), through `npm run pipeline -- run <job>`: each count
// starts at 0 when its work starts (so the rate it shows is the work's, not a first unit's over no time) and
// ends at its total, never past it, the total being what the job made (the index's rows, the site's pages).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureContent } from '../helpers/content.ts';

const run = promisify(execFile);
let root: string;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-progress-'));
  fs.cpSync(fixtureContent(), path.join(root, 'content'), { recursive: true });
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** `npm run pipeline -- run <job>` over the copy; its stderr, where progress goes, as lines. */
async function job(name: string, env: Record<string, string> = {}): Promise<string[]> {
  const { stdout, stderr } = await run('npm', ['run', 'pipeline', '--', 'run', name], {
    env: {
      ...process.env,
      CONTENT_DIR: path.join(root, 'content'),
      DATA_DIR: path.join(root, 'var'),
      DIST_DIR: path.join(root, 'dist'),
      BASE_URL: 'http://kb.test',
      ALLOW_DEV_IDP: 'true',
      ...env,
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  expect(stdout).toMatch(new RegExp(`${name}: ok`));
  return stderr.split('\n');
}

/** The counts of one progress label's lines: [done, total, rate] each. */
function counts(lines: string[], label: string): [number, number, number][] {
  const re = new RegExp(`^${label.replace(/[()]/g, '\\$&')}: (\\d+)/(\\d+) \\(([\\d.]+)/s\\)$`);
  return lines.flatMap((l) => {
    const m = re.exec(l);
    return m ? [[Number(m[1]), Number(m[2]), Number(m[3])] as [number, number, number]] : [];
  });
}

describe('progress in a log, through npm run pipeline -- run', () => {
  it("build-index's embedding counts from 0 to the index's rows", async () => {
    const seen = counts(await job('build-index'), 'build-index (embedding)');
    const rows = (JSON.parse(fs.readFileSync(path.join(root, 'var', 'index', 'manifest.json'), 'utf8')) as { rows: number }).rows;
    expect(rows).toBeGreaterThan(100);
    expect(seen[0]).toEqual([0, rows, 0]);
    expect(seen.at(-1)!.slice(0, 2)).toEqual([rows, rows]);
  }, 120_000);

  it("rebuild-site's pages count from 0 to the pages rendered, in two render processes too", async () => {
    // 100 pages a shard: the sample's ~170 pages render in two child processes, whose pages are counted
    // from what they print (one dot a page, then a line naming their folder, which has dots of its own).
    const seen = counts(await job('rebuild-site', { KB_PAGES_PER_SHARD: '100' }), 'rebuild-site (pages)');
    const pages = Object.keys((JSON.parse(fs.readFileSync(path.join(root, 'dist', 'site-manifest.json'), 'utf8')) as { pages: object }).pages).length;
    expect(pages).toBeGreaterThan(100);
    expect(seen[0]).toEqual([0, pages, 0]);
    expect(seen.at(-1)!.slice(0, 2)).toEqual([pages, pages]);
    for (const [done, total] of seen) expect(done).toBeLessThanOrEqual(total);
  }, 180_000);
});
