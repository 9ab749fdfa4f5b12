// Writes public/assets/vendor/graph-libs.js: sigma.js (with the two cheap programs a big graph is drawn with)
// and graphology as one minified ES module for the knowledge graph page (/assets/graph.js imports it). The site's scripts are served as written, without a
// bundler at build time, so this one bundle of two libraries is made here and committed; run it after
// upgrading either (`node scripts/vendor-graph.ts`). test/web/graph.test.ts checks that the banner names the
// installed versions.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { helpRequested } from './cli.ts';

helpRequested(`usage: node scripts/vendor-graph.ts

Bundles sigma (and its NodePointProgram and EdgeLineProgram) and graphology (from node_modules) into public/assets/vendor/graph-libs.js.`);

const require = createRequire(import.meta.url);
// esbuild comes with Astro (through Vite); it is a build tool here, not a dependency of the site.
const esbuild = (await import(require.resolve('esbuild', { paths: [path.dirname(require.resolve('astro/package.json'))] }))) as typeof import('esbuild');

const VENDOR_FILE = path.resolve('public/assets/vendor/graph-libs.js');
const version = (name: string) => (JSON.parse(fs.readFileSync(path.resolve('node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const banner = `/*! graph-libs: sigma ${version('sigma')}, graphology ${version('graphology')}, events (all MIT licensed; see their packages). Made by scripts/vendor-graph.ts. */`;

const result = await esbuild.build({
  stdin: { contents: "export { default as Sigma } from 'sigma';\nexport { default as Graph } from 'graphology';\nexport { NodePointProgram, EdgeLineProgram } from 'sigma/rendering';\n", resolveDir: process.cwd(), loader: 'js' },
  bundle: true,
  format: 'esm',
  minify: true,
  target: 'es2022',
  legalComments: 'none',
  banner: { js: banner },
  write: false,
});
fs.mkdirSync(path.dirname(VENDOR_FILE), { recursive: true });
fs.writeFileSync(VENDOR_FILE, result.outputFiles[0].text);
console.log(`vendor-graph: wrote ${path.relative(process.cwd(), VENDOR_FILE)} (${result.outputFiles[0].contents.length} bytes)`);
