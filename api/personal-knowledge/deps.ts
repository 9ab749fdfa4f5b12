// What the personal-knowledge routes are built from (PkRouteDeps, which index.ts assembles). A types-only
// module of its own, so the connect flow (connect.ts) need not import routes.ts, which registers it.
import type { Config } from '../../src/lib/config.ts';
import type { RateLimiter } from '../rate-limit/index.ts';
import type { HostOAuth } from './oauth-client.ts';
import type { NotesService } from './notes.ts';
import type { PkStore } from '../../src/lib/data/personal-knowledge/store.ts';

export interface PkRouteDeps {
  config: Config;
  store: PkStore;
  notes: NotesService;
  oauth: HostOAuth | null;
  writeLimiter: RateLimiter;
  log: (msg: string) => void;
}
