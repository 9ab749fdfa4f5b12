// The public client configuration (/api/config) and the health probe (/api/health).
import { LANGUAGES } from '../../content/schema.ts';
import type { SiteContext } from '../../site.ts';
import { API_VERSION } from './shared.ts';

/** Public configuration a browser or agent client needs before it signs in. */
export function publicConfig(site: SiteContext) {
  return {
    site: site.siteName,
    base_url: site.baseUrl,
    api_version: API_VERSION,
    supported_languages: [...LANGUAGES],
    dev_mode: site.devMode,
    key_prefix: site.keyPrefix,
    login_url: '/api/auth/idp/login',
    device_authorization_url: '/api/oauth/device',
    mcp_url: `${site.baseUrl}/mcp`,
  };
}

/** The liveness probe's answer (/api/health). */
export function health() {
  return { status: 'ok' as const };
}
