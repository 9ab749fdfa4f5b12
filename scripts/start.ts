// npm start: builds dist/ when it is missing or was built from other content or another BASE_URL, then
// serves. Installs nothing.
import { ConfigError, loadConfig } from '../src/lib/config.ts';
import { loadSnapshot, ContentError } from '../src/lib/content/load.ts';
import { buildSite } from './build.ts';
import { readBuildMeta, startServer } from '../api/server.ts';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`start: ${err.message}`);
  process.exit(1);
}
try {
  const snapshot = loadSnapshot(config.contentDir);
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
    const built = await buildSite();
    console.log(`start: built in ${(built.built_in_ms / 1000).toFixed(1)} s`);
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
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
