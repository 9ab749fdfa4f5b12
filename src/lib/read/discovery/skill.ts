// The skill file (SKILL.md): how an agent uses this service, in four steps, and the installable skills.
import type { Snapshot } from '../../content/model.ts';
import type { SiteContext } from '../../site.ts';
import { skillUrl } from '../skills.ts';

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
