// The Bree worker: asks the scheduler whether its job (named in workerData) may start, runs it through
// runJob, reports the result, and runs the follow-up the scheduler answers with, if any, in this same
// thread (pipeline/lib/chain.ts). Every job file in this folder is this worker under a name. Bree's
// 'cancel' (the scheduler stopping) lets the job running now finish and starts nothing more.
import { parentPort, workerData } from 'node:worker_threads';
import { runChain } from '../lib/chain.ts';
import { jobContext } from '../lib/context.ts';
import { LEADS_TO_SITE } from '../lib/jobs.ts';

let cancelled = false;
let answer: ((next: string | null) => void) | null = null;
const onMessage = (message: unknown) => {
  if (message === 'cancel') {
    cancelled = true;
    answer?.(null);
  } else if (message && typeof message === 'object' && 'next' in message) answer?.((message as { next: string | null }).next);
};

/** Sends a message to the scheduler and waits for its answer: the job to run now, or null. */
function ask(message: object): Promise<string | null> {
  if (!parentPort) return Promise.resolve(null);
  const reply = new Promise<string | null>((resolve) => (answer = resolve));
  parentPort.postMessage(message);
  return reply.then((next) => (cancelled ? null : next));
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
  const first = parentPort ? await ask({ start: own }) : own;
  if (first) await runChain(first, () => jobContext(), (job, result) => ask({ job, result }), first === own && render ? { render } : {});
  else await render?.render.cancel();
} finally {
  parentPort?.off('message', onMessage); // nothing else keeps the thread alive: it ends
}
