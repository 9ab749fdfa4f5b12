// The Bree worker: asks the scheduler whether its job (named in workerData) may start, runs it through
// runJob, reports the result, and runs the follow-up the scheduler answers with, if any, in this same
// thread (pipeline/lib/chain.ts). Every job file in this folder is this worker under a name. Bree's
// 'cancel' (the scheduler stopping) lets the job running now finish and starts nothing more.
import { parentPort, workerData } from 'node:worker_threads';
import { runChain } from '../lib/chain.ts';
import { jobContext } from '../lib/context.ts';
import { LEADS_TO_SITE } from '../lib/jobs.ts';
import type { ChainState } from '../lib/types.ts';

type Answer = { next: string | null } | { fresh: boolean };

let cancelled = false;
let answer: ((message: Answer | null) => void) | null = null;
const onMessage = (message: unknown) => {
  if (message === 'cancel') {
    cancelled = true;
    answer?.(null);
  } else if (message && typeof message === 'object' && ('next' in message || 'fresh' in message)) answer?.(message as Answer);
};

/** Sends a message to the scheduler and waits for its answer (null: cancelled). */
function send(message: object): Promise<Answer | null> {
  const reply = new Promise<Answer | null>((resolve) => (answer = resolve));
  parentPort!.postMessage(message);
  return reply.then((a) => (cancelled ? null : a));
}

/** Asks the scheduler for the job to run now: the next one, or null. */
async function ask(message: object): Promise<string | null> {
  if (!parentPort) return null;
  const a = await send(message);
  return a && 'next' in a ? a.next : null;
}

/** update-index's content, loaded early; undefined when that failed (the job's own load then says why). */
async function preloadContent() {
  try {
    return (await import('../lib/search-index.ts')).preloadContent(jobContext());
  } catch {
    return undefined;
  }
}

const own = (workerData as { job: string }).job;
parentPort?.on('message', onMessage);
// A job that rebuild-site follows starts the site's render process before it asks: the scheduler may hold
// its answer while the content folder settles (an editor's change), and Astro's start and bundling overlap
// that wait (the chain would start it next anyway; it is stopped if the job is not to run). rebuild-site then
// runs after it in this thread, from the snapshot update-index indexed: for a small change (an editor's),
// starting rebuild-site's own thread (chain.ts, for the hourly chain from summarise) costs more than it saves.
const render = LEADS_TO_SITE.has(own) ? (await import('../lib/site.ts')).prepareRender(jobContext()) : undefined;
try {
  const starting = parentPort ? ask({ start: own }) : Promise.resolve(own);
  // update-index loads the content while that answer waits (the parse cache read, the files listed and
  // assembled: ~2 s of an editor's change at 10k videos), and asks whether a change came after its listing
  // began: if none did, it indexes what it loaded; else it loads again (the cache warm by then).
  const preload = own === 'update-index' && parentPort ? await preloadContent() : undefined;
  const first = await starting;
  const initial: ChainState = { render: first === own ? render : undefined };
  if (first === own && preload) {
    const fresh = await send({ fresh: own, listedAt: preload.listedAt });
    if (fresh && 'fresh' in fresh && fresh.fresh) initial.preloaded = { contentDir: preload.contentDir, snapshot: preload.snapshot };
  }
  if (first) await runChain(first, () => jobContext(), (job, result) => ask({ job, result }), initial);
  else await render?.render.cancel();
} finally {
  parentPort?.off('message', onMessage); // nothing else keeps the thread alive: it ends
}
