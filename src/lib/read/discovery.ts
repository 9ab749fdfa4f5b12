// Documents for agents and discovery: the prose reference (/api), its JSON summary, the skill file,
// llms.txt, the agent and MCP cards, the OAuth metadata (RFC 8414, RFC 9728), the login script, the
// public client config and the health probe. All are pure functions of the snapshot and site context.
import type { Snapshot } from '../content/model.ts';
import { LANGUAGES } from '../content/schema.ts';
import type { SiteContext } from '../site.ts';
import { skillUrl } from './skills.ts';
import { FEED_ENTRIES, feedUrls } from './feeds.ts';

/**
 * OAuth scopes the authorization server grants: `read` (always granted: MCP and GET endpoints that need a
 * user), `write` (every other method), `moderate` and `admin` (the role's powers, granted only to people
 * who hold the role; the consent page warns about them).
 */
export const OAUTH_SCOPES = ['read', 'write', 'moderate', 'admin'] as const;
/** The scopes the MCP resource uses (RFC 9728 scopes_supported): `read` (your notes), `write` (the tools that act). */
export const MCP_SCOPES = ['read', 'write'] as const;
export const API_VERSION = '3.0';

export function apiReference(snap: Snapshot, site: SiteContext): string {
  return `# ${site.siteName}: API reference for agents

${site.description}

Base URL: ${site.baseUrl}. Every read is an anonymous GET that returns JSON (unless noted). Add \`agent=true\`
to item reads, lists and search so the links inside point at more JSON (\`/api/...?agent=true\`) instead of pages.
Every item also carries \`page_url\`, the absolute address of its page: cite that one to people.
Lists take \`limit\` and \`offset\` (search too: it answers \`total\` and \`next\`, the path of the next page).
A parameter search does not know is named in its \`warnings\`, with what to use instead; a bad one gives 422 with
\`{"detail":[{"type","loc","msg","input"}],"hint"}\`, an unknown id 404 with \`{"detail":"…","hint":"…"}\`: every
4xx has a \`hint\` saying what to do next. The machine-readable description is OpenAPI 3.1 at /openapi.json.
Every page also answers as Markdown at \`<page>.md\` (\`/index.html.md\` for the home page) or as JSON, by
\`Accept: text/markdown\` or \`application/json\` (a \`Link: rel=alternate\` header names both); the whole
corpus is one Markdown file at /llms-full.txt.

## Start here

- \`GET /api/latest\` (alias \`/api/brief\`): one-call briefing: the latest digest, newest videos and essays,
  the featured essay, freshness, counts, and how to sign in.
- \`GET /api/search?q=<query>&agent=true\`: keyword and hybrid search across videos, knowledge, essays,
  digests, personas and posts (\`types\`, \`lang\`, \`tag\`, \`since\`, \`hybrid\`, \`draft\`, \`limit\` 1..100, \`offset\`).

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

Atom feeds of the newest ${FEED_ENTRIES} items, for feed readers: everything at /feeds/all.atom, one kind at
/feeds/videos.atom, /feeds/essays.atom and /feeds/digests.atom, one language at ${LANGUAGES.map((l) => `/feeds/${l}.atom`).join(' and ')}.

## Signing in (only to write)

- OAuth 2.1 with PKCE (preferred): metadata at /.well-known/oauth-authorization-server; register at
  /api/oauth/v2/register, authorize at /api/oauth/v2/authorize (S256), exchange at /api/oauth/v2/token.
  Tokens are bound to the resource ${site.baseUrl}/mcp; refresh tokens rotate on every use.
- Device flow: \`POST /api/oauth/device\` with \`{"client_name","client_host"}\`, show the person the
  \`user_code\` and \`verification_uri_complete\`, poll \`POST /api/oauth/token\` with
  \`{"grant_type":"device_code","device_code"}\` every \`interval\` seconds (\`slow_down\` adds 5 s). The key is
  a bearer API key for 90 days. GET aliases exist for sandboxes that cannot POST; their key lives one hour.
  Or run \`curl -fsS ${site.baseUrl}/agent-login.sh | sh\` (\`--start\` and \`--poll\` split it in two for
  shells that show output only when a command ends).
- One login for everything: add \`"resource": "${site.baseUrl}/mcp", "scope": "read write"\` when starting the
  device flow, and the poll answers an OAuth access token (one hour) and refresh token (rotating, 30 days;
  \`grant_type=refresh_token\` with the \`client_id\` it gives, at /api/oauth/v2/token) that work on this API, at
  /mcp and for chat. From a shell: \`curl -fsS ${site.baseUrl}/agent-login.sh | sh -s -- --scope 'read write'\`
  saves them (\`--refresh\` renews the access token).
- API keys: created by a signed-in person at /api/account/api-keys; they start with \`${site.keyPrefix}\`.
- Send \`Authorization: Bearer <token or key>\`. Check it with \`GET /api/auth/me\`.

## Search, related items and chat

- \`GET /api/search?q=<words>&agent=true\` with \`types\` (video, knowledge, essay, digest, persona, post),
  \`hybrid\` (default true: keyword and semantic, fused), \`draft\`, \`limit\` 1..100, \`offset\`; filters \`lang\` (en, sl: items
  with a version in it), \`tag\` (one tag) and \`since\` (YYYY-MM-DD: items dated on or after it; concepts and personas
  have no date). \`total\` counts every match, \`next\` is the next page (null on the last); \`warnings\` names
  any parameter it ignored.
- \`GET /api/videos/{id}/related?k=5\` (also knowledge, essays, digests, personas, posts): nearest items.
- \`POST /api/chat/completions\` (OpenAI-compatible) answers from the knowledge base with [n] citations and a
  \`sources\` list of exactly what it cites, numbered 1, 2, 3… (each with \`page_url\`); \`coverage\` is none
  (nothing cited: the answer says the base does not cover it), partial or full. Send your API key or OAuth token with
  \`"persona_id"\` (and \`"lang"\`, \`"mode"\`) in the body; or, signed out where anonymous chat is on, a chat token
  from \`POST /api/chat/auth\` with \`{"persona_id","lang","mode"}\`.

## Writing (signed in)

| method and path | what |
|---|---|
| POST /api/comments, GET /api/comments/create | comment on any item (the GET form needs a bearer token and an idempotency_key) |
| POST /api/comments/{id}/react | react (like, insightful, agree, disagree, question) |
| POST /api/posts, PUT /api/posts/{id}/essay, POST /api/posts/{id}/submit | write a post and its essay (If-Match) |
| POST /api/proposals, POST /api/proposals/{id}/flag | propose a change to the canon; flag a bad proposal |
| POST /api/sources, POST /api/sources/knowledge | add a web page or text; draft a concept on a topic |
| GET /api/notifications | what concerns you |
| /api/me/personal-knowledge | your own notes in a connected git repository |

Every write is recorded in a public, verifiable audit log (\`/api/audit\`, signed checkpoints at
\`/api/audit/checkpoints\`, key at \`/api/audit/pubkey\`). Any C2SP tlog-tiles client can follow it from
\`/api/audit/checkpoint\` and \`/api/audit/tile/…\`; verify with
\`npm run audit:verify -- <base_url> --key <verifier key> --state <file>\`.

## MCP

A Model Context Protocol server (Streamable HTTP, stateless) at ${site.baseUrl}/mcp. It lists every tool to
everyone, each saying what it needs. Without a token: the read tools (search, get_item, latest_briefing,
list_recent, related, list_comments), the resources (digests, essays, knowledge as Markdown) and each persona
as a prompt. With an OAuth access token for this resource (/.well-known/oauth-protected-resource): your notes;
with its \`write\` scope the tools that act (comment, react, flag_proposal, draft_post, edit_post_essay,
submit_post, write_note), through the same routes as above. Calling one without the token or scope answers
HTTP 401 or 403 with the OAuth challenge, which MCP clients follow to sign in.
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
    feeds: feedUrls(site.baseUrl),
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
   every \`url\` there ends in \`?agent=true\` and returns JSON; cite \`page_url\` (the page) to people.
2. \`GET ${site.baseUrl}/api/search?q=<words>&agent=true\`: search; narrow with
   \`types=video,knowledge,essay,digest,persona,post\`, \`lang=sl\`, \`tag=<tag>\`, \`since=YYYY-MM-DD\`; the answer's
   \`next\` is the next page (\`offset\`).
3. Follow a hit's \`url\`; related items are at \`<item api path>/related?k=5\`.
4. To write, sign in: \`curl -fsS ${site.baseUrl}/agent-login.sh | sh\` (device flow), or OAuth 2.1 from
   ${site.baseUrl}/.well-known/oauth-authorization-server. Send \`Authorization: Bearer <key>\`. Starting the
   device flow with \`"resource": "${site.baseUrl}/mcp", "scope": "read write"\` gives one OAuth token for the
   API, MCP (${site.baseUrl}/mcp) and chat.

Reads need no credentials. Errors: 422 \`{"detail":[…],"hint"}\` for a bad parameter, 404 \`{"detail":"…","hint"}\`
for an unknown id; every 4xx \`hint\` says what to do next. Full reference: ${site.baseUrl}/api. OpenAPI:
${site.baseUrl}/openapi.json. Pages as Markdown: \`<page>.md\`; the whole corpus: ${site.baseUrl}/llms-full.txt.

## Installable skills

${snap.skills.map((s) => `- [${s.name}](${site.baseUrl}${skillUrl(s.name)}): ${s.description}`).join('\n')}
`;
}

export function llmsTxt(snap: Snapshot, site: SiteContext): string {
  const b = site.baseUrl;
  return `# ${site.siteName}

> ${site.description}

Everything is readable anonymously over HTTP GET as JSON or Markdown. Start with the briefing. Every page
has a Markdown twin at the same address plus \`.md\` (\`${b}/index.html.md\` for the home page, \`${b}/videos/<id>.md\`, …),
and answers \`Accept: text/markdown\` or \`application/json\` with it. Cite \`page_url\` (the page) to people.

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
- [Whole corpus](${b}/llms-full.txt): every essay, digest, knowledge concept and persona, and every video's summary, as one Markdown file

## Feeds

- [Everything](${b}/feeds/all.atom): Atom feed of the newest ${FEED_ENTRIES} videos, essays and digests
- [Videos](${b}/feeds/videos.atom), [Essays](${b}/feeds/essays.atom), [Digests](${b}/feeds/digests.atom): one kind each
- ${LANGUAGES.map((l) => `[${l}](${b}/feeds/${l}.atom)`).join(', ')}: one language each

## Pages as Markdown

- [Home](${b}/index.html.md)
- [Videos](${b}/videos.md), [Essays](${b}/essays.md), [Digests](${b}/digests.md), [Knowledge](${b}/knowledge.md), [Personas](${b}/personas.md), [Channels](${b}/channels.md), [Tags](${b}/tags.md)

## Agents

- [Agent card](${b}/.well-known/agent.json)
- [MCP server](${b}/mcp): read tools, resources and persona prompts without a token; notes and the tools that act with an OAuth token
- [MCP server card](${b}/.well-known/mcp.json)
- [OAuth authorization server metadata](${b}/.well-known/oauth-authorization-server)
- [OAuth protected resource metadata](${b}/.well-known/oauth-protected-resource)
- [Login script](${b}/agent-login.sh): device-flow sign-in from a shell (\`--start\` / \`--poll\` in two steps)
- [Device flow](${b}/api/oauth/device): with \`resource=${b}/mcp\` and \`scope=read write\`, one OAuth token for the API, MCP and chat
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

/**
 * RFC 8414 authorization server metadata for the OAuth 2.1 endpoints under /api/oauth/v2, and the device
 * flow (RFC 8628 §4): its authorization endpoint is the spec's unversioned one, its grant is answered at
 * the token_endpoint too (api/oauth/grants/device_code.ts).
 */
export function oauthAuthorizationServer(site: SiteContext) {
  const b = site.baseUrl;
  return {
    issuer: b,
    authorization_endpoint: `${b}/api/oauth/v2/authorize`,
    token_endpoint: `${b}/api/oauth/v2/token`,
    registration_endpoint: `${b}/api/oauth/v2/register`,
    revocation_endpoint: `${b}/api/oauth/v2/revoke`,
    device_authorization_endpoint: `${b}/api/oauth/device`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
    scopes_supported: [...OAUTH_SCOPES],
    authorization_response_iss_parameter_supported: true,
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
    scopes_supported: [...MCP_SCOPES],
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
  return { status: 'ok' as const };
}

/** A value as one single-quoted sh word. */
const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ');

/** The folder under ~/.config for the credential file: the site name as a slug. */
export function credentialsFolder(site: SiteContext): string {
  return site.siteName.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'kb';
}

/**
 * /agent-login.sh: a POSIX sh client of the device flow (curl only) that signs in to the server it was
 * downloaded from and writes the credential file {server, api_key, user_email, issued_at} with mode 0600.
 * With --scope (and --resource, default {base}/mcp) it asks for OAuth tokens instead of an API key: api_key
 * is then an OAuth access token that /mcp takes as well as the REST API and chat, saved with its refresh
 * token, client_id, scope, resource and expires_at; --refresh renews it.
 * Site values enter the script only as single-quoted words (or comments), so no site name can inject code.
 */
export function agentLoginScript(site: SiteContext): string {
  const slug = credentialsFolder(site);
  return `#!/bin/sh
# agent-login.sh: sign in to ${oneLine(site.siteName)} from a shell with the device flow
# (RFC 8628) and save an API key for your agents. Needs only a POSIX sh and curl.
#
#   curl -fsS ${oneLine(site.baseUrl)}/agent-login.sh | sh
#
# It shows a code and a link; you approve in a browser where you are signed in; it saves
# {server, api_key, user_email, issued_at} as JSON in a file only you can read (mode 0600).
#
# In two steps, for agents whose shell shows output only when a command ends:
#   curl -fsS ${oneLine(site.baseUrl)}/agent-login.sh | sh -s -- --start   # prints the code and link, exits
#   curl -fsS ${oneLine(site.baseUrl)}/agent-login.sh | sh -s -- --poll    # waits for the approval, saves the key
# Between the two, the pending sign-in is kept in <credential file>.pending (mode 0600).
#
# One login for every surface, the MCP server included: --scope asks for OAuth tokens instead of an API key
#   curl -fsS ${oneLine(site.baseUrl)}/agent-login.sh | sh -s -- --scope 'read write'
# (--resource URL names the resource, default <server>/mcp; read is the default scope, write lets it act).
# api_key is then an OAuth access token (oat_...) for /mcp, the REST API and chat, valid one hour, saved
# with refresh_token, client_id, scope, resource and expires_at; renew it (the refresh token rotates) with
#   curl -fsS ${oneLine(site.baseUrl)}/agent-login.sh | sh -s -- --refresh
#
# Environment:
#   KB_SERVER       server to sign in to (default: the one this script came from)
#   KB_CREDENTIALS  credential file (default: \${XDG_CONFIG_HOME:-~/.config}/${slug}/credentials.json)
#   KB_CLIENT_NAME  the name the approval page shows for this program (default: agent-login.sh)
# Exit status: 0 signed in (or, with --start, the code is shown), 1 error, 2 the request was denied,
# 3 the code expired.
set -u
umask 077

SITE_NAME=${shQuote(site.siteName)}
DEFAULT_SERVER=${shQuote(site.baseUrl)}
KEY_PREFIX=${shQuote(site.keyPrefix)}
SERVER=\${KB_SERVER:-$DEFAULT_SERVER}
SERVER=\${SERVER%/}
CREDENTIALS=\${KB_CREDENTIALS:-\${XDG_CONFIG_HOME:-\${HOME:-.}/.config}/${slug}/credentials.json}
PENDING="$CREDENTIALS.pending"
MODE=all
RESOURCE=
SCOPE=
usage() {
  printf '%s\\n' 'usage: agent-login.sh [--start | --poll | --refresh] [--scope SCOPE] [--resource URL]' \\
    '  (no option)     show the code, wait for the approval, save the key' \\
    '  --start         show the code and link, keep the pending sign-in, exit' \\
    '  --poll          wait for the approval of the pending sign-in, save the key' \\
    "  --scope SCOPE   OAuth tokens instead of an API key, e.g. --scope 'read write' (read, write; moderate, admin)" \\
    "  --resource URL  the resource they are for (default with --scope: $SERVER/mcp)" \\
    '  --refresh       renew the saved OAuth access token with its refresh token'
}
while [ $# -gt 0 ]; do
  case $1 in
    --start) MODE=start ;;
    --poll) MODE=poll ;;
    --refresh) MODE=refresh ;;
    --scope=*) SCOPE=\${1#--scope=} ;;
    --resource=*) RESOURCE=\${1#--resource=} ;;
    --scope | --resource)
      if [ $# -lt 2 ]; then
        printf 'agent-login: %s needs a value (try --help)\\n' "$1" >&2
        exit 1
      fi
      if [ "$1" = --scope ]; then SCOPE=$2; else RESOURCE=$2; fi
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      printf 'agent-login: unknown option %s (try --help)\\n' "$1" >&2
      exit 1
      ;;
  esac
  shift
done
# A scope asks for OAuth tokens, for the one resource there is unless told otherwise.
[ -z "$SCOPE" ] || [ -n "$RESOURCE" ] || RESOURCE="$SERVER/mcp"

say() { printf '%s\\n' "$*"; }
fail() {
  status=$1
  shift
  printf 'agent-login: %s\\n' "$*" >&2
  exit "$status"
}

# One string or number field of the server's answer (flat JSON; no jq needed).
json_string() { printf '%s' "$1" | tr -d '\\r\\n' | sed -n 's/.*"'"$2"'"[[:space:]]*:[[:space:]]*"\\([^"]*\\)".*/\\1/p'; }
json_number() { printf '%s' "$1" | tr -d '\\r\\n' | sed -n 's/.*"'"$2"'"[[:space:]]*:[[:space:]]*\\([0-9][0-9]*\\).*/\\1/p'; }
# What we send is printable and has no quote or backslash, so it needs no JSON escaping.
json_safe() { printf '%s' "$1" | tr -d '"\\\\\\000-\\037\\177' | cut -c1-"\${2:-100}"; }
json_escape() { printf '%s' "$1" | sed 's/\\\\/\\\\\\\\/g; s/"/\\\\"/g'; }

# POST the JSON on stdin: the device code never appears in the process list.
post_json() {
  curl -sS --max-time 30 -X POST -H 'Content-Type: application/json' -H 'Accept: application/json' \\
    --data-binary @- "$SERVER$1"
}

command -v curl >/dev/null 2>&1 || fail 1 'curl is needed (https://curl.se)'
case $SERVER in
  https://* | http://localhost | http://localhost[:/]* | http://127.0.0.1 | http://127.0.0.1[:/]* | http://\\[::1\\]*) ;;
  http://*) say "Warning: $SERVER is not https; the key will cross the network unencrypted." >&2 ;;
  *) fail 1 "KB_SERVER must be an http(s) URL, not: $SERVER" ;;
esac

# Writes $2 to the file $1, readable only by you: created empty with mode 0600 (umask 077, refusing to
# reuse an existing file), then filled and moved into place, so it is never readable by others.
write_private() {
  dir=$(dirname "$1")
  mkdir -p "$dir" || fail 1 "cannot create $dir"
  tmp="$1.tmp.$$"
  (set -C && : >"$tmp") 2>/dev/null || fail 1 "cannot create $tmp"
  chmod 600 "$tmp" || fail 1 "cannot restrict $tmp to mode 0600"
  if ! printf '%s\\n' "$2" >"$tmp" || ! mv -f "$tmp" "$1"; then
    rm -f "$tmp"
    fail 1 "cannot write $1"
  fi
}
# A terminal answer ends the pending sign-in of --start.
forget_pending() { [ "$MODE" = poll ] && rm -f "$PENDING"; return 0; }

# A time in seconds since 1970 as UTC ISO 8601 (GNU/busybox date, then BSD date).
iso_time() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r "$1" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null; }

# Saves OAuth tokens from the token answer $1 as the credential file: api_key is the access token (send it
# as the bearer, at /mcp too), with what renews it. $2 e-mail, $3 client_id, $4 resource, $5 scope if the
# answer has none.
save_oauth() {
  access=$(json_string "$1" access_token)
  refresh=$(json_string "$1" refresh_token)
  scope=$(json_string "$1" scope)
  lifetime=$(json_number "$1" expires_in)
  case $access in
    oat_*) ;;
    *) fail 1 'the server answered with something that is not an OAuth access token; nothing was saved.' ;;
  esac
  [ -n "$refresh" ] || fail 1 'the server answered without a refresh token; nothing was saved.'
  now=$(date +%s)
  write_private "$CREDENTIALS" "$(printf '{"server":"%s","api_key":"%s","user_email":"%s","issued_at":"%s","expires_at":"%s","refresh_token":"%s","client_id":"%s","scope":"%s","resource":"%s"}' \\
    "$(json_escape "$SERVER")" "$(json_escape "$access")" "$(json_escape "$2")" "$(iso_time "$now")" "$(iso_time $((now + \${lifetime:-3600})))" \\
    "$(json_escape "$refresh")" "$(json_escape "$3")" "$(json_escape "\${scope:-$5}")" "$(json_escape "$4")")"
}

if [ "$MODE" = refresh ]; then
  [ -f "$CREDENTIALS" ] || fail 1 "no credential file at $CREDENTIALS: sign in first, with --scope 'read write'"
  saved=$(cat "$CREDENTIALS") || fail 1 "cannot read $CREDENTIALS"
  [ "$(json_string "$saved" server)" = "$SERVER" ] || fail 1 "the credentials in $CREDENTIALS are for another server"
  refresh_token=$(json_string "$saved" refresh_token)
  client_id=$(json_string "$saved" client_id)
  [ -n "$refresh_token" ] && [ -n "$client_id" ] ||
    fail 1 "$CREDENTIALS holds an API key, which needs no refresh (90 days); for OAuth tokens sign in with --scope 'read write'"
  # On stdin, so the refresh token never appears in the process list.
  answer=$(printf 'grant_type=refresh_token&refresh_token=%s&client_id=%s' "$refresh_token" "$client_id" |
    curl -sS --max-time 30 -X POST -H 'Content-Type: application/x-www-form-urlencoded' -H 'Accept: application/json' \\
      --data-binary @- "$SERVER/api/oauth/v2/token") || fail 1 "cannot reach $SERVER"
  [ -n "$(json_string "$answer" access_token)" ] ||
    fail 1 "the refresh token was refused (used, expired or revoked); sign in again with --scope: $answer"
  save_oauth "$answer" "$(json_string "$saved" user_email)" "$client_id" "$(json_string "$saved" resource)" "$(json_string "$saved" scope)"
  say "Renewed. The new access token is saved in $CREDENTIALS as api_key, valid until $(json_string "$(cat "$CREDENTIALS")" expires_at)."
  exit 0
fi

if [ "$MODE" = poll ]; then
  [ -f "$PENDING" ] || fail 1 "no pending sign-in in $PENDING: run with --start first"
  pending=$(cat "$PENDING") || fail 1 "cannot read $PENDING"
  [ "$(json_string "$pending" server)" = "$SERVER" ] || fail 1 "the pending sign-in in $PENDING is for another server; run --start again"
  device_code=$(json_string "$pending" device_code)
  RESOURCE=$(json_string "$pending" resource)
  interval=$(json_number "$pending" interval)
  expires_at=$(json_number "$pending" expires_at)
  [ -n "$device_code" ] && [ -n "$expires_at" ] || fail 1 "$PENDING is damaged; run --start again"
  [ -n "$interval" ] && [ "$interval" -ge 1 ] || interval=5
  expires_in=$((expires_at - $(date +%s)))
  if [ "$expires_in" -le 0 ]; then
    forget_pending
    fail 3 'the code expired before it was approved; run --start again.'
  fi
  say "Waiting for the approval of the sign-in started with --start (the code expires in $((expires_in / 60 + 1)) min)..."
else
  name=$(json_safe "\${KB_CLIENT_NAME:-agent-login.sh}")
  host=$(json_safe "$(uname -n 2>/dev/null)")
  [ -n "$name" ] || name=agent-login.sh
  [ -n "$host" ] || host=unknown

  oauth=
  [ -z "$RESOURCE" ] || oauth="$oauth$(printf ',"resource":"%s"' "$(json_safe "$RESOURCE" 500)")"
  [ -z "$SCOPE" ] || oauth="$oauth$(printf ',"scope":"%s"' "$(json_safe "$SCOPE" 200)")"
  answer=$(printf '{"client_name":"%s","client_host":"%s"%s}' "$name" "$host" "$oauth" | post_json /api/oauth/device) ||
    fail 1 "cannot reach $SERVER"
  device_code=$(json_string "$answer" device_code)
  user_code=$(json_string "$answer" user_code)
  verification_uri=$(json_string "$answer" verification_uri)
  verification_uri_complete=$(json_string "$answer" verification_uri_complete)
  interval=$(json_number "$answer" interval)
  expires_in=$(json_number "$answer" expires_in)
  [ -n "$device_code" ] && [ -n "$user_code" ] || fail 1 "$SERVER did not start a sign-in: $answer"
  [ -n "$interval" ] && [ "$interval" -ge 1 ] || interval=5
  [ -n "$expires_in" ] || expires_in=600

  say "To sign in to $SITE_NAME, open this link in a browser and approve:"
  say ""
  say "    $verification_uri_complete"
  say ""
  say "or go to $verification_uri and enter the code $user_code"
  if [ "$MODE" = start ]; then
    write_private "$PENDING" "$(printf '{"server":"%s","device_code":"%s","interval":%s,"expires_at":%s,"resource":"%s"}' \\
      "$(json_escape "$SERVER")" "$device_code" "$interval" "$(($(date +%s) + expires_in))" "$(json_escape "$RESOURCE")")"
    say "Approve only if the page shows the same code. The code expires in $((expires_in / 60)) min."
    say "Then run:  curl -fsS $SERVER/agent-login.sh | sh -s -- --poll"
    exit 0
  fi
  say "Approve only if the page shows the same code. Waiting (the code expires in $((expires_in / 60)) min)..."
fi

waited=0
while :; do
  sleep "$interval"
  waited=$((waited + interval))
  if ! answer=$(printf '{"grant_type":"urn:ietf:params:oauth:grant-type:device_code","device_code":"%s"}' "$device_code" |
    post_json /api/oauth/token); then
    [ "$waited" -lt "$expires_in" ] || fail 1 "cannot reach $SERVER"
    continue # a network hiccup: try again at the next interval
  fi
  api_key=$(json_string "$answer" access_token)
  [ -n "$api_key" ] && break
  case $(json_string "$answer" error) in
    authorization_pending) ;;
    slow_down)
      next=$(json_number "$answer" interval)
      interval=\${next:-$((interval + 5))}
      ;;
    access_denied)
      forget_pending
      fail 2 'the request was denied; nothing was saved.'
      ;;
    expired_token)
      forget_pending
      fail 3 'the code expired before it was approved; run this script again.'
      ;;
    invalid_grant)
      forget_pending
      fail 1 "the sign-in was already used or is unknown; run this script again: $answer"
      ;;
    *) fail 1 "unexpected answer from $SERVER/api/oauth/token: $answer" ;;
  esac
  [ "$waited" -le $((expires_in + 60)) ] || fail 3 'no approval arrived in time; run this script again.'
done

user_email=$(json_string "$answer" user_email)
if [ -n "$RESOURCE" ]; then
  save_oauth "$answer" "$user_email" "$(json_string "$answer" client_id)" "$RESOURCE" ''
  forget_pending
  say ""
  say "Signed in\${user_email:+ as $user_email}. An OAuth access token for $RESOURCE (scope: $(json_string "$answer" scope)) is saved"
  say "in $CREDENTIALS (readable only by you) as api_key, with its refresh token."
  say "Send it as: Authorization: Bearer <api_key>   at $RESOURCE, on the REST API and for chat (check with $SERVER/api/auth/me)"
  say "It lasts one hour; renew it with:  curl -fsS $SERVER/agent-login.sh | sh -s -- --refresh"
  exit 0
fi
case $api_key in
  "$KEY_PREFIX"*) ;;
  *) fail 1 'the server answered with something that is not an API key; nothing was saved.' ;;
esac
issued_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)

write_private "$CREDENTIALS" "$(printf '{"server":"%s","api_key":"%s","user_email":"%s","issued_at":"%s"}' \\
  "$(json_escape "$SERVER")" "$api_key" "$(json_escape "$user_email")" "$issued_at")"
forget_pending

say ""
say "Signed in\${user_email:+ as $user_email}. The API key is saved in $CREDENTIALS (readable only by you)."
say "Send it as: Authorization: Bearer <api_key>   (check with $SERVER/api/auth/me)"
`;
}
