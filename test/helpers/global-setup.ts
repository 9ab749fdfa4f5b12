// Builds the sample content once for the whole run into a temporary folder; suites start servers on it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildSite } from '../../scripts/build.ts';

export default async function setup(project: TestProject) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-test-build-'));
  const distDir = path.join(root, 'dist');
  const dataDir = path.join(root, 'var');
  await buildSite({ ...process.env, CONTENT_DIR: path.resolve('content'), DIST_DIR: distDir, DATA_DIR: dataDir, BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true', PORT: '0' });
  project.provide('sampleDist', distDir);
  return () => fs.rmSync(root, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    sampleDist: string;
  }
}
