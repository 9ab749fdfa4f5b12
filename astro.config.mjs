// Astro builds every anonymous read into dist/client as static files (see src/pages/[...path].ts); the
// Node adapter in middleware mode is for the few pages that need a session, mounted by api/server.ts.
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';

export default defineConfig({
  output: 'static',
  outDir: process.env.DIST_DIR || './dist',
  adapter: node({ mode: 'middleware' }),
  trailingSlash: 'never',
  build: { format: 'directory' },
  telemetry: false,
  devToolbar: { enabled: false },
  vite: { logLevel: 'warn' },
});
