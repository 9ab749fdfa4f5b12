// The one interface every embedder implements, and what an index manifest records about the embedder that
// built it, so queries are embedded by the same model as the documents they are compared with.
import type { SearchDocument } from '../documents.ts';

export interface EmbedderInfo {
  /** `builtin` (LSA trained on the corpus) or `transformers` (a sentence-embedding model). */
  name: 'builtin' | 'transformers';
  /** `lsa` for builtin; the model id (e.g. Xenova/all-MiniLM-L6-v2) for transformers. */
  model: string;
  dimension: number;
  /** transformers only: the ONNX weights' data type (fp32, q8, …). */
  dtype?: string;
}

export interface Embedder {
  readonly info: EmbedderInfo;
  /**
   * Cosine similarity below which a vector hit is noise rather than a neighbour. Embedders differ: LSA
   * vectors of unrelated texts are near orthogonal, transformer vectors rarely go below 0.1.
   */
  readonly minSimilarity: number;
  /** One L2-normalised row per document, `docs.length × dimension`. */
  embedDocuments(docs: readonly SearchDocument[]): Promise<Float32Array>;
  /**
   * An L2-normalised vector, or all zeros when the embedder knows nothing in the query. `terms` are the
   * index terms the keyword side resolved the query to (typos corrected, prefixes completed) with their
   * weights; an embedder over index terms uses them, a model that reads text may ignore them.
   */
  embedQuery(query: string, terms?: ReadonlyMap<string, number>): Promise<Float32Array>;
}

/** How to get an embedder: the resolved configuration (see resolveEmbedderSetting in ./select.ts). */
export type EmbedderSetting =
  | { provider: 'builtin'; dimensions: number }
  | { provider: 'transformers'; model: string; modelDir?: string; allowDownload: boolean; dtype: string };

/** True when an index built with `info` can be queried under `setting` without a rebuild. */
export function embedderMatches(info: EmbedderInfo, setting: EmbedderSetting): boolean {
  if (setting.provider === 'builtin') return info.name === 'builtin';
  return info.name === 'transformers' && info.model === setting.model && (info.dtype ?? 'fp32') === setting.dtype;
}

/** Scales a vector to unit length in place; a zero vector stays zero. */
export function normalise(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}
