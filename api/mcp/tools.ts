// The MCP tools: search, one item by type and id, the briefing, and the newest items. All read the content
// snapshot through the same read model as /api (links in the agent form), and answer JSON text.
// (A comment tool comes with the comment API; it will need the `write` scope.)
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ContentState } from '../content/index.ts';
import { getVideo, videoItem } from '../../src/lib/read/videos.ts';
import { essayItem, getEssay } from '../../src/lib/read/essays.ts';
import { digestItem, getDigest } from '../../src/lib/read/digests.ts';
import { getConcept } from '../../src/lib/read/knowledge.ts';
import { getPersona } from '../../src/lib/read/personas.ts';
import { briefing } from '../../src/lib/read/latest.ts';
import { SEARCH_TYPES, searchContent } from './search.ts';
import type { SearchService } from '../../src/lib/search/index.ts';

const ITEM_TYPES = ['video', 'essay', 'digest', 'knowledge', 'persona'] as const;
const RECENT_TYPES = ['video', 'essay', 'digest'] as const;
const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

const result = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const failure = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

function getItem(state: ContentState, type: (typeof ITEM_TYPES)[number], id: string) {
  const snap = state.snapshot;
  const agent = { agent: true };
  switch (type) {
    case 'video':
      return getVideo(snap, id, agent);
    case 'essay':
      return getEssay(snap, id, agent);
    case 'digest':
      return getDigest(snap, id, agent);
    case 'knowledge':
      return getConcept(snap, id, agent);
    case 'persona':
      return getPersona(snap, id, agent);
  }
}

function recent(state: ContentState, type: (typeof RECENT_TYPES)[number] | undefined, limit: number) {
  const snap = state.snapshot;
  const items: { type: string; date: string; item: unknown }[] = [];
  // Each list is newest first, so the first `limit` of each suffice for the merge.
  if (!type || type === 'video') for (const v of snap.videos.slice(0, limit)) items.push({ type: 'video', date: v.date, item: videoItem(snap, v, true) });
  if (!type || type === 'essay') {
    for (const e of snap.essays.slice(0, limit)) {
      const it = essayItem(snap, e, true);
      items.push({ type: 'essay', date: it.date, item: it });
    }
  }
  if (!type || type === 'digest') for (const d of snap.digests.slice(0, limit)) items.push({ type: 'digest', date: d.date, item: digestItem(d, true) });
  items.sort((a, b) => b.date.localeCompare(a.date));
  return items.slice(0, limit).map((i) => ({ type: i.type, ...(i.item as object) }));
}

export function registerTools(server: McpServer, state: () => ContentState, search: () => SearchService): void {
  server.registerTool(
    'search',
    {
      title: 'Search the knowledge base',
      description: 'Find videos, essays, daily digests and knowledge concepts (hybrid keyword and semantic search, English and Slovenian).',
      inputSchema: {
        query: z.string().min(1).max(500).describe('Words to look for'),
        types: z.array(z.enum(SEARCH_TYPES)).optional().describe('Only these kinds of item'),
        limit: z.number().int().min(1).max(50).default(10).describe('At most this many hits'),
      },
      annotations: READ_ONLY,
    },
    async ({ query, types, limit }) => {
      const { site } = state();
      return result({ query, hits: await searchContent(search(), site.baseUrl, query, { types, limit }) });
    },
  );

  server.registerTool(
    'get_item',
    {
      title: 'Get one item',
      description: 'One video (by video_id), essay (slug), digest (date YYYY-MM-DD), knowledge concept (slug) or persona (persona_id), in full.',
      inputSchema: { type: z.enum(ITEM_TYPES), id: z.string().min(1).max(200) },
      annotations: READ_ONLY,
    },
    ({ type, id }) => {
      const item = getItem(state(), type, id);
      return item ? result(item) : failure(`No ${type} with id ${id}`);
    },
  );

  server.registerTool(
    'latest_briefing',
    {
      title: 'Latest briefing',
      description: 'The one-call briefing: the latest digest, newest videos and essays, the featured essay, freshness and counts.',
      annotations: READ_ONLY,
    },
    () => result(briefing(state().snapshot, state().site)),
  );

  server.registerTool(
    'list_recent',
    {
      title: 'Recent items',
      description: 'The newest videos, essays and digests, newest first (or only one kind).',
      inputSchema: {
        type: z.enum(RECENT_TYPES).optional(),
        limit: z.number().int().min(1).max(50).default(10),
      },
      annotations: READ_ONLY,
    },
    ({ type, limit }) => result({ items: recent(state(), type, limit) }),
  );
}
