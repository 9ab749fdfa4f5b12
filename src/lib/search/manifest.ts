// The index manifest: what an index folder holds and what it was built from. The server compares it with
// the content snapshot and the configured embedder to decide whether the index on disk can be used.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ANALYSER_VERSION } from './analyse.ts';
import { docKey, type Field, type ItemType, type SearchDocument } from './documents.ts';
import { embedderMatches, type EmbedderInfo, type EmbedderSetting } from './embedders/embedder.ts';
import type { KeywordStats } from './keyword.ts';
import type { InputsRecord, SearchInputs } from './inputs.ts';
import { readJsonFile } from '../json-file.ts';

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
  /** The content snapshot's hash (Snapshot.contentHash) the index serves (base and delta). */
  content_hash: string;
  /** Items the index serves now (base items, minus those deleted, plus new ones). */
  items: number;
  /** Items of the full build (the base); absent in indexes built before incremental updates. */
  base_items?: number;
  /** Present when a delta (delta.ts) brings the base up to content_hash: since the full build of `since`. */
  delta?: { since: string; updated_at: string; documents: number; removed: number };
  /** Vector rows: one per language version of an item. */
  rows: number;
  embedder: EmbedderInfo;
  keyword: KeywordStats & { boosts: Record<Field, number> };
  files: typeof INDEX_FILES & { embedder?: string[]; lexicon?: string };
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

/**
 * The incremental update's files (delta.ts): the base's document hashes, the delta over the base, and each
 * current document's input key with its hash (search/inputs.ts), so an update builds only the documents
 * whose inputs moved.
 */
export const DELTA_FILES = { hashes: 'doc-hashes.json', delta: 'delta.json', inputs: 'doc-inputs.json' } as const;

/** Per document key, its input key and the hash of the document those inputs gave. */
export type DocInputs = Record<string, [inputKey: string, hash: string]>;

/**
 * doc-inputs.json: the keyed documents (DocInputs) and what the next update needs to compute only the keys
 * that may have moved (inputs.ts, InputsRecord), in one file so that the two always describe the same run.
 * A file of the first form (the DocInputs alone) is read as keys without a record: every key is computed.
 */
export interface DocInputsFile {
  version: 2;
  keys: DocInputs;
  record: InputsRecord;
}

/** The record of keyed documents (those with an input key, with their hashes) and the inputs' record. */
export function docInputsOf(inputs: SearchInputs, hashOf: (key: string) => string | undefined): DocInputsFile {
  const keys: DocInputs = {};
  for (const [key, input] of inputs.keys) {
    const h = input === null ? undefined : hashOf(key);
    if (input !== null && h !== undefined) keys[key] = [input, h];
  }
  return { version: 2, keys, record: inputs.record };
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** doc-inputs.json as searchInputs takes it; missing, unreadable or of another shape: no keys (every key is computed). */
export function readDocInputs(file: string): { keys: DocInputs; record?: InputsRecord } {
  let raw: unknown;
  try {
    raw = readJsonFile(file);
  } catch {
    return { keys: {} };
  }
  if (!isObject(raw)) return { keys: {} };
  if (!('version' in raw)) return { keys: raw as DocInputs }; // the first form
  const { version, keys, record } = raw as Partial<DocInputsFile>;
  const usable = version === 2 && isObject(keys) && isObject(record) && typeof record.salt === 'string' && isObject(record.items) && isObject(record.cites);
  return usable ? { keys, record } : { keys: {} };
}

export function documentHash(doc: SearchDocument): string {
  return createHash('sha256').update(JSON.stringify(doc)).digest('base64url');
}

export function documentHashes(docs: readonly SearchDocument[]): Record<string, string> {
  return Object.fromEntries(docs.map((d) => [docKey(d.type, d.id), documentHash(d)]));
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

/** readManifest without blocking the event loop (a running server preparing a reload). */
export async function readManifestAsync(dir: string): Promise<IndexManifest | null> {
  try {
    return JSON.parse(await fs.promises.readFile(path.join(dir, INDEX_FILES.manifest), 'utf8')) as IndexManifest;
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
