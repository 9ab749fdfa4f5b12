// The transformer embedder: a sentence-embedding model (default Xenova/all-MiniLM-L6-v2, English; for
// English and Slovenian Xenova/multilingual-e5-small, see README, Search) run by @huggingface/transformers
// on onnxruntime-node, mean-pooled and normalised. Models load from EMBEDDING_MODEL_DIR or the library's
// cache; the network is used only when EMBEDDING_ALLOW_DOWNLOAD is on. The library is imported on first
// use, so servers on the builtin embedder never load it.
import fs from 'node:fs';
import path from 'node:path';
import type { SearchDocument } from '../documents.ts';
import { normalise, type Embedder, type EmbedderInfo } from './embedder.ts';

export interface TransformersSetting {
  model: string;
  modelDir?: string;
  allowDownload: boolean;
  dtype: string;
}

export class EmbedderUnavailableError extends Error {}

type Extractor = (texts: string[], opts: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: ArrayLike<number>; dims: number[] }>;

/** Model files beyond this are cut by the tokenizer anyway; not handing it a whole essay saves time. */
const MAX_DOCUMENT_CHARS = 2000;
const BATCH = 16;

async function library(setting: TransformersSetting) {
  const lib = await import('@huggingface/transformers');
  // The library's settings are process-wide; one process uses one embedding configuration.
  lib.env.allowLocalModels = true;
  lib.env.allowRemoteModels = setting.allowDownload;
  if (setting.modelDir) lib.env.localModelPath = path.resolve(setting.modelDir) + path.sep;
  return lib;
}

const onnxFile = (dtype: string) => `model${{ fp32: '', fp16: '_fp16', q8: '_quantized', int8: '_int8', uint8: '_uint8', q4: '_q4' }[dtype] ?? ''}.onnx`;

/** Where the model's files are on disk (EMBEDDING_MODEL_DIR, then the library cache), or null. */
export async function findLocalModel(setting: TransformersSetting): Promise<string | null> {
  const { env } = await library(setting);
  const roots = [setting.modelDir ? path.resolve(setting.modelDir) : env.localModelPath, env.cacheDir].filter((r): r is string => !!r);
  for (const root of roots) {
    const dir = path.join(root, setting.model);
    if (fs.existsSync(path.join(dir, 'config.json')) && fs.existsSync(path.join(dir, 'onnx', onnxFile(setting.dtype)))) return dir;
  }
  return null;
}

/**
 * What a model family expects before each text. The E5 models (intfloat/e5-*, multilingual-e5-*) were
 * trained with "query: " before questions and "passage: " before the texts that answer them, and rank
 * noticeably worse without; other sentence-embedding models take the text as it is.
 */
export function textPrefixes(model: string): { query: string; document: string } {
  return /(^|\/)(multilingual-)?e5-/i.test(model) ? { query: 'query: ', document: 'passage: ' } : { query: '', document: '' };
}

/** The text a document is embedded from: what it is about first, since long texts are truncated. */
export function documentText(doc: SearchDocument): string {
  const text = [doc.fields.title, doc.fields.tags, doc.fields.summary, doc.fields.body]
    .map((parts) => parts.map((p) => p.text).join(' '))
    .filter(Boolean)
    .join('. ');
  return text.length > MAX_DOCUMENT_CHARS ? text.slice(0, MAX_DOCUMENT_CHARS) : text;
}

class TransformersEmbedder implements Embedder {
  readonly info: EmbedderInfo;
  readonly minSimilarity = 0.25;
  private readonly extractor: Extractor;
  private readonly prefixes: { query: string; document: string };

  constructor(extractor: Extractor, info: EmbedderInfo) {
    this.extractor = extractor;
    this.info = info;
    this.prefixes = textPrefixes(info.model);
  }

  private async embed(texts: string[]): Promise<Float32Array> {
    const d = this.info.dimension;
    const out = new Float32Array(texts.length * d);
    for (let i = 0; i < texts.length; i += BATCH) {
      const batch = texts.slice(i, i + BATCH).map((t) => t || ' ');
      const result = await this.extractor(batch, { pooling: 'mean', normalize: true });
      out.set(Float32Array.from(result.data), i * d);
    }
    return out;
  }

  embedDocuments(docs: readonly SearchDocument[]): Promise<Float32Array> {
    return this.embed(docs.map((d) => this.prefixes.document + documentText(d)));
  }

  async embedQuery(query: string): Promise<Float32Array> {
    return normalise(await this.embed([this.prefixes.query + query]));
  }
}

/** Loads the model (from disk unless downloads are allowed) and measures its output dimension. */
export async function createTransformersEmbedder(setting: TransformersSetting): Promise<Embedder> {
  const lib = await library(setting);
  let extractor: Extractor;
  try {
    extractor = (await lib.pipeline('feature-extraction', setting.model, { dtype: setting.dtype as 'fp32', device: 'cpu' })) as unknown as Extractor;
  } catch (err) {
    const where = [setting.modelDir ?? lib.env.localModelPath, lib.env.cacheDir].filter(Boolean).join(' or ');
    throw new EmbedderUnavailableError(
      `embedding model ${setting.model} (${setting.dtype}) could not be loaded from ${where}` +
        (setting.allowDownload ? '' : ' and downloads are off (EMBEDDING_ALLOW_DOWNLOAD=false)') +
        `: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  const probe = await extractor(['probe'], { pooling: 'mean', normalize: true });
  const dimension = probe.dims.at(-1)!;
  return new TransformersEmbedder(extractor, { name: 'transformers', model: setting.model, dimension, dtype: setting.dtype });
}
