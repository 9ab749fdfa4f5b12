// The pipeline's jobs by name, their default schedules, and which ones follow which.
import type { JobContext, JobResult } from './types.ts';

export interface JobSpec {
  run: (ctx: JobContext) => Promise<JobResult>;
  /** Cron (UTC) from PIPELINE_CRON_<NAME>, else this default; null = only after another job. */
  cron: string | null;
  description: string;
}

// Each job's code is imported when it runs: a worker or process that runs one job loads only that job's
// modules (the search index, Astro's build, the summariser), not every job's (~0.2 s of each start).
export const JOBS: Record<string, JobSpec> = {
  'ingest-videos': { run: async (ctx) => (await import('./ingest.ts')).ingestVideos(ctx), cron: '0 * * * *', description: 'new videos from channel feeds and the inbox' },
  summarise: {
    run: async (ctx) => {
      const { summariseVideos } = await import('./summarise.ts');
      return summariseVideos(ctx, ctx.config.llm ? (await import('./llm-summariser.ts')).llmSummariser(ctx.config.llm) : undefined);
    },
    cron: null,
    description: 'summaries and tags for new videos (after ingest)',
  },
  'build-digest': { run: async (ctx) => (await import('./digest.ts')).buildDigest(ctx), cron: '0 5 * * *', description: "the day's digest, for the previous day" },
  'build-knowledge': { run: async (ctx) => (await import('./knowledge.ts')).buildKnowledge(ctx), cron: '30 2 * * *', description: 'draft concepts and proposals derived from the sources' },
  'build-index': { run: async (ctx) => (await import('./search-index.ts')).buildIndex(ctx), cron: '0 3 * * *', description: 'the full search index and embeddings (retrains the builtin embedder)' },
  'update-index': { run: async (ctx) => (await import('./search-index.ts')).updateIndex(ctx), cron: null, description: 'new, changed and deleted items into the search index (after content changes)' },
  'rebuild-site': { run: async (ctx) => (await import('./site.ts')).rebuildSite(ctx), cron: null, description: 'the static site (after any job that changed content)' },
};

/**
 * The jobs rebuild-site follows in a chain when they run as one (followUps): summarise only runs after
 * ingest brought videos, and both index jobs always call for the site. A chain starts the site's render
 * process before them (chain.ts); before summarise and update-index, rebuild-site's whole thread
 * (SITE_BESIDE, site-thread.ts), in which update-index then runs: one snapshot for both.
 */
export const LEADS_TO_SITE: ReadonlySet<string> = new Set(['summarise', 'update-index', 'build-index']);
export const SITE_BESIDE: ReadonlySet<string> = new Set(['summarise', 'update-index']);

/**
 * What runs when a job finishes: summarise after ingest brought videos; after anything that changed
 * content, the incremental search index update and then the site (the site last, so a reader never finds
 * what search cannot); after the nightly full index, the site too (its search-facing documents).
 */
export function followUps(job: string, result: JobResult): string[] {
  if (job === 'ingest-videos' && result.counts.added > 0) return ['summarise'];
  if (job === 'build-index' || job === 'update-index') return ['rebuild-site'];
  if (result.changed && job !== 'rebuild-site') return ['update-index'];
  return [];
}
