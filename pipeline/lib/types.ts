// What every job receives and returns.
import type { Config } from '../../src/lib/config.ts';
import type { InvalidFile, Snapshot } from '../../src/lib/content/model.ts';
import type { VideoListing } from '../../src/lib/content/files.ts';
import type { EarlyRender } from '../../src/lib/static-build/render.ts';

/** A job's result as runJob returns it. */
export type RunResult = JobResult & { ok: boolean; error: string | null };

/** The chain's side of rebuild-site's thread (site-thread.ts). */
export interface SiteThread {
  /**
   * update-index, run in the thread: it loads content/ (videos/ as summarise listed it, if given) once for
   * the search index and the site, and updates the index; the job's result.
   */
  index(videos: VideoListing | undefined): Promise<JobResult>;
  /** rebuild-site's turn in the chain: the thread may write dist/ now (and loads content/ itself if update-index did not run there); its result. */
  publish(): Promise<RunResult>;
  /** The chain ended before rebuild-site: the thread stops, dist/ unchanged. */
  cancel(): Promise<void>;
}

/**
 * What the jobs of one chain (pipeline/lib/chain.ts) hand on to the next. `site`: rebuild-site's thread,
 * started by the chain before summarise or update-index (site-thread.ts): update-index runs in it, so that
 * content/ is loaded once for the index and the site, and rebuild-site's turn in the chain is the thread's go
 * to publish. `render`: the site's render process, started before build-index (by the chain) or before an
 * editor's update-index (by its worker), so that Astro's start and bundling (~5 s) overlap them; `env` is the
 * build environment it was started with.
 */
export interface ChainState {
  /**
   * The video files summarise listed, with the ones it wrote put in: update-index, next in the chain, loads
   * the corpus without walking videos/ again (~1–2 s at 100k videos). Taken by the first job that uses it.
   */
  videos?: VideoListing;
  site?: SiteThread;
  /** Without `site`: the snapshot update-index indexed, which rebuild-site, next in this thread, publishes. */
  indexed?: { contentDir: string; snapshot: Snapshot };
  /**
   * The content update-index's worker loaded while the scheduler waited for the folder to be quiet
   * (pipeline/jobs/worker.ts), handed on only when no change was seen after its listing began: update-index
   * then indexes it as it is, without listing the folder again.
   */
  preloaded?: { contentDir: string; snapshot: Snapshot };
  render?: { env: Record<string, string | undefined>; render: EarlyRender };
  /**
   * In rebuild-site's thread: the content update-index loaded there (null: it did not run there, the site
   * loads content/ itself), and the go to write dist/ (rejected: the chain ended before rebuild-site).
   */
  beside?: { loaded: Promise<Snapshot | null>; beforeWrites: () => Promise<void> };
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
