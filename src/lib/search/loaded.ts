// A search index as it is held in memory: what loadSearchIndex (load.ts) reads from disk and
// buildSearchIndex (build.ts) returns, with the delta since its base (delta.ts). Types only, in a module of
// their own so the three need not import each other for them.
import type lunr from 'lunr';
import type { SearchDocument } from './documents.ts';
import type { Embedder } from './embedders/embedder.ts';
import type { IndexManifest, ItemRef } from './manifest.ts';
import type { KeywordScorer } from './postings.ts';
import type { Lexicon } from './translate.ts';

export interface LoadedIndex {
  dir: string;
  manifest: IndexManifest;
  /** The lunr index, for its token set (fuzzy and prefix lookups); its postings have moved to `postings`. */
  keyword: lunr.Index;
  postings: KeywordScorer;
  ids: ItemRef[];
  /** manifest.rows × manifest.embedder.dimension, row-major, rows L2-normalised. */
  vectors: Float32Array;
  embedder: Embedder;
  /** What changed since the base was built (delta.ts), or null. */
  delta: LoadedDelta | null;
  /** The query translation lexicon (translate.ts); absent in indexes built before it. */
  lexicon?: Lexicon | null;
}

/** The delta in memory: its documents with their vectors, and the keys of base items it replaces or removes. */
export interface LoadedDelta {
  documents: { doc: SearchDocument; vectors: Float32Array[] }[];
  removed: Set<string>;
}
