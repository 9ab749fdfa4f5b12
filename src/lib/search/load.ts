// Loads a built index from disk into memory: the lunr index, the vector matrix, the id table and the
// embedder that queries it.
import path from 'node:path';
import lunr from 'lunr';
import type { EmbedderSetting } from './embedders/embedder.ts';
import { readFloat32 } from './embedders/builtin.ts';
import { embedderForIndex } from './embedders/select.ts';
import { INDEX_FILES, readManifest, type ItemRef } from './manifest.ts';
import { readJsonFile } from '../json-file.ts';
import { takePostings } from './postings.ts';
import { loadDelta } from './delta.ts';
import type { LoadedIndex } from './loaded.ts';
import { loadLexicon } from './translate.ts';

/**
 * @param reuse an index loaded earlier from the same folder: when its base is the one on disk, only the
 * manifest and the delta are read again (the server's reload after an incremental update).
 */
export async function loadSearchIndex(dir: string, setting: EmbedderSetting, reuse?: LoadedIndex): Promise<LoadedIndex> {
  const manifest = readManifest(dir);
  if (!manifest) throw new Error(`no search index in ${dir}`);
  if (reuse && reuse.dir === dir && reuse.manifest.built_at === manifest.built_at && reuse.manifest.rows === manifest.rows) {
    return { ...reuse, manifest, delta: loadDelta(dir, manifest) };
  }
  const keyword = lunr.Index.load(readJsonFile(path.join(dir, INDEX_FILES.keyword)) as object);
  const ids = readJsonFile(path.join(dir, INDEX_FILES.ids)) as ItemRef[];
  const vectors = readFloat32(path.join(dir, INDEX_FILES.vectors));
  if (ids.length !== manifest.rows || vectors.length !== manifest.rows * manifest.embedder.dimension) {
    throw new Error(`search index in ${dir} is inconsistent: ${ids.length} ids, ${vectors.length} vector values, manifest says ${manifest.rows} × ${manifest.embedder.dimension}`);
  }
  const embedder = await embedderForIndex(dir, manifest.embedder, setting);
  return { dir, manifest, keyword, postings: takePostings(keyword, ids.length), ids, vectors, embedder, delta: loadDelta(dir, manifest), lexicon: loadLexicon(dir) };
}
