// MCP tools act through the HTTP API, in process: the tool call becomes the very request an agent would
// send over HTTP (app.fetch, no socket), with the MCP caller's bearer token. So a tool has the route's
// validation, permission and scope checks, rate limits and audit events, not a copy of them, and its
// errors carry the route's `detail` and `hint`. (The website's pages do the same: api/web/call.ts.)
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fetchInProcess, type ApiAnswer } from '../web/call.ts';

export type { ApiAnswer } from '../web/call.ts';

export type ApiCall = (method: string, path: string, opts?: { json?: unknown; headers?: Record<string, string> }) => Promise<ApiAnswer>;

/**
 * @param origin the origin the MCP request came to (the inner request goes to the same one)
 * @param token the caller's bearer token, or undefined for an anonymous caller
 * @param incoming the Node request the MCP call arrived on: rate limits by address key on it
 * @example const call = mcpApiCaller(app, 'https://kb.example', token, c.env?.incoming)
 */
export function mcpApiCaller(app: OpenAPIHono, origin: string, token: string | undefined, incoming?: unknown): ApiCall {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
    if (token) headers.Authorization = `Bearer ${token}`;
    return fetchInProcess(app, new URL(path, origin), method, headers, opts.json, incoming);
  };
}

/** A string that is a path on this site (`/api/…`, `/videos/…`, `/.well-known/…`), not prose. */
const SITE_PATH = /^\/(?:api|\.well-known|videos|essays|digests|knowledge|personas|channels|posts|tags|llms\.txt|agent-login\.sh|SKILL\.md|mcp)(?:[/?]\S*)?$/;

/**
 * Every relative link made absolute, so an MCP client can open it as it is: a string field named url or
 * ending in _url that starts with /, any other value that is a path on this site (a thumbnail, the
 * briefing's endpoints), and the site links inside Markdown (`](/videos/…)`).
 */
export function absolutise<T>(value: T, origin: string): T {
  if (Array.isArray(value)) return value.map((v) => absolutise(v, origin)) as T;
  if (typeof value === 'string') {
    if (SITE_PATH.test(value)) return `${origin}${value}` as T;
    return (value.includes('](/') ? value.replace(/\]\(\/(?!\/)/g, `](${origin}/`) : value) as T;
  }
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = typeof v === 'string' && (k === 'url' || k.endsWith('_url')) && v.startsWith('/') ? `${origin}${v}` : absolutise(v, origin);
  }
  return out as T;
}

/** A tool's answer: the JSON as text (for clients that read only text) and as structured content. */
export function structured(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** A tool error that says what went wrong and how to change the call. */
export function toolError(message: string, fix: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${message} To fix the call: ${fix}` }] };
}

/** The API's refusal as a tool error: its status, its detail (or the 422's failing parameters) and its hint. */
/** A route's answer as a tool result: its JSON as structured content, or its error with the route's hint. */
export function toolAnswer(a: ApiAnswer): CallToolResult {
  return a.ok ? structured(a.body as Record<string, unknown>) : apiError(a);
}

export function apiError(a: ApiAnswer, argumentNames: Record<string, string> = {}): CallToolResult {
  const body = a.body && typeof a.body === 'object' ? (a.body as { detail?: unknown; hint?: unknown }) : {};
  let message: string;
  if (typeof body.detail === 'string') message = body.detail;
  else if (Array.isArray(body.detail)) {
    // A 422 names HTTP locations (body.entity_id); the caller knows the tool's argument names.
    message = body.detail
      .map((e: { loc?: (string | number)[]; msg?: string }) => {
        const field = String((e.loc ?? []).slice(1).join('.') || 'input');
        return `argument ${argumentNames[field] ?? field}: ${e.msg}`;
      })
      .join('; ');
  } else message = `The request failed (HTTP ${a.status}).`;
  const hint = typeof body.hint === 'string' ? body.hint : 'Check the arguments against this tool\'s input schema.';
  return { isError: true, content: [{ type: 'text', text: `HTTP ${a.status}: ${message}. To fix the call: ${hint}` }] };
}
