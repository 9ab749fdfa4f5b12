// A render shard (see render.ts): renders the pages named in a selection file with Astro, printing one "."
// per page, then "STAGING <folder> <peak RSS in MB> <milliseconds from start to finish> <CPU milliseconds>"
// (the "-" form adds when it had bundled the site and when it was asked, in milliseconds from its start).
// Run by startPages and startRender, not by hand:
//   node src/lib/static-build/render-shard.ts <selection.json> <generated-at>
//   node src/lib/static-build/render-shard.ts -
// With "-", Astro bundles the site first and then waits for one JSON line on stdin: the variables naming
// the selection file (KB_PAGE_SELECTION), the build's time (KB_GENERATED_AT) and, if any, the page models
// file (KB_PAGE_MODELS). Input that ends without that line means nothing is to be rendered: the shard
// removes its folder and exits.
import fs from 'node:fs';
import { currentStaging, renderWithAstro } from './render.ts';
import { PAGE_SELECTION_ENV } from '../pages/index.ts';
import { GENERATED_AT_ENV, PAGE_MODELS_ENV } from '../build-inputs.ts';

const [selectionFile, generatedAt] = process.argv.slice(2);
if (!selectionFile || (selectionFile !== '-' && !generatedAt)) {
  console.error('usage: node src/lib/static-build/render-shard.ts <selection.json> <generated-at> | -');
  process.exit(2);
}
const started = performance.now();
let readyMs = 0;
let askedMs = 0;

/** The variables stdin gives (the "-" form), or an exit when it ends without them. */
function fromStdin(): () => Promise<Record<string, string>> {
  let input = '';
  const line = new Promise<Record<string, string>>((resolve) => {
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d: string) => (input += d));
    process.stdin.on('end', () => {
      askedMs = performance.now() - started;
      const vars = input.trim() ? (JSON.parse(input) as Record<string, unknown>) : {};
      const out: Record<string, string> = {};
      for (const k of [PAGE_SELECTION_ENV, GENERATED_AT_ENV, PAGE_MODELS_ENV]) if (typeof vars[k] === 'string') out[k] = vars[k];
      if (!out[PAGE_SELECTION_ENV] || !out[GENERATED_AT_ENV]) {
        // Cancelled (or the build that started this process is gone): whatever Astro has written goes.
        if (currentStaging) fs.rmSync(currentStaging, { recursive: true, force: true });
        process.exit(0);
      }
      resolve(out);
    });
  });
  return () => {
    readyMs = performance.now() - started;
    return line;
  };
}

let dots = 0;
const flush = () => {
  if (dots) process.stdout.write('.'.repeat(dots));
  dots = 0;
};
const timer = setInterval(flush, 200);
const staging =
  selectionFile === '-'
    ? await renderWithAstro(process.env, undefined, undefined, () => dots++, fromStdin())
    : await renderWithAstro(process.env, generatedAt, selectionFile, () => dots++);
clearInterval(timer);
flush();
const cpu = process.cpuUsage();
const gate = selectionFile === '-' ? ` ${Math.round(readyMs)} ${Math.round(askedMs)}` : '';
process.stdout.write(`\nSTAGING ${staging} ${Math.round(process.resourceUsage().maxRSS / 1024)} ${Math.round(performance.now() - started)} ${Math.round((cpu.user + cpu.system) / 1000)}${gate}\n`);
