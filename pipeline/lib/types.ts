// What every job receives and returns.
import type { Config } from '../../src/lib/config.ts';
import type { InvalidFile, Snapshot } from '../../src/lib/content/model.ts';
import type { VideoListing } from '../../src/lib/content/files.ts';
import type { EarlyRender } from '../../src/lib/static-build/render.ts';

/**
 * What the jobs of one chain (pipeline/lib/chain.ts) hand on to the next. `indexed`: the content snapshot
 * update-index loaded and indexed; rebuild-site, next in the chain, publishes that same snapshot instead of
 * walking content/ again (~2.5 s at 100k videos), so the site shows exactly what search finds. An edit made
 * between the two reaches both at the next run, as any edit made while no job runs does. `render`: the
 * site's render process, started by the chain before the jobs that lead to rebuild-site, so that Astro's
 * start and bundling (~5 s) overlap them; `env` is the build environment it was started with.
 */
export interface ChainState {
  /**
   * The video files summarise listed, with the ones it wrote put in: update-index, next in the chain, loads
   * the corpus without walking videos/ again (~1–2 s at 100k videos). Taken by the first job that uses it.
   */
  videos?: VideoListing;
  indexed?: { contentDir: string; snapshot: Snapshot };
  /**
   * The content update-index's worker loaded while the scheduler waited for the folder to be quiet
   * (pipeline/jobs/worker.ts), handed on only when no change was seen after its listing began: update-index
   * then indexes it as it is, without listing the folder again.
   */
  preloaded?: { contentDir: string; snapshot: Snapshot };
  render?: { env: Record<string, string | undefined>; render: EarlyRender };
}

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
  /** Set when the job runs in a chain: what the chain's earlier jobs handed on. */
  chain?: ChainState;
}

export interface JobResult {
  counts: Record<string, number>;
  /** True when the job changed content (so the site should be rebuilt). */
  changed: boolean;
  /** One clear line per problem; a job with errors is recorded as failed. */
  errors: string[];
  /**
   * A job that loaded the whole content (leniently): the files that failed validation, published at their
   * last valid version or left out. Recorded as the status file's content check (not an error: the rest
   * was published).
   */
  invalid?: InvalidFile[];
}
