// truncatedSvd in a worker thread, so that the thread building the search index does its other work (the
// keyword index, the lexicon, the delta's records: ~3 s at 10k videos) while the builtin embedder's SVD
// (~4 s) runs beside it on the second core. The thread runs the same code on the same input, so the result
// is the same bits as truncatedSvd's in this thread (test/search/ranking.test.ts compares them).
//
// This file is also the thread's entry: loaded as a worker with { svd: … } in its workerData, it decomposes
// the matrix it was given and posts the result back. Imported anywhere else (a Bree job's thread included,
// whose workerData has no `svd`), it only exports the function.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { truncatedSvd, type Csr, type SvdOptions, type TruncatedSvd } from './svd.ts';

interface SvdJob {
  a: Csr;
  k: number;
  opts: SvdOptions;
}

const job = !isMainThread && parentPort ? (workerData as { svd?: SvdJob } | null)?.svd : undefined;
if (job && parentPort) {
  const out = truncatedSvd(job.a, job.k, job.opts);
  parentPort.postMessage(out, [out.singularValues.buffer as ArrayBuffer, out.v.buffer as ArrayBuffer]);
}

/**
 * truncatedSvd(a, k, opts), computed in a new worker thread. The matrix's arrays are handed over (transferred,
 * not copied): `a` cannot be used after the call. Rejects with the thread's error if it fails.
 */
export function truncatedSvdInThread(a: Csr, k: number, opts: SvdOptions = {}): Promise<TruncatedSvd> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { svd: { a, k, opts } satisfies SvdJob },
      transferList: [a.indptr.buffer as ArrayBuffer, a.indices.buffer as ArrayBuffer, a.values.buffer as ArrayBuffer],
    });
    let result: TruncatedSvd | undefined;
    worker.once('message', (m: TruncatedSvd) => (result = m));
    worker.once('error', reject);
    worker.once('exit', (code) => (result ? resolve(result) : reject(new Error(`search: the SVD thread exited with code ${code} and no result`))));
  });
}
