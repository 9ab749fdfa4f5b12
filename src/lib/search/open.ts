// Opens the search index for a server: uses <DATA_DIR>/index when it was built from this content with the
// configured embedder, and otherwise builds it from the snapshot first, so a fresh clone searches on its
// first start.
import type { Config } from '../config.ts';
import type { Snapshot } from '../content/model.ts';
import { buildSearchIndex } from './build.ts';
import type { EmbedderSetting } from './embedders/embedder.ts';
import { resolveEmbedderSetting } from './embedders/select.ts';
import { loadSearchIndex } from './load.ts';
import { indexDir, readManifest, staleReason } from './manifest.ts';
import { SearchService } from './service.ts';

export async function openSearch(
  config: Pick<Config, 'dataDir' | 'embedding'>,
  snapshot: Snapshot,
  log: (m: string) => void = console.log,
  /** The service this one replaces (a reload): its loaded base is reused when the base did not change. */
  previous?: SearchService,
): Promise<SearchService> {
  const setting: EmbedderSetting = await resolveEmbedderSetting(config.embedding, log);
  const dir = indexDir(config.dataDir);
  const reason = staleReason(readManifest(dir), snapshot.contentHash, setting);
  if (reason === null) {
    try {
      return new SearchService(snapshot, await loadSearchIndex(dir, setting, previous?.loaded));
    } catch (err) {
      log(`search: the index in ${dir} could not be loaded (${(err as Error).message.split('\n')[0]}); rebuilding`);
    }
  } else {
    log(`search: building the index (${reason}) …`);
  }
  return new SearchService(snapshot, await buildSearchIndex(snapshot, { dataDir: config.dataDir, embedder: setting, log }));
}
