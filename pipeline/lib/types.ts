// What every job receives and returns.
import type { Config } from '../../src/lib/config.ts';

export interface JobContext {
  config: Config;
  /** The environment config was read from (a job that starts a build hands it on whole). */
  env: Record<string, string | undefined>;
  contentDir: string;
  dataDir: string;
  /** Job options from the command line (e.g. --date for build-digest). */
  options: Record<string, string>;
  log: (line: string) => void;
  now: () => Date;
}

export interface JobResult {
  counts: Record<string, number>;
  /** True when the job changed content (so the site should be rebuilt). */
  changed: boolean;
  /** One clear line per problem; a job with errors is recorded as failed. */
  errors: string[];
}
