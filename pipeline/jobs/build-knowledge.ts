// Bree job file for build-knowledge: the shared worker, named so Bree's schedule and logs show the job.
import '../jobs/worker.ts';
