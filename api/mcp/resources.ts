// MCP resources: every digest, essay and published knowledge concept as Markdown, addressed as
// kb://digests/<date>, kb://essays/<slug>, kb://knowledge/<slug>. A listed resource's `name` is its
// identifier (the date or slug) and its `title` the item's title, as the MCP schema means them; its
// description ends with the page to cite. Site links inside are in the agent form. A URI that names no
// resource is the MCP spec's JSON-RPC error -32002 (Resource not found), with the URI in its data.
import { ResourceTemplate, type McpServer, type RegisteredResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, ReadResourceRequestSchema, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ContentState } from '../content/index.ts';
import { essayIn } from '../../src/lib/content/model.ts';
import { getDigest } from '../../src/lib/read/digests.ts';
import { getEssay } from '../../src/lib/read/essays.ts';
import { getConcept } from '../../src/lib/read/knowledge.ts';
import { pageUrl } from '../../src/lib/read/links.ts';

const MARKDOWN = 'text/markdown';

/** The MCP spec's code for a resource that does not exist (server/resources, Error Handling). */
export const RESOURCE_NOT_FOUND = -32002;

const notFound = (uri: string, message: string) => new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${message}`, { uri });

function markdown(uri: URL, text: string | null, what: string, fix: string): ReadResourceResult {
  if (text === null) throw notFound(uri.href, `no ${what} at ${uri.href}. ${fix}`);
  return { contents: [{ uri: uri.href, mimeType: MARKDOWN, text }] };
}

const withTitle = (title: string, body: string) => (body.trimStart().startsWith('# ') ? body : `# ${title}\n\n${body}`);
const one = (v: string | string[]) => (Array.isArray(v) ? v[0] : v);
const cite = (page: string) => `Page to cite: ${page}`;

export function registerResources(server: McpServer, state: () => ContentState): void {
  const templates: RegisteredResourceTemplate[] = [];
  templates.push(server.registerResource(
    'digest',
    new ResourceTemplate('kb://digests/{date}', {
      list: () => {
        const { snapshot, site } = state();
        return {
          resources: snapshot.digests.map((d) => ({
            uri: `kb://digests/${d.date}`,
            name: d.date,
            title: d.title,
            description: `${d.intro} ${cite(pageUrl('digests', d.date, site.baseUrl))}`,
            mimeType: MARKDOWN,
          })),
        };
      },
    }),
    { title: 'Daily digest', description: 'A daily digest: five items with their sources', mimeType: MARKDOWN },
    (uri, { date }) => {
      const d = getDigest(state().snapshot, one(date), { agent: true });
      return markdown(uri, d && d.content, 'digest', 'Digests are named by their date YYYY-MM-DD; resources/list gives them.');
    },
  ));

  templates.push(server.registerResource(
    'essay',
    new ResourceTemplate('kb://essays/{slug}', {
      list: () => {
        const { snapshot, site } = state();
        return {
          resources: snapshot.essays.map((e) => ({
            uri: `kb://essays/${e.slug}`,
            name: e.slug,
            title: essayIn(e).title,
            description: `${essayIn(e).description} ${cite(pageUrl('essays', e.slug, site.baseUrl))}`,
            mimeType: MARKDOWN,
          })),
        };
      },
    }),
    { title: 'Essay', description: 'An essay, in its primary language', mimeType: MARKDOWN },
    (uri, { slug }) => {
      const e = getEssay(state().snapshot, one(slug), { agent: true });
      return markdown(uri, e && withTitle(e.title, e.content), 'essay', 'Essays are named by their slug; resources/list gives them.');
    },
  ));

  templates.push(server.registerResource(
    'knowledge',
    new ResourceTemplate('kb://knowledge/{slug}', {
      list: () => {
        const { snapshot, site } = state();
        return {
          resources: snapshot.concepts
            .filter((c) => !c.draft)
            .map((c) => ({ uri: `kb://knowledge/${c.slug}`, name: c.slug, title: c.title, description: `${c.summary} ${cite(pageUrl('knowledge', c.slug, site.baseUrl))}`, mimeType: MARKDOWN })),
        };
      },
    }),
    { title: 'Knowledge concept', description: 'A knowledge page derived from its sources', mimeType: MARKDOWN },
    (uri, { slug }) => {
      const c = getConcept(state().snapshot, one(slug), { agent: true });
      return markdown(uri, c && withTitle(c.title, c.body), 'knowledge concept', 'Concepts are named by their slug; resources/list gives them.');
    },
  ));

  // The SDK answers a URI no template matches with -32602 (Invalid params); the spec's answer is -32002.
  // This handler replaces the SDK's (setRequestHandler replaces) and reads through the same templates.
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = URL.parse(request.params.uri);
    if (!uri) throw new McpError(ErrorCode.InvalidParams, `Invalid params: uri ${JSON.stringify(request.params.uri)} is not a URI; resources/list gives them (kb://…)`);
    for (const t of templates) {
      const variables = t.resourceTemplate.uriTemplate.match(uri.href);
      if (variables) return t.readCallback(uri, variables, extra);
    }
    throw notFound(uri.href, `${uri.href} is none of this server's resources (kb://digests/<date>, kb://essays/<slug>, kb://knowledge/<slug>); resources/list gives them.`);
  });
}
