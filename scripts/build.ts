// npm run build: the full static build (src/lib/static-build/full.ts). Loads and validates content (failing
// with the file and field), runs Astro into a fresh folder and swaps it in. The pipeline's rebuild-site
// uses the incremental build (src/lib/static-build/incremental.ts) when it can.
import { ContentError } from '../src/lib/content/load.ts';
import { buildSite } from '../src/lib/static-build/full.ts';
import { helpRequested } from './cli.ts';

export { buildSite, type BuildMeta } from '../src/lib/static-build/full.ts';

if (import.meta.url === `file://${process.argv[1]}`) {
  helpRequested(`usage: npm run build [-- --json]

Validates content/ (failing with the file and the field) and builds dist/ into a fresh folder, swapped in
at the end. --json prints one machine-readable line (time, files, peak memory). Settings: CONTENT_DIR,
DIST_DIR, DATA_DIR, BASE_URL (see the README's configuration table).`);
  try {
    // This process ends after the build: a small site's pages render here, not in a child (full.ts).
    const meta = await buildSite(process.env, { renderInProcess: true, strict: true });
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
