// Setup file of every test project (vitest.config.ts). Test files share their worker process and its
// modules (isolate: false), so a file must leave nothing process-wide behind for the next: this checks the
// environment, the state most often changed in passing, and fails the file that changed it.
import { afterAll, beforeAll, expect } from 'vitest';

/**
 * Set once, by a library as it loads, whichever file loads it first: @huggingface/transformers (for
 * onnxruntime) and the libvips it brings (sharp). Nothing of ours reads them.
 */
const SET_BY_LIBRARIES = new Set(['ORT_DISABLE_TELEMETRY', 'VIPSHOME']);

let before: Record<string, string | undefined>;

beforeAll(() => {
  before = { ...process.env };
});

afterAll(() => {
  const now = { ...process.env };
  const changed = [...new Set([...Object.keys(before), ...Object.keys(now)])]
    .filter((k) => before[k] !== now[k] && !(SET_BY_LIBRARIES.has(k) && before[k] === undefined))
    .sort();
  expect(changed, 'environment variables this test file changed and did not restore').toEqual([]);
});
