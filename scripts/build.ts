// npm run build: the static build. Loads and validates content (failing with the file and field), runs
// Astro into a fresh folder, writes dist/build-meta.json and swaps the folder in, so a running server or a
// CDN sync never sees a half-written dist/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/lib/config.ts';
import { loadSnapshot, ContentError } from '../src/lib/content/load.ts';
import { contentCacheDir } from '../src/lib/content/parse-cache.ts';
import { siteContext } from '../src/lib/site.ts';
import { helpRequested } from './cli.ts';

export interface BuildMeta {
  generated_at: string;
  base_url: string;
  content_hash: string;
  pipeline: { last_run_at: string | null; last_status: string };
  built_in_ms: number;
  files: number;
}

/**
 * Builds in one process count up: Astro imports its prerender bundle from the output folder, and Node
 * caches modules by path, so a second build into the same folder would render from the first bundle.
 */
let buildCount = 0;

/** rename, or copy and delete when the two folders are on different disks. */
function moveDir(from: string, to: string): void {
  fs.rmSync(to, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(to), { recursive: true });
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    fs.cpSync(from, to, { recursive: true });
    fs.rmSync(from, { recursive: true, force: true });
  }
}

export async function buildSite(env: Record<string, string | undefined> = process.env): Promise<BuildMeta> {
  const started = performance.now();
  const config = loadConfig(env);
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const snapshot = loadSnapshot(config.contentDir, { cacheDir: contentCacheDir(config.dataDir) }); // fail fast, before Astro starts
  const site = siteContext(config);
  // Astro imports its prerender bundle from the output folder, so the build must happen inside the project
  // (where node_modules resolves); it is then moved to DIST_DIR in one rename where the disk allows.
  const staging = path.join(root, 'node_modules', '.cache', `kb-build-${process.pid}-${++buildCount}`);
  fs.rmSync(staging, { recursive: true, force: true });
  const saved = { ...process.env };
  Object.assign(process.env, env, { DIST_DIR: staging, KB_GENERATED_AT: site.generatedAt, ASTRO_TELEMETRY_DISABLED: '1' });
  try {
    const { build } = await import('astro');
    await build({ root, logLevel: 'warn' });
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
  const meta: BuildMeta = {
    generated_at: site.generatedAt,
    base_url: config.baseUrl,
    content_hash: snapshot.contentHash,
    pipeline: site.pipeline,
    built_in_ms: Math.round(performance.now() - started),
    files: fs.readdirSync(path.join(staging, 'client'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length,
  };
  fs.writeFileSync(path.join(staging, 'build-meta.json'), JSON.stringify(meta, null, 2) + '\n');
  const incoming = `${config.distDir}.new-${process.pid}`;
  const old = `${config.distDir}.old-${process.pid}`;
  moveDir(staging, incoming);
  if (fs.existsSync(config.distDir)) fs.renameSync(config.distDir, old);
  fs.renameSync(incoming, config.distDir);
  fs.rmSync(old, { recursive: true, force: true });
  return meta;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  helpRequested(`usage: npm run build [-- --json]

Validates content/ (failing with the file and the field) and builds dist/ into a fresh folder, swapped in
at the end. --json prints one machine-readable line (time, files, peak memory). Settings: CONTENT_DIR,
DIST_DIR, DATA_DIR, BASE_URL (see the README's configuration table).`);
  try {
    const meta = await buildSite();
    if (process.argv.includes('--json')) {
      // One machine-readable line for scripts/bench: timing, file count and the process's peak memory.
      console.log(JSON.stringify({ built_in_ms: meta.built_in_ms, files: meta.files, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) }));
    } else {
      console.log(`build: dist/ ready in ${(meta.built_in_ms / 1000).toFixed(1)} s, ${meta.files} files (content ${meta.content_hash.slice(0, 12)})`);
    }
  } catch (err) {
    if (err instanceof ContentError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}
