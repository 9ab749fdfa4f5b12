// Astro renders every prerendered page into dist/client (src/lib/static-build runs it and writes the
// read model's JSON and text documents beside the pages); the Node adapter in middleware mode is for the
// few pages that need a session, mounted by api/server.ts. Pages render four at a time
// (build.concurrency), which overlaps rendering with file writes.
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';

/**
 * The incremental build starts its render process before it knows which pages changed
 * (src/lib/static-build/render.ts, startRender): the site is bundled meanwhile, and the process waits here,
 * after bundling and before Astro generates any page, for the selection. A `post` buildApp hook runs after
 * the environments are built and, coming before Astro's own, before the pages are generated.
 */
const renderGate = {
  name: 'kb:render-gate',
  buildApp: { order: 'post', handler: () => globalThis[Symbol.for('kb.renderGate')]?.() },
};

export default defineConfig({
  output: 'static',
  outDir: process.env.DIST_DIR || './dist',
  adapter: node({ mode: 'middleware' }),
  trailingSlash: 'never',
  build: { format: 'directory', concurrency: 4 },
  telemetry: false,
  devToolbar: { enabled: false },
  vite: { logLevel: 'warn', plugins: [renderGate] },
});
