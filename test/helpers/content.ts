// The sample content for tests: content/ as git tracks it, written out once per run by global-setup into a
// temporary folder (test/helpers/tracked-content.ts), so running the service here (its first start drafts
// concepts into content/) or an editor's uncommitted work cannot change what the tests see.
import { inject } from 'vitest';

/**
 * The folder of the sample content. Read it, never write it (global-setup fails the run if a test did): a
 * test that writes copies it first, `fs.cpSync(fixtureContent(), dir, { recursive: true })`.
 */
export function fixtureContent(): string {
  return inject('fixtureContent');
}
