// What every MCP tool module shares: the scope a tool needs, the context it is registered with (the content
// state and the in-process HTTP API), the shape of a tool definition, and the read-only/destructive hints.
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ContentState } from '../../content/index.ts';
import type { ApiCall } from '../api.ts';

/** The scope a tool needs: none (anyone), read (a token: the person's own data), write (it acts). */
export type ToolNeed = 'none' | 'read' | 'write';

export interface ToolContext {
  state: () => ContentState;
  /** The HTTP API in process, as the MCP caller. */
  call: ApiCall;
}

/** One tool: its name, what it needs, and how it registers itself on a server (index.ts adds the auth notice). */
export interface ToolDef {
  name: string;
  needs: ToolNeed;
  register: (server: McpServer, ctx: ToolContext) => RegisteredTool;
}

/** The hints of a tool that only reads. */
export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The hints of a tool that acts: whether it can destroy (replace, reject) and whether repeating it changes nothing more. */
export const ACT = (destructive: boolean, idempotent: boolean): ToolAnnotations => ({ readOnlyHint: false, destructiveHint: destructive, idempotentHint: idempotent, openWorldHint: false });
