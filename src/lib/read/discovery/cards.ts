// The agent and MCP server cards (/.well-known/agent.json and /.well-known/mcp.json): what this service
// offers an agent, where its endpoints are and how it signs in.
import type { Snapshot } from '../../content/model.ts';
import { LANGUAGES } from '../../content/schema.ts';
import type { SiteContext } from '../../site.ts';
import { skillUrl } from '../skills.ts';
import { API_VERSION } from './shared.ts';

/** The agent card (/.well-known/agent.json): the endpoints, the authentication and the installable skills. */
export function agentCard(snap: Snapshot, site: SiteContext) {
  const b = site.baseUrl;
  return {
    name: site.siteName,
    description: site.description,
    url: `${b}/api`,
    version: API_VERSION,
    documentation_url: `${b}/api`,
    default_input_modes: ['text/plain', 'application/json'],
    default_output_modes: ['application/json', 'text/markdown'],
    capabilities: { streaming: false, anonymous_read: true, mcp: true },
    supported_languages: [...LANGUAGES],
    endpoints: {
      briefing: `${b}/api/latest`,
      search: `${b}/api/search`,
      chat: `${b}/api/chat/completions`,
      openapi: `${b}/openapi.json`,
      mcp: `${b}/mcp`,
      llms: `${b}/llms.txt`,
      skill: `${b}/SKILL.md`,
      feed: `${b}/feeds/all.atom`,
    },
    authentication: {
      schemes: ['oauth2', 'bearer'],
      oauth2_metadata: `${b}/.well-known/oauth-authorization-server`,
      protected_resource_metadata: `${b}/.well-known/oauth-protected-resource`,
      device_authorization: `${b}/api/oauth/device`,
      login_script: `${b}/agent-login.sh`,
    },
    skills: snap.skills.map((s) => ({ id: s.name, name: s.name, description: s.description, url: `${b}${skillUrl(s.name)}` })),
  };
}

/** The MCP server card (/.well-known/mcp.json): the endpoint, its transport and its authorization. */
export function mcpCard(site: SiteContext) {
  const b = site.baseUrl;
  return {
    name: site.siteName,
    description: `Search and read ${site.siteName} over the Model Context Protocol without signing in; signed in (OAuth, scope write), comment, react, flag proposals, write posts and notes. Each persona is a prompt.`,
    version: API_VERSION,
    endpoint: `${b}/mcp`,
    transport: 'streamable-http',
    authorization: {
      type: 'oauth2',
      protected_resource_metadata: `${b}/.well-known/oauth-protected-resource`,
      authorization_server: b,
    },
    capabilities: { tools: true, resources: true, prompts: true },
    anonymous_read: true,
  };
}
