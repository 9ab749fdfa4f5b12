// Search over the knowledge base: keyword (lunr, English and Slovenian analysers), vectors from a pluggable
// embedder (builtin LSA or a transformer model), hybrid fusion by reciprocal rank, related items, and a
// live index for posts. Build with buildSearchIndex, serve with openSearch → SearchService.
export { buildSearchIndex, type BuildOptions } from './build.ts';
export { loadSearchIndex } from './load.ts';
export type { LoadedIndex } from './loaded.ts';
export { openSearch } from './open.ts';
export { SearchService, DEFAULT_HYBRID_TUNING, DRAFT_SCORE_MULTIPLIER, type HybridTuning, type SearchParams, type SearchHit, type SearchResult, type RelatedResult } from './service.ts';
export { documentFromPost, documentsFromSnapshot, ITEM_TYPES, type ItemType, type PostInput, type SearchDocument } from './documents.ts';
export { indexDir, readManifest, staleReason, type IndexManifest } from './manifest.ts';
export { resolveEmbedderSetting } from './embedders/select.ts';
export type { Embedder, EmbedderInfo, EmbedderSetting } from './embedders/embedder.ts';
