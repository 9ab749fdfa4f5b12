// The pipeline's jobs by name, their default schedules, and which ones follow which.
import type { JobContext, JobResult } from './types.ts';
import { ingestVideos } from './ingest.ts';
import { summariseVideos } from './summarise.ts';
import { buildDigest } from './digest.ts';
import { rebuildSite } from './site.ts';

export interface JobSpec {
  run: (ctx: JobContext) => Promise<JobResult>;
  /** Cron (UTC) from PIPELINE_CRON_<NAME>, else this default; null = only after another job. */
  cron: string | null;
  description: string;
}

export const JOBS: Record<string, JobSpec> = {
  'ingest-videos': { run: ingestVideos, cron: '0 * * * *', description: 'new videos from channel feeds and the inbox' },
  summarise: { run: (ctx) => summariseVideos(ctx), cron: null, description: 'summaries and tags for new videos (after ingest)' },
  'build-digest': { run: buildDigest, cron: '0 5 * * *', description: "the day's digest, for the previous day" },
  'rebuild-site': { run: rebuildSite, cron: null, description: 'the static site (after any job that changed content)' },
};

/** What runs when a job finishes: summarise after ingest; the site after anything that changed content. */
export function followUps(job: string, result: JobResult): string[] {
  const next: string[] = [];
  if (job === 'ingest-videos' && result.counts.added > 0) next.push('summarise');
  if (result.changed && job !== 'rebuild-site' && !next.includes('summarise')) next.push('rebuild-site');
  return next;
}
