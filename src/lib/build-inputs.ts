// What a static build renders from: the configuration, the content snapshot and the site context, loaded
// once per build process. scripts/build.ts fixes the generation time through KB_GENERATED_AT so the
// server, reading dist/build-meta.json, answers dynamic twins with the same bytes.
import { loadConfig } from './config.ts';
import { loadSnapshot } from './content/load.ts';
import { contentCacheDir } from './content/parse-cache.ts';
import type { Snapshot } from './content/model.ts';
import { siteContext, type SiteContext } from './site.ts';
import { readJsonFile } from './json-file.ts';

/**
 * The environment variable naming a JSON file of page models (PageModelsFile): the incremental build
 * computes the models of the pages it re-renders anyway, and hands them to the render process, which then
 * needs no snapshot of its own (loading one took ~8 s of a 100k-video incremental build's critical path).
 */
export const PAGE_MODELS_ENV = 'KB_PAGE_MODELS';

/** The environment variable fixing a build's generation time (ISO 8601); now when unset. */
export const GENERATED_AT_ENV = 'KB_GENERATED_AT';

export interface PageModelsFile {
  /** The site context of the build that computed the models. */
  site: SiteContext;
  /** By page key: the route, its params and the page's model (as JSON, which is what fingerprints hash). */
  pages: Record<string, { route: string; params: Record<string, string>; props: unknown }>;
}

let given: PageModelsFile | null | undefined;

/** The page models handed to this render process, or null (a full build: models come from the snapshot). */
export function givenPageModels(): PageModelsFile | null {
  if (given === undefined) {
    const file = process.env[PAGE_MODELS_ENV];
    given = file ? (readJsonFile(file) as PageModelsFile) : null;
  }
  return given;
}

// Per build: scripts/build.ts renders every build from a fresh bundle (a new module instance).
let cached: { snapshot: Snapshot; site: SiteContext } | undefined;

/** The snapshot (loaded when first asked for) and the site context of this build. */
export function buildInputs(): { snapshot: Snapshot; site: SiteContext } {
  if (!cached) {
    const config = loadConfig();
    const at = process.env[GENERATED_AT_ENV] ? new Date(process.env[GENERATED_AT_ENV]) : new Date();
    let snapshot: Snapshot | undefined;
    cached = {
      get snapshot() {
        // Lenient as the build that started this render: a strict build's content is valid, so the same.
        return (snapshot ??= loadSnapshot(config.contentDir, { cacheDir: contentCacheDir(config.dataDir), lenient: true }));
      },
      site: givenPageModels()?.site ?? siteContext(config, at),
    };
  }
  return cached;
}
