// What a chain's thread gives back once its jobs are done and rebuild-site's thread works on (site-thread.ts):
// at 100k videos the content it loaded, the parse cache's base and the index's working data are GBs, and the
// run's processes peaked together then, the chain's thread holding all that while rebuild-site's grew (decision 0064).
import v8 from 'node:v8';
import vm from 'node:vm';
import { forgetLastSnapshot } from '../../src/lib/content/load.ts';
import { forgetParseCacheBases } from '../../src/lib/content/parse-cache.ts';
import type { ChainState } from './types.ts';

/** Node's `gc`, where it runs without --expose-gc: the flag set now gives a new context the function (as jest-leak-detector does). */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/**
 * Drops what this thread loaded (the chain's hand-ons, the snapshot kept for the next load, the parse cache's
 * base) and collects it now: a thread that only waits next allocates nothing, so V8 would not collect it, and
 * memory V8 has collected is what another thread of the process allocates next (measured: a second thread's
 * 2.2 GB took the process from 2.3 to 2.6 GB after the first thread's 2.2 GB were collected).
 */
export function releaseLoaded(chain: ChainState): void {
  chain.videos = chain.preloaded = chain.indexed = undefined;
  forgetLastSnapshot();
  forgetParseCacheBases();
  collector()();
}

/** Above this many files a forgotten base is collected at once (at 100k videos, ~212k: GBs); below, the next collection takes it. */
const COLLECT_PARSES_ABOVE = 50_000;

/**
 * Drops the parse cache's base this thread read once its load is done and the thread works on with the
 * snapshot alone (rebuild-site's thread of a chain, once it has loaded content/ for update-index and the
 * site, whose heaviest phases follow): the snapshot shares the base's strings, not its entries. A large
 * base is collected now (measured at 100k videos: the run's processes held up to 4.4 GB at once without,
 * under 4 GB with; decision 0066); a small one is left to the next collection, which costs an editor's
 * change nothing.
 */
export function releaseParses(): void {
  if (forgetParseCacheBases() > COLLECT_PARSES_ABOVE) collector()();
}
