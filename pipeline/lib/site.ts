// rebuild-site: the static build into a fresh folder, swapped in atomically (scripts/build.ts does the
// swap); a running server notices the new build-meta.json and reloads.
import { buildSite } from '../../scripts/build.ts';
import type { JobContext, JobResult } from './types.ts';

export async function rebuildSite(ctx: JobContext): Promise<JobResult> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    CONTENT_DIR: ctx.contentDir,
    DATA_DIR: ctx.dataDir,
    DIST_DIR: ctx.config.distDir,
    BASE_URL: ctx.config.baseUrl,
  };
  const meta = await buildSite(env);
  ctx.log(`rebuild-site: ${meta.files} files in ${(meta.built_in_ms / 1000).toFixed(1)} s`);
  return { counts: { files: meta.files, ms: meta.built_in_ms }, changed: false, errors: [] };
}
