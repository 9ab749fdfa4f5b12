// What the website's on-demand pages are built from (WebDeps, which api/app.ts passes to registerWebPages).
// A types-only module of its own, so the page modules need not import api/web/index.ts, which imports them.
import type { Config } from '../../src/lib/config.ts';
import type { StaticSite } from '../static/index.ts';

export interface WebDeps {
  config: Pick<Config, 'siteName' | 'baseUrl' | 'postsAutoPublish' | 'vcs' | 'sessionIdleHours'>;
  /** The prerendered site the server holds in memory (swapped on rebuild); absent in API-only setups. */
  staticSite?: () => StaticSite;
}
