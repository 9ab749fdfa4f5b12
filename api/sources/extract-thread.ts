// A fetched page's extraction (extract.ts: linkedom's parse, Readability, the block text) in a worker
// thread of its own, under a deadline. The page is whoever's server the person named, up to
// SOURCE_MAX_BYTES of it: parsed in the request's thread, a page built to be slow held the event loop (and
// every other request) for minutes. Here a page that takes too long costs its thread, which is ended, and
// the request is refused; the server answers everyone else meanwhile. A thread per page: sources are added
// by people one at a time, and a fresh thread can always be ended.
//
// This file is also the thread's entry: loaded as a worker with { extract: … } in its workerData, it
// extracts the page and posts the result back.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { extractHtml, extractPlainText, type Extracted } from './extract.ts';

interface ExtractJob {
  body: string;
  url: string;
  contentType: string;
}

const job = !isMainThread && parentPort ? (workerData as { extract?: ExtractJob } | null)?.extract : undefined;
if (job && parentPort) {
  parentPort.postMessage(job.contentType.startsWith('text/plain') ? extractPlainText(job.body, job.url) : extractHtml(job.body, job.url));
}

/** The page took longer than its deadline to read, or its thread failed. */
export class PageUnreadable extends Error {}

/** How long a page's extraction may take, by default. */
export const EXTRACT_DEADLINE_MS = 10_000;

/**
 * The title, text and canonical address of a fetched page, extracted in a new worker thread that is ended
 * after `deadlineMs`. Rejects with PageUnreadable then, or when the thread fails.
 */
export function extractInThread(page: ExtractJob, deadlineMs = EXTRACT_DEADLINE_MS): Promise<Extracted> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { extract: page } });
    let result: Extracted | undefined;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void worker.terminate();
    }, deadlineMs);
    worker.once('message', (m: Extracted) => (result = m));
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(new PageUnreadable(`The page could not be read: ${err.message}`));
    });
    worker.once('exit', () => {
      clearTimeout(timer);
      if (result) resolve(result);
      else reject(new PageUnreadable(timedOut ? `The page took longer than ${Math.round(deadlineMs / 1000)} s to read; it is too large or too deeply nested` : 'The page could not be read'));
    });
  });
}
