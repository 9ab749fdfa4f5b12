// Builds the search index from a content snapshot into <DATA_DIR>/index/: the keyword index (lunr's JSON),
// one Float32 file of document vectors, the id table that maps rows to items, the builtin embedder's model
// when it is used, and manifest.json. Everything is written to a temporary folder that replaces the old
// index by rename, so a reader never sees half an index. A plain function: the server calls it at start
// when the index is missing or stale, the pipeline after content changes.
import fs from 'node:fs';
import path from 'node:path';
import type { Snapshot } from '../content/model.ts';
import { ANALYSER_VERSION } from './analyse.ts';
import { documentsFromSnapshot, languageVersions, type SearchDocument } from './documents.ts';
import { searchInputs } from './inputs.ts';
import { stringifyAscii, writeJsonPiecesFile } from '../json-file.ts';
import { BuiltinEmbedder } from './embedders/builtin.ts';
import type { Embedder, EmbedderSetting } from './embedders/embedder.ts';
import { createTransformersEmbedder } from './embedders/transformers.ts';
import { buildKeywordIndex, FIELD_BOOSTS } from './keyword.ts';
import { DELTA_FILES, docInputsBaseText, docInputsOf, documentHashes, INDEX_FILES, INDEX_FORMAT, indexDir, type IndexManifest, type ItemRef } from './manifest.ts';
import type { LoadedIndex } from './loaded.ts';
import { LEXICON_FILE, saveLexicon, trainLexicon } from './translate.ts';

export interface BuildOptions {
  dataDir: string;
  /** A resolved setting (see resolveEmbedderSetting), or a ready embedder. */
  embedder: EmbedderSetting | Embedder;
  log?: (m: string) => void;
  /** Called as documents are embedded (the slow part with a transformer model): done and total rows. */
  onProgress?: (done: number, total: number) => void;
}

/** Rows embedded per call, so progress can be reported and a transformer's batches stay bounded. */
const EMBED_BATCH = 512;

/** Every document's language versions embedded, in row order. */
export async function embedRows(embedder: Embedder, rows: readonly SearchDocument[], onProgress?: (done: number, total: number) => void): Promise<Float32Array> {
  const dim = embedder.info.dimension;
  const out = new Float32Array(rows.length * dim);
  onProgress?.(0, rows.length); // the count starts before the first batch, so its rate is the batch's
  for (let i = 0; i < rows.length; i += EMBED_BATCH) {
    const part = await embedder.embedDocuments(rows.slice(i, i + EMBED_BATCH));
    out.set(part, i * dim);
    onProgress?.(Math.min(i + EMBED_BATCH, rows.length), rows.length);
  }
  return out;
}

function isEmbedder(e: EmbedderSetting | Embedder): e is Embedder {
  return 'embedDocuments' in e;
}

/** rename, replacing `to`; the old folder is moved aside first and removed after. */
function swapIn(from: string, to: string): void {
  const aside = `${to}.old-${process.pid}-${Date.now()}`;
  if (fs.existsSync(to)) fs.renameSync(to, aside);
  fs.renameSync(from, to);
  fs.rmSync(aside, { recursive: true, force: true });
}

export async function buildSearchIndex(snapshot: Snapshot, opts: BuildOptions): Promise<LoadedIndex> {
  const started = performance.now();
  const docs = documentsFromSnapshot(snapshot);
  // The builtin embedder's training runs its SVD in a worker thread (BuiltinEmbedder.train: ~4 s at 10k
  // videos), a transformer model loads; meanwhile this thread builds and writes the keyword index, the id
  // table, the delta's records and the lexicon, none of which needs the embedder. Awaited below, where its
  // error (if any) surfaces; the catch only keeps a failure from counting as unhandled before then.
  const training: Promise<Embedder> = isEmbedder(opts.embedder)
    ? Promise.resolve(opts.embedder)
    : opts.embedder.provider === 'builtin'
      ? BuiltinEmbedder.train(docs, opts.embedder.dimensions)
      : createTransformersEmbedder(opts.embedder);
  training.catch(() => {});
  const versions = docs.map(languageVersions);
  const firstRows: number[] = [];
  let rows = 0;
  for (const v of versions) {
    firstRows.push(rows);
    rows += v.length;
  }
  const keyword = buildKeywordIndex(docs, firstRows);
  const ids: ItemRef[] = versions.flatMap((v) => v.map((d) => ({ type: d.type, id: d.id })));

  const dir = indexDir(opts.dataDir);
  fs.mkdirSync(opts.dataDir, { recursive: true });
  // Leftovers of an interrupted build are removed before a new one starts.
  for (const name of fs.readdirSync(opts.dataDir)) {
    if (/^index\.(tmp|old)-/.test(name)) fs.rmSync(path.join(opts.dataDir, name), { recursive: true, force: true });
  }
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  fs.mkdirSync(tmp);
  try {
    writeJsonPiecesFile(path.join(tmp, INDEX_FILES.keyword), keyword.serialised());
    fs.writeFileSync(path.join(tmp, INDEX_FILES.ids), stringifyAscii(ids));
    // What each indexed document was, so later runs can add only what changed (delta.ts).
    const hashes = documentHashes(docs);
    fs.writeFileSync(path.join(tmp, DELTA_FILES.hashes), stringifyAscii(hashes));
    // A new base of the input keys, without a delta (the folder replaces the old one, its delta with it).
    fs.writeFileSync(path.join(tmp, DELTA_FILES.inputs), docInputsBaseText(docInputsOf(searchInputs(snapshot), (k) => hashes[k])));
    // The query translation lexicon (translate.ts) is learnt from the same documents.
    const lexicon = trainLexicon(docs);
    saveLexicon(tmp, lexicon);
    const embedder = await training;
    const vectors = await embedRows(embedder, versions.flat(), opts.onProgress);
    fs.writeFileSync(path.join(tmp, INDEX_FILES.vectors), new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength));
    const embedderFiles: string[] = [];
    if (embedder instanceof BuiltinEmbedder) {
      embedder.save(tmp);
      embedderFiles.push('builtin-embedder.json', 'builtin-embedder.f32');
    }
    const bytes = fs.readdirSync(tmp).reduce((n, f) => n + fs.statSync(path.join(tmp, f)).size, 0);
    const manifest: IndexManifest = {
      format: INDEX_FORMAT,
      analyser: ANALYSER_VERSION,
      built_at: new Date().toISOString(),
      content_hash: snapshot.contentHash,
      items: docs.length,
      base_items: docs.length,
      rows,
      embedder: embedder.info,
      keyword: { ...keyword.stats, boosts: FIELD_BOOSTS },
      files: { ...INDEX_FILES, embedder: embedderFiles, lexicon: LEXICON_FILE },
      build_ms: Math.round(performance.now() - started),
      bytes,
    };
    fs.writeFileSync(path.join(tmp, INDEX_FILES.manifest), JSON.stringify(manifest, null, 2) + '\n');
    swapIn(tmp, dir);
    opts.log?.(`search: indexed ${docs.length} items in ${(manifest.build_ms / 1000).toFixed(1)} s (${embedder.info.name} ${embedder.info.model}, ${embedder.info.dimension} dims)`);
    return { dir, manifest, ...keyword.loaded(ids.length), ids, vectors, embedder, delta: null, lexicon };
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
