// The incremental side of the search index. A full build (build.ts) writes the base: the keyword index,
// vectors and the hash of every document it indexed (doc-hashes.json). Between full builds, updateSearchIndex
// compares the snapshot's documents with those hashes and writes delta.json: the documents that are new or
// changed since the base (with their vectors, from the base's own embedder: the builtin one folds them into
// its existing basis) and the base items that left or changed (tombstones). The manifest then names the
// current content and counts; the server serves base minus tombstones plus the delta (the delta through
// the live index). The delta is always relative to the base, so a run never stacks on a broken one, and
// a full rebuild (nightly, or when the delta outgrows MAX_DELTA_SHARE) folds it back in.
import path from 'node:path';
import type { Snapshot } from '../content/model.ts';
import { statKey } from '../content/stat-keys.ts';
import { writeFileAtomic } from '../fs-atomic.ts';
import { readJsonFile, stringifyAscii } from '../json-file.ts';
import { ANALYSER_VERSION } from './analyse.ts';
import { buildSearchIndex, embedRows } from './build.ts';
import { docKey, documentsFromSnapshot, languageVersions, type SearchDocument } from './documents.ts';
import type { EmbedderSetting } from './embedders/embedder.ts';
import { embedderForIndex } from './embedders/select.ts';
import { embedderMatches } from './embedders/embedder.ts';
import { DELTA_FILES, docInputsOf, documentHash, INDEX_FILES, INDEX_FORMAT, indexDir, readDocInputs, readManifest, writeDocInputs, type DocInputsRead, type IndexManifest } from './manifest.ts';
import { searchInputs } from './inputs.ts';
import type { LoadedDelta } from './loaded.ts';


/** Above this share of the base's items in the delta, a full build is both better and not much slower. */
export const MAX_DELTA_SHARE = 0.2;
/** ...but a small base may take this many changed items before it is rebuilt. */
export const MIN_DELTA_ALLOWANCE = 500;

export interface DeltaFile {
  /** built_at of the base this delta applies to. */
  base_built_at: string;
  content_hash: string;
  updated_at: string;
  dimension: number;
  /** New and changed documents, each with its hash and one base64 Float32 vector per language version. */
  documents: { hash: string; doc: SearchDocument; vectors: string[] }[];
  /** Keys of base items no longer current (deleted, or replaced by a changed document above). */
  removed: string[];
}

function toBase64(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

function fromBase64(s: string, dimension: number): Float32Array {
  const buf = Buffer.from(s, 'base64');
  const out = new Float32Array(buf.byteLength / 4);
  new Uint8Array(out.buffer).set(buf);
  if (out.length !== dimension) throw new Error(`a delta vector has ${out.length} values, the index ${dimension}`);
  return out;
}

function readJson<T>(file: string): T | null {
  try {
    return readJsonFile(file) as T;
  } catch {
    return null;
  }
}

/** The delta the manifest names, or null when the index has none; throws when the two disagree. */
export function loadDelta(dir: string, manifest: IndexManifest): LoadedDelta | null {
  if (!manifest.delta) return null;
  const file = readJson<DeltaFile>(path.join(dir, DELTA_FILES.delta));
  if (!file || file.content_hash !== manifest.content_hash || file.base_built_at !== manifest.built_at) {
    throw new Error(`the delta in ${dir} does not match its manifest`);
  }
  const dim = manifest.embedder.dimension;
  return {
    documents: file.documents.map((d) => ({ doc: d.doc, vectors: d.vectors.map((v) => fromBase64(v, dim)) })),
    removed: new Set(file.removed),
  };
}

/**
 * The largest inputs of an update (the base's document hashes and the documents' input keys: ~14 and ~36 MB
 * of JSON at 100k videos, ~1 s to read) read ahead by a thread that waits meanwhile (rebuild-site's thread of
 * a pipeline chain, while summarise runs), with the index files' stat keys taken before reading. The next
 * update of the same folder takes them, once, if every file is still the one read; a build or an update in
 * between replaced some (written atomically: another inode), and they are read again.
 */
let readAhead: { dir: string; stamp: string; baseHashes: Record<string, string> | null; inputs: DocInputsRead } | null = null;

/** The index files an update reads, as they are now (their stat keys; a missing one has none). */
function indexFilesStamp(dir: string): string {
  return [INDEX_FILES.manifest, DELTA_FILES.hashes, DELTA_FILES.inputs, DELTA_FILES.inputsDelta].map((f) => statKey(path.join(dir, f)) ?? '-').join(' ');
}

/** Reads the next update's largest inputs ahead (see readAhead); the update takes them or reads them again. */
export function prefetchIndexInputs(dataDir: string): void {
  const dir = indexDir(dataDir);
  const stamp = indexFilesStamp(dir);
  readAhead = { dir, stamp, baseHashes: readJson<Record<string, string>>(path.join(dir, DELTA_FILES.hashes)), inputs: readDocInputs(dir) };
}

/** What was read ahead for `dir`, if its files are still those read; forgotten either way. */
function takeReadAhead(dir: string): typeof readAhead {
  const ahead = readAhead;
  readAhead = null;
  return ahead && ahead.dir === dir && ahead.stamp === indexFilesStamp(dir) ? ahead : null;
}

export interface UpdateResult {
  mode: 'unchanged' | 'delta' | 'full';
  /** Why a full build ran, when it did. */
  reason?: string;
  manifest: IndexManifest;
  added: number;
  removed: number;
  ms: number;
}

/**
 * Brings <DATA_DIR>/index up to the snapshot: nothing when it is current, a new delta over the base when
 * the base fits, else a full build.
 */
export async function updateSearchIndex(
  snapshot: Snapshot,
  opts: { dataDir: string; embedder: EmbedderSetting; log?: (m: string) => void; now?: () => Date; onProgress?: (done: number, total: number) => void },
): Promise<UpdateResult> {
  const started = performance.now();
  const dir = indexDir(opts.dataDir);
  const ahead = takeReadAhead(dir);
  const manifest = readManifest(dir);
  const full = async (reason: string): Promise<UpdateResult> => {
    opts.log?.(`search: full index build (${reason})`);
    const index = await buildSearchIndex(snapshot, { dataDir: opts.dataDir, embedder: opts.embedder, log: opts.log, onProgress: opts.onProgress });
    return { mode: 'full', reason, manifest: index.manifest, added: index.manifest.items, removed: 0, ms: Math.round(performance.now() - started) };
  };
  if (!manifest) return full('no index yet');
  if (manifest.format !== INDEX_FORMAT || manifest.analyser !== ANALYSER_VERSION) return full('the index format changed');
  if (!embedderMatches(manifest.embedder, opts.embedder)) return full('the embedder changed');
  if (manifest.content_hash === snapshot.contentHash) {
    return { mode: 'unchanged', manifest, added: 0, removed: 0, ms: Math.round(performance.now() - started) };
  }
  const baseHashes = ahead ? ahead.baseHashes : readJson<Record<string, string>>(path.join(dir, DELTA_FILES.hashes));
  if (!baseHashes) return full('the index has no document hashes (built before incremental updates)');

  // A document whose input key is the one recorded keeps its recorded hash and is not built; one that
  // differs from the base is then taken from the previous delta, which holds it (else it is built).
  const previous = manifest.delta ? readJson<DeltaFile>(path.join(dir, DELTA_FILES.delta)) : null;
  const previousDocs = new Map<string, { doc: SearchDocument; hash: string; vectors: string[] }>();
  if (previous && previous.base_built_at === manifest.built_at) for (const d of previous.documents) previousDocs.set(docKey(d.doc.type, d.doc.id), d);
  const read = ahead?.inputs ?? readDocInputs(dir);
  const { keys: recorded, record } = read;
  const inputs = searchInputs(snapshot, record && { record, key: (k) => recorded[k]?.[0] });
  const hashes = new Map<string, string>();
  const build = new Set<string>();
  for (const [key, input] of inputs.keys) {
    const was = recorded[key];
    const kept = input !== null && was !== undefined && was[0] === input ? was[1] : undefined;
    if (kept !== undefined && (baseHashes[key] === kept || previousDocs.get(key)?.hash === kept)) hashes.set(key, kept);
    else build.add(key);
  }
  // The items whose passages the documents to build need (see documentsFromSnapshot's `only`).
  const citers = new Set<string>();
  for (const key of build) for (const c of inputs.citedBy.get(key) ?? []) citers.add(c);
  const built = new Map<string, SearchDocument>();
  for (const doc of documentsFromSnapshot(snapshot, { wanted: (k) => build.has(k), mayCite: (k) => citers.has(k) })) {
    const key = docKey(doc.type, doc.id);
    built.set(key, doc);
    hashes.set(key, documentHash(doc));
  }

  const changed: { doc: SearchDocument; hash: string }[] = [];
  const removed: string[] = [];
  for (const key of inputs.keys.keys()) {
    // In the order of the documents (documentsFromSnapshot's), as the delta always listed them.
    const hash = hashes.get(key)!;
    if (baseHashes[key] === hash) continue;
    changed.push({ doc: built.get(key) ?? previousDocs.get(key)!.doc, hash });
    if (baseHashes[key] !== undefined) removed.push(key);
  }
  for (const key of Object.keys(baseHashes)) if (!hashes.has(key)) removed.push(key);
  const allowance = Math.max(MIN_DELTA_ALLOWANCE, Math.round(manifest.base_items! * MAX_DELTA_SHARE));
  if (changed.length + removed.length > allowance) return full(`${changed.length} new or changed and ${removed.length} removed items since the last full build`);

  // Vectors of documents the previous delta already embedded are kept: embedding is the slow part with a
  // transformer model.
  const known = new Map<string, string[]>();
  for (const [key, d] of previousDocs) known.set(`${key}\0${d.hash}`, d.vectors);
  const toEmbed = changed.filter((c) => !known.has(`${docKey(c.doc.type, c.doc.id)}\0${c.hash}`));
  const embedder = await embedderForIndex(dir, manifest.embedder, opts.embedder);
  const versions = toEmbed.map((c) => languageVersions(c.doc));
  const matrix = await embedRows(embedder, versions.flat(), opts.onProgress);
  const dim = manifest.embedder.dimension;
  let row = 0;
  for (let i = 0; i < toEmbed.length; i++) {
    const c = toEmbed[i];
    const vs = versions[i].map(() => toBase64(matrix.subarray(row * dim, (row + 1) * dim).slice()));
    row += versions[i].length;
    known.set(`${docKey(c.doc.type, c.doc.id)}\0${c.hash}`, vs);
  }
  const updatedAt = (opts.now?.() ?? new Date()).toISOString();
  const delta: DeltaFile = {
    base_built_at: manifest.built_at,
    content_hash: snapshot.contentHash,
    updated_at: updatedAt,
    dimension: dim,
    documents: changed.map((c) => ({ hash: c.hash, doc: c.doc, vectors: known.get(`${docKey(c.doc.type, c.doc.id)}\0${c.hash}`)! })),
    removed,
  };
  const next: IndexManifest = {
    ...manifest,
    content_hash: snapshot.contentHash,
    items: hashes.size,
    delta: { since: manifest.built_at, updated_at: updatedAt, documents: changed.length, removed: removed.length },
  };
  // The delta first, then the manifest that names it: a reader that sees the new manifest finds its delta.
  // The input keys before both (their delta over the base, or a new base): a crash between leaves keys that
  // describe the documents as they are now, which the next update's delta is computed from anyway.
  // Only the documents built (the others keep their key and hash as read) and those whose item changed,
  // came or went (the record's items differ there alone; a document gone had its item recorded) can have
  // other entries than those read.
  const changes = inputs.changed && { docs: [...build, ...inputs.changed], documents: inputs.keys.size };
  const keysWritten = writeDocInputs(dir, docInputsOf(inputs, (k) => hashes.get(k)), read, changes ?? undefined);
  writeFileAtomic(path.join(dir, DELTA_FILES.delta), stringifyAscii(delta));
  writeFileAtomic(path.join(dir, INDEX_FILES.manifest), JSON.stringify(next, null, 2) + '\n');
  const ms = Math.round(performance.now() - started);
  opts.log?.(`search: index updated in ${ms} ms: ${changed.length} new or changed items (${toEmbed.length} embedded), ${removed.length} removed since the full build of ${manifest.built_at}; ${built.size} of ${hashes.size} documents built (the others' inputs unchanged; ${inputs.computed} input keys computed, recorded as a ${keysWritten === 'delta' ? 'delta' : 'new base'})`);
  return { mode: 'delta', manifest: next, added: changed.length, removed: removed.length, ms };
}
