// npm start: builds dist/ when it is missing or was built from other content or another BASE_URL, then
// serves, and runs the content pipeline's scheduler beside the server (PIPELINE=off: serve only). Installs nothing.
import { ConfigError, loadConfig } from '../src/lib/config.ts';
import { loadSnapshot, ContentError } from '../src/lib/content/load.ts';
import { SERVED_AS } from '../src/lib/content/model.ts';
import { contentCacheDir } from '../src/lib/content/parse-cache.ts';
import { buildSiteIncremental } from '../src/lib/static-build/incremental.ts';
import { startServer } from '../api/server.ts';
import { readBuildMeta } from '../api/builds.ts';
import { INDEX_JOBS, startScheduler } from '../pipeline/scheduler.ts';
import { contentRequests } from '../pipeline/lib/content-requests.ts';
import { helpRequested } from './cli.ts';

helpRequested(`usage: npm start

Builds dist/ when it is missing or was built from other content or another BASE_URL, then serves the site,
the API and MCP on PORT (default 4321), and runs the content pipeline's scheduler beside the server
(PIPELINE=off: serve only). Every setting is an environment variable: see the README's configuration table.`);
let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`start: ${err.message}`);
  process.exit(1);
}
try {
  // Lenient: a file that fails validation is reported here and left out (or served at its last valid
  // version); the rest is served.
  const snapshot = loadSnapshot(config.contentDir, { cacheDir: contentCacheDir(config.dataDir), lenient: true });
  for (const f of snapshot.invalid) console.error(`start: ${f.path} fails validation (${f.reasons.join('; ')}): ${SERVED_AS[f.served]}`);
  const meta = readBuildMeta(config.distDir);
  const reason = !meta
    ? 'no build yet'
    : meta.content_hash !== snapshot.contentHash
      ? 'content changed since the last build'
      : meta.base_url !== config.baseUrl
        ? `BASE_URL changed (${meta.base_url} -> ${config.baseUrl})`
        : null;
  if (reason) {
    console.log(`start: building dist/ (${reason}) …`);
    // Only what changed, when there is a build to update (a full build otherwise, as npm run build makes).
    const built = await buildSiteIncremental(process.env, { log: (m) => console.log(`start: ${m}`) });
    console.log(`start: built in ${(built.built_in_ms / 1000).toFixed(1)} s (${built.mode === 'full' ? 'full build' : `${built.written!.length} files written, ${built.removed!.length} removed`})`);
  }
} catch (err) {
  if (err instanceof ContentError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
const running = await startServer(config);
console.log(`start: ${config.siteName} on ${config.baseUrl} (listening on ${running.url}; ${running.staticSite.fileCount} prerendered files)`);
// The pipeline's scheduler runs beside the server (its jobs in worker threads), unless PIPELINE=off says
// this instance only serves (a read-only replica, or the pipeline runs elsewhere). It watches the content
// folder (PIPELINE_WATCH) and reads admins' requests from the server's database.
const scheduler = config.pipeline
  ? await startScheduler({
      dataDir: config.dataDir,
      watch: config.pipelineWatch.enabled ? { contentDir: config.contentDir, quietMs: config.pipelineWatch.quietMs, scanSeconds: config.pipelineWatch.scanSeconds } : undefined,
      requests: await contentRequests(running.db, config.dataDir),
      // The server loads the content of the build under way as the folder settles (again as its index job
      // lists it, if a change came after that load began), opens the search index while the site is built,
      // and swaps the build in when rebuild-site is done, not a second later.
      onChanging: () => running.prepareContent(),
      onIndexing: (changedAt) => running.prepareContent(changedAt),
      onJobDone: (job, ok) => {
        if (INDEX_JOBS.has(job)) {
          if (ok) running.prepareReload();
          else running.dropPrepared();
        }
        if (job === 'rebuild-site') {
          if (ok) running.reload();
          else running.dropPrepared();
        }
      },
    })
  : null;
if (!scheduler) console.log('start: PIPELINE=off: the content pipeline does not run in this process');
const stop = () => void Promise.all([scheduler?.stop(), running.close()]).then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
