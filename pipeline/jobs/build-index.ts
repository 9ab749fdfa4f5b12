// Bree job file for build-index: the shared worker, named so Bree's schedule and logs show the job.
import '../jobs/worker.ts';
