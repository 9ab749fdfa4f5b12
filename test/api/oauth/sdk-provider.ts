// The MCP SDK's OAuth client side as an MCP host keeps it (OAuthClientProvider): the registered client,
// its tokens and the PKCE verifier in memory; the "browser" step (following authorizationUrl) is the test's.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { REDIRECT_URI } from './helpers.ts';

export class SdkOAuthProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly scope?: string;
  /** `scope` asked at registration; `info` and `tokens` for a host that holds them already. */
  constructor(opts: { scope?: string; info?: OAuthClientInformationMixed; tokens?: OAuthTokens } = {}) {
    this.scope = opts.scope;
    this.info = opts.info;
    this.saved = opts.tokens;
  }
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata() {
    return { client_name: 'MCP SDK client', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...(this.scope ? { scope: this.scope } : {}) };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}
