// rebuild-site in a thread of its own beside the chain's jobs before it (summarise, update-index), so that
// the two whole-corpus passes of an hourly run, the search index's and the site's, run on two cores at once
// instead of one after the other. The thread starts with the chain: it starts the site's render process,
// reads the parse cache's base and the previous build's manifest, then waits for update-index's listing of
// content/ and loads the same files (its own snapshot: ~1.5 GB more at 100k videos while the run lasts,
// nothing kept after it), works out and renders what changed, and writes nothing to dist/ until the chain
// gives it the go after update-index is done: the site last, so a reader never finds what search cannot,
// and both show the same content (build-meta.json's content_hash is the index manifest's).
//
// This file is also the thread's entry: loaded as a worker with { siteThread: … } in its workerData, it runs
// rebuild-site. Imported anywhere else (a Bree job's thread included), it only exports the handle.
import { isMainThread, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads';
import type { PlainListing } from '../../src/lib/content/load.ts';
import type { JobContext, RunResult, SiteThread } from './types.ts';

/** What the thread is started with: the job context's environment and options (the rest is made from them). */
interface SiteThreadSpec {
  env: Record<string, string | undefined>;
  options: Record<string, string>;
}

type FromThread = { log: string } | { result: RunResult; renderStats: Record<string, number> };
type ToThread = { listing: PlainListing } | 'go' | 'cancel';

/** Starts rebuild-site's thread for the chain running with `ctx` (its log lines go to ctx.log). */
export function startSiteThread(ctx: JobContext): SiteThread {
  const spec: SiteThreadSpec = { env: ctx.env, options: ctx.options };
  const worker = new Worker(new URL(import.meta.url), { workerData: { siteThread: spec } });
  let result: RunResult | undefined;
  let stats: Record<string, number> = {};
  const done = new Promise<RunResult>((resolve, reject) => {
    worker.on('message', (m: FromThread) => {
      if ('log' in m) ctx.log(m.log);
      else ({ result, renderStats: stats } = m);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => (result ? resolve(result) : reject(new Error(`rebuild-site: its thread exited with code ${code} and no result`))));
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
    listed: (listing) => send({ listing }),
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
 * The thread: rebuild-site worked out ahead of its turn, its listing and its go from the chain's messages.
 * Its lock and status entry are taken at its turn (runJob), as if it started then: a chain that ends before
 * it leaves neither. A build of dist/ made meanwhile by another process makes it build again then.
 */
async function runSiteThread(spec: SiteThreadSpec, port: MessagePort): Promise<void> {
  const [{ jobContext }, { runJob }, { prepareRender, rebuildSite }, { contentCacheDir, warmParseCache }, { renderStats }, { DistChangedMeanwhile }] = await Promise.all([
    import('./context.ts'),
    import('./run-job.ts'),
    import('./site.ts'),
    import('../../src/lib/content/parse-cache.ts'),
    import('../../src/lib/static-build/render.ts'),
    import('../../src/lib/static-build/incremental.ts'),
  ]);
  const ctx = { ...jobContext(spec.options, spec.env), log: (line: string) => port.postMessage({ log: line } satisfies FromThread) };
  const listing = settable<PlainListing | null>();
  const go = settable<void>();
  const turn = settable<boolean>();
  const onMessage = (m: ToThread) => {
    if (m === 'cancel') {
      const stopped = new Error('rebuild-site: cancelled, the chain ended before it');
      listing.reject(stopped);
      go.reject(stopped);
      turn.resolve(false);
    } else if (m === 'go') {
      listing.resolve(null); // none came: content/ is listed by the thread
      turn.resolve(true);
    } else listing.resolve(m.listing);
  };
  port.on('message', onMessage);
  const render = prepareRender(ctx); // Astro's start and bundling, while the jobs before run
  warmParseCache(contentCacheDir(ctx.dataDir));
  const ahead = rebuildSite({ ...ctx, chain: { render, beside: { listed: listing.promise, beforeWrites: () => go.promise } } });
  ahead.catch(() => {});
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
