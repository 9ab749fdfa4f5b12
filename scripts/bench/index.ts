// npm run bench -- <suite> [...]: runs benchmark suites, prints a table per suite and merges the figures
// into bench/results.json. Benchmarks are measurements, not tests: nothing here passes or fails on time.
import fs from 'node:fs';
import path from 'node:path';
import { runBuildBench } from './build.ts';
import { runAuditBench } from './audit.ts';
import { runAuthBench } from './auth.ts';
import { runWritesBench } from './writes.ts';
import { runSearchBench } from './search.ts';
import { runPipelineBench } from './pipeline.ts';
import { runWebBench } from './web.ts';
import { runLighthouseBench } from './lighthouse.ts';
import { runCompressionBench } from './compression.ts';
import { helpRequested } from '../cli.ts';
import { benchDir } from './util.ts';

const SUITES: Record<string, (args: string[]) => Promise<Record<string, unknown>>> = {
  build: runBuildBench,
  audit: runAuditBench,
  auth: runAuthBench,
  writes: runWritesBench,
  search: runSearchBench,
  pipeline: runPipelineBench,
  web: runWebBench,
  lighthouse: runLighthouseBench,
  compression: runCompressionBench,
};

helpRequested(`usage: npm run bench -- <suite> [args]

Runs one benchmark suite, prints its tables and merges the figures into bench/results.json
(BENCH_DIR: another folder for the results and the corpora).
suites: ${Object.keys(SUITES).join(', ')} (default build). See the README's Commands table for each one's arguments.`);
const [suite = 'build', ...args] = process.argv.slice(2);
const run = SUITES[suite];
if (!run) {
  console.error(`bench: unknown suite "${suite}"; one of: ${Object.keys(SUITES).join(', ')}`);
  process.exit(2);
}
const results = await run(args);
const file = benchDir('results.json');
const all = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
all[suite] = { ...results, measured_at: new Date().toISOString(), node: process.version, cpus: (await import('node:os')).cpus().length };
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, JSON.stringify(all, null, 2) + '\n');
console.log(`\nbench: results written to ${path.relative(process.cwd(), file)}`);
