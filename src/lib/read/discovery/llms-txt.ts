// llms.txt (llmstxt.org): the site's index for language models, linking the briefing, the reference, the
// content, the feeds, the Markdown pages and the agent documents.
import type { Snapshot } from '../../content/model.ts';
import { LANGUAGES } from '../../content/schema.ts';
import type { SiteContext } from '../../site.ts';
import { FEED_ENTRIES } from '../feeds.ts';

/** /llms.txt: the index of what an agent can read here, as a Markdown list of links. */
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
