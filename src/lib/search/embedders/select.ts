// Chooses the embedder from configuration. `auto` (the default) takes the transformer model when its files
// are on disk (or downloads are allowed) and otherwise the builtin LSA embedder, saying so in one log line.
import type { Config } from '../../config.ts';
import type { Embedder, EmbedderInfo, EmbedderSetting } from './embedder.ts';
import { BuiltinEmbedder } from './builtin.ts';
import { createTransformersEmbedder, findLocalModel } from './transformers.ts';

export async function resolveEmbedderSetting(embedding: Config['embedding'], log: (m: string) => void = console.log): Promise<EmbedderSetting> {
  const builtin: EmbedderSetting = { provider: 'builtin', dimensions: embedding.dimensions };
  const transformers: EmbedderSetting = {
    provider: 'transformers',
    model: embedding.model,
    modelDir: embedding.modelDir,
    allowDownload: embedding.allowDownload,
    dtype: embedding.dtype,
  };
  if (embedding.provider === 'builtin') return builtin;
  if (embedding.provider === 'transformers') return transformers;
  if (embedding.allowDownload || (await findLocalModel(transformers))) return transformers;
  log(
    `search: no local files for the embedding model ${embedding.model} (EMBEDDING_MODEL_DIR ${embedding.modelDir ?? 'unset'}, downloads off); ` +
      `using the builtin LSA embedder trained on the corpus`,
  );
  return builtin;
}

/**
 * The embedder that queries an index: the builtin model saved beside it, or the transformer model its
 * manifest names (loaded under the configured directory and download rules).
 */
export async function embedderForIndex(dir: string, info: EmbedderInfo, setting: EmbedderSetting): Promise<Embedder> {
  if (info.name === 'builtin') return BuiltinEmbedder.load(dir);
  const t = setting.provider === 'transformers' ? setting : { modelDir: undefined, allowDownload: false };
  return createTransformersEmbedder({ model: info.model, dtype: info.dtype ?? 'fp32', modelDir: t.modelDir, allowDownload: t.allowDownload });
}
