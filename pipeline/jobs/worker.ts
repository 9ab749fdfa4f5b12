// The Bree worker: runs one job (named in workerData) through runJob and reports its result to the
// scheduler, which decides the follow-ups. Every job file in this folder is this worker under a name.
import { parentPort, workerData } from 'node:worker_threads';
import { JOBS } from '../lib/jobs.ts';
import { runJob } from '../lib/run-job.ts';
import { jobContext } from '../lib/context.ts';

const name = (workerData as { job: string }).job;
const result = await runJob(name, jobContext(), JOBS[name].run);
parentPort?.postMessage({ job: name, result });
