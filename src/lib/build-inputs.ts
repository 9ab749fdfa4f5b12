// What a static build renders from: the configuration, the content snapshot and the site context, loaded
// once per build process. scripts/build.ts fixes the generation time through KB_GENERATED_AT so the
// server, reading dist/build-meta.json, answers dynamic twins with the same bytes.
import { loadConfig } from './config.ts';
import { loadSnapshot } from './content/load.ts';
import { contentCacheDir } from './content/parse-cache.ts';
import type { Snapshot } from './content/model.ts';
import { siteContext, type SiteContext } from './site.ts';

// Per build: scripts/build.ts renders every build from a fresh bundle (a new module instance).
let cached: { snapshot: Snapshot; site: SiteContext } | undefined;

export function buildInputs(): { snapshot: Snapshot; site: SiteContext } {
  if (!cached) {
    const config = loadConfig();
    const at = process.env.KB_GENERATED_AT ? new Date(process.env.KB_GENERATED_AT) : new Date();
    cached = { snapshot: loadSnapshot(config.contentDir, { cacheDir: contentCacheDir(config.dataDir) }), site: siteContext(config, at) };
  }
  return cached;
}
