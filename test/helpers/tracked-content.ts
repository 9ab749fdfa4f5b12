// The sample content the tests read is content/ as git tracks it, written out once per run by global-setup
// (test/helpers/content.ts hands its path to the tests), never the working tree's content/: `npm start`
// drafts concepts into content/knowledge/ (editors commit what the pipeline drafts), and an editor's work in
// progress lives there too, so a suite that read the working tree turned red after a first `npm start`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes `repo`'s content/ as its git index holds it into `dest` (as `dest/content`) and returns that folder.
 *
 * The index rather than HEAD: it is what `git ls-files` calls tracked, and what the next commit will hold,
 * so a change to the content and the tests that go with it is tested once it is staged (`git add`), without
 * committing first; on a fresh clone, and in CI, index and HEAD are the same. What git does not track
 * (drafts `npm start` wrote, new files) and edits not staged are left out: `git checkout-index` writes the
 * index's copy of each file, whatever the working tree holds.
 */
export function materialiseTrackedContent(repo: string, dest: string): string {
  const git = (args: string[], input?: Buffer) => {
    try {
      return execFileSync('git', ['-C', repo, ...args], { input, maxBuffer: 64 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      const stderr = String((err as { stderr?: Buffer }).stderr ?? '').trim();
      throw new Error(`the tests read content/ as git tracks it, and git ${args[0]} failed in ${repo} (run them in a git checkout): ${stderr || (err as Error).message}`);
    }
  };
  const files = git(['ls-files', '-z', '--', 'content']);
  if (files.length === 0) throw new Error(`git tracks no file under ${path.join(repo, 'content')}`);
  fs.mkdirSync(dest, { recursive: true });
  git(['checkout-index', '-z', '--stdin', `--prefix=${path.resolve(dest)}${path.sep}`], files);
  return path.join(path.resolve(dest), 'content');
}
