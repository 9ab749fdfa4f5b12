// A render shard (see render.ts): renders the pages named in a selection file with Astro, printing one "."
// per page, then "STAGING <folder> <peak RSS in MB>". Run by renderPages, not by hand:
//   node src/lib/static-build/render-shard.ts <selection.json> <generated-at>
import { renderWithAstro } from './render.ts';

const [selectionFile, generatedAt] = process.argv.slice(2);
if (!selectionFile || !generatedAt) {
  console.error('usage: node src/lib/static-build/render-shard.ts <selection.json> <generated-at>');
  process.exit(2);
}
let dots = 0;
const flush = () => {
  if (dots) process.stdout.write('.'.repeat(dots));
  dots = 0;
};
const timer = setInterval(flush, 200);
const staging = await renderWithAstro(process.env, generatedAt, selectionFile, () => dots++);
clearInterval(timer);
flush();
process.stdout.write(`\nSTAGING ${staging} ${Math.round(process.resourceUsage().maxRSS / 1024)}\n`);
