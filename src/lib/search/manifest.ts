// The index manifest: what an index folder holds and what it was built from. The server compares it with
// the content snapshot and the configured embedder to decide whether the index on disk can be used.
import fs from 'node:fs';
import path from 'node:path';
import { ANALYSER_VERSION } from './analyse.ts';
import type { Field, ItemType } from './documents.ts';
import { embedderMatches, type EmbedderInfo, type EmbedderSetting } from './embedders/embedder.ts';
import type { KeywordStats } from './keyword.ts';

/** Bumped when the folder's layout or the meaning of a file changes. */
export const INDEX_FORMAT = 1;

export const INDEX_FILES = {
  manifest: 'manifest.json',
  keyword: 'keyword.json',
  vectors: 'vectors.f32',
  ids: 'ids.json',
} as const;

export interface IndexManifest {
  format: number;
  analyser: number;
  built_at: string;
  /** The content snapshot's hash (Snapshot.contentHash) the index was built from. */
  content_hash: string;
  items: number;
  /** Vector rows: one per language version of an item. */
  rows: number;
  embedder: EmbedderInfo;
  keyword: KeywordStats & { boosts: Record<Field, number> };
  files: typeof INDEX_FILES & { embedder?: string[] };
  build_ms: number;
  /** Total size of the index's files, the manifest aside. */
  bytes: number;
}

/**
 * One row of ids.json and of vectors.f32. An item with several language versions owns consecutive rows;
 * its first row number is its document ref in the keyword index.
 */
export interface ItemRef {
  type: ItemType;
  id: string;
}

export function indexDir(dataDir: string): string {
  return path.join(dataDir, 'index');
}

export function readManifest(dir: string): IndexManifest | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, INDEX_FILES.manifest), 'utf8')) as IndexManifest;
  } catch {
    return null;
  }
}

/** Why the index in `dir` cannot serve this content and embedder, or null when it can. */
export function staleReason(manifest: IndexManifest | null, contentHash: string, setting: EmbedderSetting): string | null {
  if (!manifest) return 'no index yet';
  if (manifest.format !== INDEX_FORMAT || manifest.analyser !== ANALYSER_VERSION) return 'the index format changed';
  if (manifest.content_hash !== contentHash) return 'content changed since the index was built';
  if (!embedderMatches(manifest.embedder, setting)) return `the embedder changed (${manifest.embedder.name} ${manifest.embedder.model} → ${setting.provider === 'builtin' ? 'builtin lsa' : `transformers ${setting.model}`})`;
  if (setting.provider === 'builtin' && manifest.embedder.dimension > setting.dimensions) return 'EMBEDDING_DIMENSIONS changed';
  return null;
}
