// The site context every read may need beyond content: public origin, name, build time, the pipeline's
// last run. It is fixed when a snapshot is built so a prerendered file and its dynamic twin agree.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Config } from './config.ts';

export const SITE_DESCRIPTION =
  'A curated knowledge base on AI transformation in organisations: videos with summaries and tags, essays, ' +
  'daily digests, knowledge concepts and personas, in English and Slovenian. Built for people and AI agents.';

const JobRun = z.object({
  started_at: z.string(),
  finished_at: z.string().nullable().optional(),
  status: z.string(),
});
const PipelineStatusFile = z.object({ jobs: z.record(z.string(), JobRun) });

export interface PipelineSummary {
  last_run_at: string | null;
  last_status: string;
}

export interface SiteContext {
  baseUrl: string;
  siteName: string;
  description: string;
  /** When this snapshot was generated (ISO 8601 UTC, second precision). */
  generatedAt: string;
  devMode: boolean;
  keyPrefix: string;
  pipeline: PipelineSummary;
  /** 'proxy': the server fetches and caches real video thumbnails, so the build writes no title cards for them. */
  videoThumbnails?: 'card' | 'proxy';
}

/** The newest finished job run recorded in DATA_DIR/pipeline/status.json; "never" when none finished. */
export function readPipelineSummary(dataDir: string): PipelineSummary {
  const file = path.join(dataDir, 'pipeline', 'status.json');
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return { last_run_at: null, last_status: 'never' };
  }
  const parsed = PipelineStatusFile.safeParse(raw);
  if (!parsed.success) return { last_run_at: null, last_status: 'unknown' };
  let best: PipelineSummary = { last_run_at: null, last_status: 'never' };
  for (const run of Object.values(parsed.data.jobs)) {
    if (!run.finished_at) continue; // still running (or killed): not a completed run
    const at = run.finished_at;
    if (best.last_run_at === null || at > best.last_run_at) best = { last_run_at: at, last_status: run.status };
  }
  return best;
}

export function siteContext(config: Config, now = new Date()): SiteContext {
  return {
    baseUrl: config.baseUrl,
    siteName: config.siteName,
    description: SITE_DESCRIPTION,
    generatedAt: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    devMode: config.devMode,
    keyPrefix: config.keyPrefix,
    pipeline: readPipelineSummary(config.dataDir),
    videoThumbnails: config.videoThumbnails,
  };
}
