// Astro renders every prerendered page into dist/client (src/lib/static-build runs it and writes the
// read model's JSON and text documents beside the pages); the Node adapter in middleware mode is for the
// few pages that need a session, mounted by api/server.ts. Pages render four at a time
// (build.concurrency), which overlaps rendering with file writes.
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';

export default defineConfig({
  output: 'static',
  outDir: process.env.DIST_DIR || './dist',
  adapter: node({ mode: 'middleware' }),
  trailingSlash: 'never',
  build: { format: 'directory', concurrency: 4 },
  telemetry: false,
  devToolbar: { enabled: false },
  vite: { logLevel: 'warn' },
});
