// Bree job file for update-index: the shared worker, named so Bree's schedule and logs show the job.
import '../jobs/worker.ts';
