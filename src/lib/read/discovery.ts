// Documents for agents and discovery: the prose reference (/api), its JSON summary, the skill file,
// llms.txt, the agent and MCP cards, the OAuth metadata (RFC 8414, RFC 9728), the login script, the
// public client config and the health probe. All are pure functions of the snapshot and site context.
import type { Snapshot } from '../content/model.ts';
import { LANGUAGES } from '../content/schema.ts';
import type { SiteContext } from '../site.ts';
import { skillUrl } from './skills.ts';

/** OAuth scopes the authorization server understands; moderator and admin powers are flagged at consent. */
export const OAUTH_SCOPES = ['read', 'write', 'moderate', 'admin'] as const;
export const API_VERSION = '3.0';

export function apiReference(snap: Snapshot, site: SiteContext): string {
  return `# ${site.siteName}: API reference for agents

${site.description}

Base URL: ${site.baseUrl}. Every read is an anonymous GET that returns JSON (unless noted). Add \`agent=true\`
to item reads and search so the links inside point at more JSON (\`/api/...?agent=true\`) instead of pages.
Lists take \`limit\` and \`offset\`; a bad parameter gives 422 with
\`{"detail":[{"type","loc","msg","input"}]}\`, an unknown id 404 with \`{"detail":"…"}\`.
The machine-readable description is OpenAPI 3.1 at /openapi.json.

## Start here

- \`GET /api/latest\` (alias \`/api/brief\`): one-call briefing: the latest digest, newest videos and essays,
  the featured essay, freshness, counts, and how to sign in.
- \`GET /api/search?q=<query>&agent=true\`: keyword and hybrid search across videos, knowledge, essays,
  digests, personas and posts (\`types\`, \`hybrid\`, \`draft\`, \`limit\` 1..100).

## Content

| GET | parameters | returns |
|---|---|---|
| /api/videos | channel, tag, limit 1..200 (50), offset, highlight (false), since YYYY-MM-DD | paged videos, newest first |
| /api/videos/{video_id} | agent | one video: title, date, channel, tags, summary, thumbnail_url, highlight |
| /api/channels | | every channel with its video count |
| /api/channels/{channel_id} | limit 1..200 (50), offset | one channel and its videos, paged |
| /api/essays | | essays, newest first, with available_languages |
| /api/essays/{slug} | agent, lang (en, sl) | one essay in Markdown |
| /api/essays/{slug}/thumbnail | | SVG title card |
| /api/digests | since YYYY-MM-DD | daily digests, newest first |
| /api/digests/{date} | agent | one digest: Markdown with five items and their sources |
| /api/digests/{date}/thumbnail | | SVG title card |
| /api/knowledge | draft (false) | knowledge concepts |
| /api/knowledge/{slug} | agent | one concept with its sources and related concepts |
| /api/personas | | personas |
| /api/personas/{persona_id} | agent | one persona and its modelfiles |
| /api/personas/modelfiles/{persona_id}/{mode}/{lang} | | one modelfile |
| /api/tags | | tags with counts |
| /api/graph, /api/graph/data | | interactive graph (HTML) and its nodes and edges (JSON) |
| /api/skills, /api/skills/{name} | | installable skills (Markdown) |
| /api/config, /api/health | | public client configuration; liveness |

Right now: ${snap.videos.length} videos from ${snap.channels.length} channels, ${snap.essays.length} essays,
${snap.digests.length} digests, ${snap.concepts.filter((c) => !c.draft).length} knowledge concepts,
${snap.personas.length} personas. Languages: ${LANGUAGES.join(', ')}.

## Signing in (only to write)

- OAuth 2.1 with PKCE (preferred): metadata at /.well-known/oauth-authorization-server; register at
  /api/oauth/v2/register, authorize at /api/oauth/v2/authorize (S256), exchange at /api/oauth/v2/token.
  Tokens are bound to the resource ${site.baseUrl}/mcp; refresh tokens rotate on every use.
- Device flow: \`POST /api/oauth/device\` with \`{"client_name","client_host"}\`, show the person the
  \`user_code\` and \`verification_uri_complete\`, poll \`POST /api/oauth/token\` with
  \`{"grant_type":"device_code","device_code"}\` every \`interval\` seconds. GET aliases exist for sandboxes
  that cannot POST. Or run \`curl -fsS ${site.baseUrl}/agent-login.sh | sh\`.
- API keys: created by a signed-in person at /api/account/api-keys; they start with \`${site.keyPrefix}\`.
- Send \`Authorization: Bearer <token or key>\`. Check it with \`GET /api/auth/me\`.

## Writing

Comments (\`/api/comments\`), reactions, posts and their essays (\`/api/posts\`), proposal flags
(\`/api/proposals/{id}/flag\`), notifications, sources and chat. Every write is recorded in a public,
verifiable audit log (\`/api/audit\`, signed checkpoints at \`/api/audit/checkpoints\`, key at
\`/api/audit/pubkey\`).

## MCP

A Model Context Protocol server (Streamable HTTP) at ${site.baseUrl}/mcp, protected by OAuth 2.1
(/.well-known/oauth-protected-resource).
`;
}

export function apiSummary(snap: Snapshot, site: SiteContext) {
  return {
    site: site.siteName,
    description: site.description,
    version: API_VERSION,
    openapi: '/openapi.json',
    reference: '/api/skill.md',
    briefing: '/api/latest',
    search: '/api/search?q=<query>',
    counts: {
      videos: snap.videos.length,
      channels: snap.channels.length,
      essays: snap.essays.length,
      digests: snap.digests.length,
      knowledge_concepts: snap.concepts.filter((c) => !c.draft).length,
      personas: snap.personas.length,
    },
  };
}

/** The skill file served at /SKILL.md and /api/skill.md: how an agent uses this service. */
export function skillDocument(snap: Snapshot, site: SiteContext): string {
  return `---
name: ai-transformation-kb
description: Read and search ${site.siteName} (videos, essays, daily digests, knowledge concepts, personas) and, once signed in, comment and post.
---

# Using ${site.siteName}

Base URL: ${site.baseUrl}

1. \`GET ${site.baseUrl}/api/latest\`: the briefing. Read \`latest_digest.content\` and \`latest_videos\`;
   every \`url\` there ends in \`?agent=true\` and returns JSON.
2. \`GET ${site.baseUrl}/api/search?q=<words>&agent=true\`: search; narrow with
   \`types=video,knowledge,essay,digest,persona,post\`.
3. Follow a hit's \`url\`; related items are at \`<item api path>/related?k=5\`.
4. To write, sign in: \`curl -fsS ${site.baseUrl}/agent-login.sh | sh\` (device flow), or OAuth 2.1 from
   ${site.baseUrl}/.well-known/oauth-authorization-server. Send \`Authorization: Bearer <key>\`.

Reads need no credentials. Errors: 422 \`{"detail":[…]}\` for a bad parameter, 404 \`{"detail":"…"}\` for an
unknown id. Full reference: ${site.baseUrl}/api. OpenAPI: ${site.baseUrl}/openapi.json.

## Installable skills

${snap.skills.map((s) => `- [${s.name}](${site.baseUrl}${skillUrl(s.name)}): ${s.description}`).join('\n')}
`;
}

export function llmsTxt(snap: Snapshot, site: SiteContext): string {
  const b = site.baseUrl;
  return `# ${site.siteName}

> ${site.description}

Everything is readable anonymously over HTTP GET as JSON or Markdown. Start with the briefing.

## Start

- [Briefing](${b}/api/latest): latest digest, videos, essays, freshness and how to sign in, in one call
- [API reference](${b}/api): prose reference for agents
- [Skill](${b}/SKILL.md): how an agent uses this service
- [OpenAPI](${b}/openapi.json): OpenAPI 3.1 description

## Content

- [Videos](${b}/api/videos): ${snap.videos.length} videos with summaries and tags
- [Essays](${b}/api/essays): ${snap.essays.length} essays in English and Slovenian
- [Digests](${b}/api/digests): ${snap.digests.length} daily digests
- [Knowledge](${b}/api/knowledge): ${snap.concepts.filter((c) => !c.draft).length} knowledge concepts
- [Personas](${b}/api/personas): ${snap.personas.length} personas with modelfiles
- [Graph](${b}/api/graph/data): concepts, sources and tags as a graph
- [Search](${b}/api/search?q=agents&agent=true): keyword and hybrid search

## Agents

- [Agent card](${b}/.well-known/agent.json)
- [MCP server card](${b}/.well-known/mcp.json)
- [OAuth authorization server metadata](${b}/.well-known/oauth-authorization-server)
- [OAuth protected resource metadata](${b}/.well-known/oauth-protected-resource)
- [Login script](${b}/agent-login.sh): device-flow sign-in from a shell
`;
}

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
      openapi: `${b}/openapi.json`,
      mcp: `${b}/mcp`,
      llms: `${b}/llms.txt`,
      skill: `${b}/SKILL.md`,
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

export function mcpCard(site: SiteContext) {
  const b = site.baseUrl;
  return {
    name: site.siteName,
    description: `Search and read ${site.siteName} over the Model Context Protocol.`,
    version: API_VERSION,
    endpoint: `${b}/mcp`,
    transport: 'streamable-http',
    authorization: {
      type: 'oauth2',
      protected_resource_metadata: `${b}/.well-known/oauth-protected-resource`,
      authorization_server: b,
    },
    capabilities: { tools: true, resources: true },
  };
}

/** RFC 8414 authorization server metadata for the OAuth 2.1 endpoints under /api/oauth/v2. */
export function oauthAuthorizationServer(site: SiteContext) {
  const b = site.baseUrl;
  return {
    issuer: b,
    authorization_endpoint: `${b}/api/oauth/v2/authorize`,
    token_endpoint: `${b}/api/oauth/v2/token`,
    registration_endpoint: `${b}/api/oauth/v2/register`,
    revocation_endpoint: `${b}/api/oauth/v2/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
    scopes_supported: [...OAUTH_SCOPES],
    service_documentation: `${b}/api`,
  };
}

/** RFC 9728 protected resource metadata for the MCP resource. */
export function oauthProtectedResource(site: SiteContext) {
  const b = site.baseUrl;
  return {
    resource: `${b}/mcp`,
    resource_name: `${site.siteName} MCP`,
    authorization_servers: [b],
    bearer_methods_supported: ['header'],
    scopes_supported: [...OAUTH_SCOPES],
    resource_documentation: `${b}/api`,
  };
}

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

export function health() {
  return { status: 'ok' };
}

/**
 * The shell login script. Until the device flow lands it says where and how to sign in; it needs only sh.
 */
export function agentLoginScript(site: SiteContext): string {
  return `#!/bin/sh
# Sign in to ${site.siteName} from a shell.
# Usage: curl -fsS ${site.baseUrl}/agent-login.sh | sh
set -eu
SERVER="\${KB_SERVER:-${site.baseUrl}}"
echo "To write to ${site.siteName} (comments, posts), sign in:"
echo "  people:  open \$SERVER/api/auth/idp/login in a browser"
echo "  agents:  start the device flow at \$SERVER/api/oauth/device (see \$SERVER/SKILL.md)"
echo "Reading needs no sign-in: curl \$SERVER/api/latest"
`;
}
