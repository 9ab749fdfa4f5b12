// Keeps package-lock.json installable with `npm ci` when the registry in use does not carry every
// platform build of a package (the sandbox's npm mirror only has linux-x64 ones). npm leaves such optional
// dependencies out of the lock, and `npm ci` then refuses the lock as out of sync. This adds each missing
// pinned optional dependency as an optional lock entry with the os/cpu its name declares, which npm skips
// on other platforms and fetches normally where it applies. Run after `npm install`: npm run lock:platforms
import fs from 'node:fs';
import { helpRequested } from './cli.ts';

interface LockEntry {
  version?: string;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
}

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'riscv64', 'ppc64', 's390x', 'loong64', 'wasm32', 'mips64el'];

/** os, cpu and libc as a platform package's name states them, e.g. binding-linux-arm64-musl. */
export function platformOf(name: string): Pick<LockEntry, 'os' | 'cpu' | 'libc'> {
  const parts = name.split('/').pop()!.split('-');
  const os = OS.find((o) => parts.includes(o) || (o === 'win32' && parts.includes('windows')));
  const cpu = CPU.find((c) => parts.includes(c) || (c === 'x64' && parts.includes('amd64')) || (c === 'arm' && parts.includes('armv7')));
  const libc = parts.includes('musl') ? 'musl' : parts.includes('gnu') && os === 'linux' ? 'glibc' : undefined;
  return { ...(os ? { os: [os] } : {}), ...(cpu && cpu !== 'wasm32' ? { cpu: [cpu] } : {}), ...(libc ? { libc: [libc] } : {}) };
}

export function addMissingPlatformEntries(lock: { packages: Record<string, LockEntry> }): string[] {
  const added: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    for (const [dep, spec] of Object.entries(entry.optionalDependencies ?? {})) {
      if (!/^\d+\.\d+\.\d+(?:-[\w.]+)?$/.test(spec)) continue; // only pinned platform builds
      const nested = `${where ? `${where}/` : ''}node_modules/${dep}`;
      const hoisted = `node_modules/${dep}`;
      if (lock.packages[nested] || lock.packages[hoisted]) continue;
      lock.packages[hoisted] = { version: spec, optional: true, ...platformOf(dep) };
      added.push(`${dep}@${spec}`);
    }
  }
  lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
  return added;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  helpRequested(`usage: npm run lock:platforms [-- <lockfile>]

After npm install: adds the pinned optional platform builds the registry mirror left out of
package-lock.json (default file), so npm ci accepts the lock everywhere.`);
  const file = process.argv[2] ?? 'package-lock.json';
  const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
  const added = addMissingPlatformEntries(lock);
  fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
  console.log(added.length ? `lock:platforms: added ${added.length} optional platform entries:\n  ${added.join('\n  ')}` : 'lock:platforms: nothing missing');
}
