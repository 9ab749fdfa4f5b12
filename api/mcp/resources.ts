// MCP resources: every digest, essay and published knowledge concept as Markdown, addressed as
// kb://digests/<date>, kb://essays/<slug>, kb://knowledge/<slug>. Site links inside are in the agent form.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ContentState } from '../content/index.ts';
import { essayIn } from '../../src/lib/content/model.ts';
import { getDigest } from '../../src/lib/read/digests.ts';
import { getEssay } from '../../src/lib/read/essays.ts';
import { getConcept } from '../../src/lib/read/knowledge.ts';

const MARKDOWN = 'text/markdown';

function markdown(uri: URL, text: string | null, what: string): ReadResourceResult {
  if (text === null) throw new Error(`No ${what} at ${uri.href}`);
  return { contents: [{ uri: uri.href, mimeType: MARKDOWN, text }] };
}

const withTitle = (title: string, body: string) => (body.trimStart().startsWith('# ') ? body : `# ${title}\n\n${body}`);
const one = (v: string | string[]) => (Array.isArray(v) ? v[0] : v);

export function registerResources(server: McpServer, state: () => ContentState): void {
  server.registerResource(
    'digest',
    new ResourceTemplate('kb://digests/{date}', {
      list: () => ({ resources: state().snapshot.digests.map((d) => ({ uri: `kb://digests/${d.date}`, name: `${d.date}: ${d.title}`, mimeType: MARKDOWN })) }),
    }),
    { title: 'Daily digest', description: 'A daily digest: five items with their sources', mimeType: MARKDOWN },
    (uri, { date }) => {
      const d = getDigest(state().snapshot, one(date), { agent: true });
      return markdown(uri, d && d.content, 'digest');
    },
  );

  server.registerResource(
    'essay',
    new ResourceTemplate('kb://essays/{slug}', {
      list: () => ({
        resources: state().snapshot.essays.map((e) => ({ uri: `kb://essays/${e.slug}`, name: essayIn(e).title, description: essayIn(e).description, mimeType: MARKDOWN })),
      }),
    }),
    { title: 'Essay', description: 'An essay, in its primary language', mimeType: MARKDOWN },
    (uri, { slug }) => {
      const e = getEssay(state().snapshot, one(slug), { agent: true });
      return markdown(uri, e && withTitle(e.title, e.content), 'essay');
    },
  );

  server.registerResource(
    'knowledge',
    new ResourceTemplate('kb://knowledge/{slug}', {
      list: () => ({
        resources: state()
          .snapshot.concepts.filter((c) => !c.draft)
          .map((c) => ({ uri: `kb://knowledge/${c.slug}`, name: c.title, description: c.summary, mimeType: MARKDOWN })),
      }),
    }),
    { title: 'Knowledge concept', description: 'A knowledge page derived from its sources', mimeType: MARKDOWN },
    (uri, { slug }) => {
      const c = getConcept(state().snapshot, one(slug), { agent: true });
      return markdown(uri, c && withTitle(c.title, c.body), 'knowledge concept');
    },
  );
}
