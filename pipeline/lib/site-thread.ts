// rebuild-site in a thread of its own, started before summarise, so that the run's whole-corpus passes
// overlap what comes before them on another core. The thread starts the site's render process, reads the
// parse cache's base and the previous build's manifest while summarise runs, then runs update-index for the
// chain: it loads content/ (videos/ as summarise listed it) once, for the search index and for the site, and
// updates the index while it works out and renders what changed in the site. It writes nothing to dist/
// until the chain gives it the go after update-index is done: the site last, so a reader never finds what
// search cannot, and both show the same content (build-meta.json's content_hash is the index manifest's).
// One snapshot of the corpus is held, not one per thread (at 100k videos ~1.5 GB and ~7 s of CPU less a run).
//
// This file is also the thread's entry: loaded as a worker with { siteThread: … } in its workerData, it runs
// rebuild-site. Imported anywhere else (a Bree job's thread included), it only exports the handle.
import { isMainThread, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads';
import { plainVideoListing, videoListingFromPlain, type PlainVideoListing } from '../../src/lib/content/files.ts';
import type { Snapshot } from '../../src/lib/content/model.ts';
import type { JobContext, JobResult, RunResult, SiteThread } from './types.ts';

/** What the thread is started with: the job context's environment and options (the rest is made from them). */
interface SiteThreadSpec {
  env: Record<string, string | undefined>;
  options: Record<string, string>;
}

type FromThread = { log: string } | { indexed: JobResult } | { indexFailed: string } | { result: RunResult; renderStats: Record<string, number> };
/** update-index's turn (summarise's listing of videos/, if the chain has one), rebuild-site's, or the chain's end. */
type ToThread = { index: PlainVideoListing | null } | 'go' | 'cancel';

/** Starts rebuild-site's thread for the chain running with `ctx` (its log lines go to ctx.log). */
export function startSiteThread(ctx: JobContext): SiteThread {
  const spec: SiteThreadSpec = { env: ctx.env, options: ctx.options };
  const worker = new Worker(new URL(import.meta.url), { workerData: { siteThread: spec } });
  let result: RunResult | undefined;
  let stats: Record<string, number> = {};
  /** update-index's run in the thread, while it lasts. */
  let indexing: ReturnType<typeof settable<JobResult>> | undefined;
  const done = new Promise<RunResult>((resolve, reject) => {
    worker.on('message', (m: FromThread) => {
      if ('log' in m) ctx.log(m.log);
      else if ('indexed' in m) indexing?.resolve(m.indexed);
      else if ('indexFailed' in m) indexing?.reject(new Error(m.indexFailed));
      else ({ result, renderStats: stats } = m);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      indexing?.reject(new Error(`update-index: rebuild-site's thread ended (code ${code}) before the index was updated`)); // unless it was
      if (result) resolve(result);
      else reject(new Error(`rebuild-site: its thread exited with code ${code} and no result`));
    });
  });
  done.catch(() => {});
  const send = (m: ToThread) => worker.postMessage(m);
  /** The thread's end: its result, and what its render cost as if it had rendered in this thread (the pipeline bench reads it). */
  const ended = async (): Promise<RunResult> => {
    try {
      const r = await done;
      Object.assign((await import('../../src/lib/static-build/render.ts')).renderStats, stats);
      return r;
    } catch (err) {
      const message = (err as Error).message.split('\n')[0];
      return { counts: {}, changed: false, errors: [message], ok: false, error: message };
    }
  };
  return {
    index: (videos) => {
      indexing = settable<JobResult>();
      send({ index: videos ? plainVideoListing(videos) : null });
      return indexing.promise;
    },
    publish: () => {
      send('go');
      return ended();
    },
    cancel: async () => {
      send('cancel');
      await ended();
    },
  };
}

/** A promise that can be settled from outside, rejections handled (each is awaited later, or never). */
function settable<T>() {
  let resolve!: (v: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/**
 * The thread: update-index when the chain comes to it, rebuild-site worked out ahead of its turn, its go
 * from the chain's messages. rebuild-site's lock and status entry are taken at its turn (runJob), as if it
 * started then: a chain that ends before it leaves neither (update-index's are the chain's, around its
 * message). A build of dist/ made meanwhile by another process makes it build again then.
 */
async function runSiteThread(spec: SiteThreadSpec, port: MessagePort): Promise<void> {
  const [
    { jobContext },
    { runJob },
    { prepareRender, rebuildSite },
    { contentCacheDir, warmParseCache },
    { loadSnapshot },
    { indexSnapshot },
    { prefetchIndexInputs },
    { releaseParses },
    { renderStats },
    { DistChangedMeanwhile },
  ] = await Promise.all([
    import('./context.ts'),
    import('./run-job.ts'),
    import('./site.ts'),
    import('../../src/lib/content/parse-cache.ts'),
    import('../../src/lib/content/load.ts'),
    import('./search-index.ts'),
    import('../../src/lib/search/delta.ts'),
    import('./memory.ts'),
    import('../../src/lib/static-build/render.ts'),
    import('../../src/lib/static-build/incremental.ts'),
  ]);
  const ctx = { ...jobContext(spec.options, spec.env), log: (line: string) => port.postMessage({ log: line } satisfies FromThread) };
  const loaded = settable<Snapshot | null>();
  const go = settable<void>();
  const turn = settable<boolean>();
  /** Whether the chain has sent anything yet (update-index's turn, the go, or its end). */
  let told = false;
  /**
   * update-index for the chain: content/ loaded here once, the parse cache's base given back, the snapshot
   * handed to the site's build (which goes on while the index is written), the index brought up to it.
   */
  const index = async (videos: PlainVideoListing | null) => {
    try {
      const started = performance.now();
      const snap = loadSnapshot(ctx.contentDir, { cacheDir: contentCacheDir(ctx.dataDir), videos: videos ? videoListingFromPlain(videos) : undefined, lenient: true });
      ctx.log(`update-index: content loaded in rebuild-site's thread in ${((performance.now() - started) / 1000).toFixed(1)} s, for the index and the site`);
      releaseParses(); // the snapshot shares the base's strings, not its entries: the site's heaviest phases come next
      loaded.resolve(snap);
      port.postMessage({ indexed: await indexSnapshot(ctx, snap) } satisfies FromThread);
    } catch (err) {
      loaded.resolve(null); // the load failed (else this does nothing): the site's build loads content/ itself
      port.postMessage({ indexFailed: (err as Error).message } satisfies FromThread);
    }
  };
  const onMessage = (m: ToThread) => {
    told = true;
    if (m === 'cancel') {
      const stopped = new Error('rebuild-site: cancelled, the chain ended before it');
      loaded.reject(stopped);
      go.reject(stopped);
      turn.resolve(false);
    } else if (m === 'go') {
      loaded.resolve(null); // update-index did not run here: content/ is loaded by the build
      turn.resolve(true);
    } else void index(m.index);
  };
  port.on('message', onMessage);
  const render = prepareRender(ctx); // Astro's start and bundling, while the jobs before run
  warmParseCache(contentCacheDir(ctx.dataDir));
  const ahead = rebuildSite({ ...ctx, chain: { render, beside: { loaded: loaded.promise, beforeWrites: () => go.promise } } });
  ahead.catch(() => {});
  // The build has read the previous manifest and waits for the content: unless the chain has come to
  // update-index meanwhile, the index's largest inputs are read now, while summarise runs (~1 s at 100k
  // videos; read again by the update if the files changed).
  setImmediate(() => told || prefetchIndexInputs(ctx.dataDir));
  let result: RunResult = { counts: {}, changed: false, errors: ['cancelled'], ok: false, error: 'cancelled' };
  if (await turn.promise) {
    result = await runJob('rebuild-site', ctx, async (c) => {
      go.resolve();
      try {
        return await ahead;
      } catch (err) {
        if (!(err instanceof DistChangedMeanwhile)) throw err;
        c.log(`${err.message}: built again`);
        return rebuildSite(c);
      }
    });
  } else await ahead.catch(() => {});
  await render.render.cancel(); // unless the build used it: a build abandoned early leaves it waiting
  port.postMessage({ result, renderStats: { ...renderStats } } satisfies FromThread);
  port.off('message', onMessage); // nothing else keeps the thread alive: it ends
}

const spec = !isMainThread && parentPort ? (workerData as { siteThread?: SiteThreadSpec } | null)?.siteThread : undefined;
if (spec && parentPort) await runSiteThread(spec, parentPort);
