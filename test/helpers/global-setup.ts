// Writes out the sample content (content/ as git tracks it) and builds it once for the whole run into a
// temporary folder, with its search index; suites read that content and start servers on that build and a
// copy of that index.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildSite } from '../../scripts/build.ts';
import { loadConfig } from '../../src/lib/config.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { indexDir, openSearch } from '../../src/lib/search/index.ts';
import { materialiseTrackedContent } from './tracked-content.ts';

/** Every file of the sample content with its size and mtime: tests read it, never write it. */
function contentState(dir: string): string {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const f = path.join(e.parentPath, e.name);
      const st = fs.statSync(f);
      return `${path.relative(dir, f)} ${st.size} ${st.mtimeMs}`;
    })
    .sort()
    .join('\n');
}

export default async function setup(project: TestProject) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-test-build-'));
  // Not the working tree's content/: a first `npm start` drafts concepts there, and editors work there.
  const content = materialiseTrackedContent(process.cwd(), root);
  const before = contentState(content);
  const distDir = path.join(root, 'dist');
  const dataDir = path.join(root, 'var');
  await buildSite({ ...process.env, CONTENT_DIR: content, DIST_DIR: distDir, DATA_DIR: dataDir, BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true', PORT: '0' }, { renderInProcess: true });
  // The search index a test server would build at its first start (test/helpers/server.ts), built once here:
  // the same content and embedder settings, so each server loads a copy instead (it checks both).
  const indexData = path.join(root, 'index-data');
  await openSearch(loadConfig({ CONTENT_DIR: content, DATA_DIR: indexData, DIST_DIR: distDir, BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true' }), loadSnapshot(content, { lenient: true }), () => {});
  project.provide('fixtureContent', content);
  project.provide('sampleDist', distDir);
  project.provide('sampleIndex', indexDir(indexData));
  const webBuilds = path.join(root, 'web-builds');
  fs.mkdirSync(webBuilds);
  project.provide('webBuilds', webBuilds);
  return () => {
    // A test whose server wrote into the sample content (a draft concept, an applied proposal) would change
    // what the tests after it read, and the sample dist/ no longer matches it mid-run.
    const after = contentState(content);
    fs.rmSync(root, { recursive: true, force: true });
    if (after !== before) {
      const was = new Set(before.split('\n'));
      const changed = after.split('\n').filter((l) => !was.has(l)).map((l) => l.split(' ')[0]);
      throw new Error(`a test wrote into the sample content (copy fixtureContent() and give its server the copy: startTestServer({ contentDir })): ${changed.join(', ') || 'files removed'}`);
    }
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** content/ as git tracks it (test/helpers/content.ts, fixtureContent()). */
    fixtureContent: string;
    sampleDist: string;
    /** The search index of fixtureContent (DATA_DIR/index), for test servers to start from a copy. */
    sampleIndex: string;
    /** A folder for the builds of the sample content test/web/server.ts keeps for its next suite. */
    webBuilds: string;
  }
}
