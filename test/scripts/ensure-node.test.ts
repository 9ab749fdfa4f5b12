// scripts/ensure-node.sh, which every npm script sources first: with a Node that will do, it turns on Node's
// module compile cache for the command and its children; when it cannot provide one, sourcing it fails, so
// `. scripts/ensure-node.sh && node …` stops there instead of running the project on a Node too old for it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-ensure-node-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs `script` in POSIX sh from the project's root, with `env` instead of this process's environment. */
function sh(script: string, env: Record<string, string>) {
  return spawnSync('sh', ['-c', script], { env, encoding: 'utf8' });
}

/** This process's environment without the compile cache's variables (`npm test` sets NODE_COMPILE_CACHE). */
function cleanEnv(): Record<string, string> {
  const env = { ...process.env } as Record<string, string>;
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  delete env.KB_NODE_CACHE;
  return env;
}

describe('scripts/ensure-node.sh', () => {
  it("turns on the module compile cache for the commands after it, in the user's cache folder unless one is set", () => {
    const env = { ...cleanEnv(), XDG_CACHE_HOME: tmp, KB_NODE_QUIET: '1', PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` };
    // What a node started after it (and its children, which inherit the variable) uses.
    const probe = `node -e "console.log(process.env.NODE_COMPILE_CACHE, require('node:module').getCompileCacheDir())"`;
    const r = sh(`. scripts/ensure-node.sh && ${probe}`, env);
    expect(r.status, r.stderr).toBe(0);
    const [variable, used] = r.stdout.trim().split(' ');
    expect(variable).toBe(path.join(tmp, 'kb-node', 'compile-cache'));
    expect(used.startsWith(variable)).toBe(true);
    // A folder given is kept.
    const own = path.join(tmp, 'own-cache');
    const given = sh(`. scripts/ensure-node.sh && ${probe}`, { ...env, NODE_COMPILE_CACHE: own });
    expect(given.stdout.trim().split(' ')[0]).toBe(own);
  });

  it('fails, and the command after it does not run, when it cannot provide a Node that will do', () => {
    // A machine whose node is too old and whose platform has no npm build of Node to install.
    const bin = path.join(tmp, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'node'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'uname'), '#!/bin/sh\n[ "$1" = -s ] && echo Darwin || echo arm64\n', { mode: 0o755 });
    const r = sh('. scripts/ensure-node.sh && echo ran', { ...cleanEnv(), PATH: `${bin}:/usr/bin:/bin` });
    expect(r.stderr).toContain('this project needs Node >= 22.12');
    expect(r.stdout).not.toContain('ran');
    expect(r.status).not.toBe(0);
  });
});
