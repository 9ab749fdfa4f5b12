// The context every job runs with, from the same configuration the server reads.
import { loadConfig } from '../../src/lib/config.ts';
import { ensurePrivateDir } from '../../src/lib/data-dir.ts';
import type { JobContext } from './types.ts';

export function jobContext(options: Record<string, string> = {}, env: Record<string, string | undefined> = process.env): JobContext {
  const config = loadConfig(env);
  ensurePrivateDir(config.dataDir);
  return {
    config,
    env,
    contentDir: config.contentDir,
    dataDir: config.dataDir,
    options,
    log: (line) => console.log(line),
    now: () => (env.PIPELINE_NOW ? new Date(env.PIPELINE_NOW) : new Date()),
  };
}
