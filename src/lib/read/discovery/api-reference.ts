// The API reference for agents: /api as prose (Markdown, in sections: the overview, the content reads and
// feeds, signing in, then search, writing and MCP) and its JSON summary, what /api answers to a JSON client.
import type { Snapshot } from '../../content/model.ts';
import { LANGUAGES } from '../../content/schema.ts';
import type { SiteContext } from '../../site.ts';
import { FEED_ENTRIES, feedUrls } from '../feeds.ts';
import { API_VERSION } from './shared.ts';

/** The prose reference served at /api: every read, how to sign in, the writes and MCP, for an agent to read. */
export function apiReference(snap: Snapshot, site: SiteContext): string {
  return overview(site) + contentAndFeeds(snap) + signingIn(site) + searchWritingAndMcp(site);
}

/** The title, the conventions every read shares, and where to start. */
function overview(site: SiteContext): string {
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

`;
}

/** The content reads, what the snapshot holds right now, and the Atom feeds. */
function contentAndFeeds(snap: Snapshot): string {
  return `## Content

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

`;
}

/** The ways to sign in: OAuth 2.1, the device flow and its script, one login for everything, API keys. */
function signingIn(site: SiteContext): string {
  return `## Signing in (only to write)

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

`;
}

/** Search and chat, the writes, the audit log, and the MCP server. */
function searchWritingAndMcp(site: SiteContext): string {
  return `## Search, related items and chat

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

/** The JSON summary /api answers when asked for JSON: the entry points, the feeds and the counts. */
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
