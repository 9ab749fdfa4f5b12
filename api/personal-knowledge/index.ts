// Personal knowledge: each person connects their own git repository (GitHub, GitLab, Gitea, Forgejo, over
// OAuth and git's smart HTTP) and reads, writes and traces Markdown notes in it. With no VCS_* host
// configured, a bare repository per person on this server plays the host, so it works with nothing else.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { CommunityDeps } from '../deps.ts';
import { createTokenCipher, loadOrCreateKey } from '../../src/lib/data/personal-knowledge/crypto.ts';
import { createHostOAuth } from './oauth-client.ts';
import { createPkStore } from '../../src/lib/data/personal-knowledge/store.ts';
import { createNotesService } from './notes.ts';
import { registerPkRoutes } from './routes.ts';

/** @example registerPersonalKnowledgeRoutes(app, community) */
export function registerPersonalKnowledgeRoutes(app: OpenAPIHono, deps: CommunityDeps): void {
  const { config } = deps;
  const log = deps.log ?? ((m: string) => console.error(m));
  const store = createPkStore(deps.db, deps.audit, createTokenCipher(loadOrCreateKey(config.dataDir)));
  const oauth = config.vcs.host ? createHostOAuth(config.vcs.host, { timeoutSeconds: config.vcs.timeoutSeconds, userAgent: `${config.siteName} (personal knowledge)` }) : null;
  const notes = createNotesService({ dataDir: config.dataDir, vcs: config.vcs, store, oauth, siteName: config.siteName, baseUrl: config.baseUrl });
  registerPkRoutes(app, { config, store, notes, oauth, writeLimiter: deps.writeLimiter, log });
}
