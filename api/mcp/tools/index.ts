// The MCP tools, all listed to everyone with what each needs (description and _meta.securitySchemes).
// Reads for everyone (search over every type, one item, the briefing, recent items, related items,
// comments); with a token, the person's notes; with the `write` scope, the tools that act (comment, react,
// flag a proposal, draft, edit and submit a post, write a note). Every tool but the
// snapshot reads goes through the HTTP route it mirrors (../api.ts), so checks, limits and audit events are
// the route's. Each tool has per-field input descriptions, an output schema with structuredContent beside
// the JSON text, absolute URLs (page_url: the page to cite), and read-only/destructive hints.
//
// Here: the list of tools in the order tools/list gives them, what each needs, and their registration.
// The tools are in search.ts (search, related), read.ts (items, lists, comments, the person's notes) and
// write.ts (the tools that act); their input fields and output schemas in schemas.ts, the links they answer
// with in links.ts, the sign-in notice each description ends with in auth-notice.ts.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolError } from '../api.ts';
import { needsNotice } from './auth-notice.ts';
import { getItemTool, latestBriefingTool, listCommentsTool, listNotesTool, listRecentTool, readNoteTool } from './read.ts';
import { relatedTool, searchTool } from './search.ts';
import type { ToolContext, ToolDef, ToolNeed } from './shared.ts';
import { commentTool, draftPostTool, editPostEssayTool, flagProposalTool, reactTool, submitPostTool, writeNoteTool } from './write.ts';

export type { ToolContext, ToolNeed } from './shared.ts';

/** Every tool, in the order tools/list gives them: the reads, the person's notes, then the tools that act. */
export const TOOLS: ToolDef[] = [
  searchTool,
  getItemTool,
  latestBriefingTool,
  listRecentTool,
  relatedTool,
  listCommentsTool,
  listNotesTool,
  readNoteTool,
  commentTool,
  reactTool,
  flagProposalTool,
  draftPostTool,
  editPostEssayTool,
  submitPostTool,
  writeNoteTool,
];

/** What each tool needs, by name: the MCP endpoint answers a call of a tool the caller may not use with the challenge, and of an unknown one with a JSON-RPC error. */
export const TOOL_NEEDS: ReadonlyMap<string, ToolNeed> = new Map(TOOLS.map((t) => [t.name, t.needs]));

/**
 * Registers every tool, whoever calls: a client lists them all (and an agent sees what it could do once
 * signed in); the endpoint answers a call the caller may not make with the HTTP challenge (../index.ts).
 */
export function registerTools(server: McpServer, ctx: ToolContext): void {
  for (const t of TOOLS) {
    const tool = t.register(server, ctx);
    const { sentence, meta } = needsNotice(t.needs);
    tool.update({ description: `${tool.description ?? ''}${sentence}`, _meta: { ...tool._meta, ...meta } });
  }
}

export { toolError };
export type { CallToolResult };
