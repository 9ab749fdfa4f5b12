// Builds the sample content once for the whole run into a temporary folder; suites start servers on it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildSite } from '../../scripts/build.ts';

/** Every file of content/ with its size and mtime: tests read the sample content, never write it. */
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
  const content = path.resolve('content');
  const before = contentState(content);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-test-build-'));
  const distDir = path.join(root, 'dist');
  const dataDir = path.join(root, 'var');
  await buildSite({ ...process.env, CONTENT_DIR: path.resolve('content'), DIST_DIR: distDir, DATA_DIR: dataDir, BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true', PORT: '0' }, { renderInProcess: true });
  project.provide('sampleDist', distDir);
  return () => {
    fs.rmSync(root, { recursive: true, force: true });
    // A test whose server wrote into the repository's content/ (a draft concept, an applied proposal) would
    // change what later runs build from, and the sample dist/ no longer matches it mid-run.
    const after = contentState(content);
    if (after !== before) {
      const was = new Set(before.split('\n'));
      const changed = after.split('\n').filter((l) => !was.has(l)).map((l) => l.split(' ')[0]);
      throw new Error(`a test wrote into content/ (give its server a copy: startTestServer({ contentDir })): ${changed.join(', ') || 'files removed'}`);
    }
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    sampleDist: string;
  }
}
