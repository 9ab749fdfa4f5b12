// The MCP tools, all listed to everyone with what each needs (description and _meta.securitySchemes).
// Reads for everyone (search over every type, one item, the briefing, recent items, related items,
// comments); with a token, the person's notes; with the `write` scope, the tools that act (comment, react,
// flag a proposal, draft, edit and submit a post, write a note). Every tool but the
// snapshot reads goes through the HTTP route it mirrors (api.ts), so checks, limits and audit events are
// the route's. Each tool has per-field input descriptions, an output schema with structuredContent beside
// the JSON text, absolute URLs (page_url: the page to cite), and read-only/destructive hints.
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ContentState } from '../content/index.ts';
import { ITEM_TYPES } from '../../src/lib/search/documents.ts';
import { essayItem } from '../../src/lib/read/essays.ts';
import { videoItem } from '../../src/lib/read/videos.ts';
import { digestItem } from '../../src/lib/read/digests.ts';
import { ENTITY_TYPES } from '../comments/entities.ts';
import { REACTION_KINDS } from '../comments/store.ts';
import { COMMENT_MAX } from '../comments/routes.ts';
import { absolutise, apiError, structured, toolAnswer, toolError, type ApiCall } from './api.ts';

/** The scope a tool needs: none (anyone), read (a token: the person's own data), write (it acts). */
export type ToolNeed = 'none' | 'read' | 'write';

export interface ToolContext {
  state: () => ContentState;
  /** The HTTP API in process, as the MCP caller. */
  call: ApiCall;
}

const KIND: Record<(typeof ITEM_TYPES)[number], string> = { video: 'videos', essay: 'essays', digest: 'digests', knowledge: 'knowledge', persona: 'personas', post: 'posts' };
const ID_OF = 'video: its video_id; essay, knowledge: the slug; digest: the date YYYY-MM-DD; persona: the persona_id; post: the post_id or slug';

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const ACT = (destructive: boolean, idempotent: boolean): ToolAnnotations => ({ readOnlyHint: false, destructiveHint: destructive, idempotentHint: idempotent, openWorldHint: false });

// ---- input fields: each says what it is and, when wrong, how to fix it ----
const itemType = (types: readonly string[] = ITEM_TYPES) =>
  z.enum(types as [string, ...string[]], { error: `type must be one of ${types.join(', ')}` }).describe(`The kind of item: ${types.join(', ')}.`);
const itemId = () =>
  z
    .string({ error: `id is required: ${ID_OF}` })
    .min(1, { error: `id must not be empty: ${ID_OF}` })
    .max(200, { error: 'id has at most 200 characters' })
    .describe(`The item's id. ${ID_OF}. Search hits and lists give it.`);
const count = (name: string, min: number, max: number, dflt: number, what: string) =>
  z
    .number({ error: `${name} must be a whole number from ${min} to ${max}` })
    .int({ error: `${name} must be a whole number from ${min} to ${max}` })
    .min(min, { error: `${name} must be at least ${min}` })
    .max(max, { error: `${name} must be at most ${max}` })
    .default(dflt)
    .describe(`${what} (${min}..${max}, default ${dflt}).`);
const entityType = () => z.enum(ENTITY_TYPES, { error: `entity_type must be one of ${ENTITY_TYPES.join(', ')}` }).describe(`What the comment is on: ${ENTITY_TYPES.join(', ')}.`);
const entityId = () =>
  z
    .string({ error: `entity_id is required: ${ID_OF}` })
    .min(1, { error: 'entity_id must not be empty' })
    .max(200, { error: 'entity_id has at most 200 characters' })
    .describe(`The item's id. ${ID_OF} (a post: its post_id).`);
const noteSlug = () =>
  z
    .string({ error: 'slug is required: the note\'s name, 1 to 80 of a-z, 0-9, - and _' })
    .regex(/^[a-z0-9_-]{1,80}$/, { error: 'slug is 1 to 80 of a-z, 0-9, - and _ (lower case)' })
    .describe('The note\'s name: 1 to 80 of a-z, 0-9, - and _ (list_notes gives them).');

// ---- output schemas ----
const Link = { url: z.string().describe('The item\'s JSON document (absolute).'), page_url: z.string().describe('The page a person reads (absolute): cite this one.') };
const Hit = z.looseObject({
  type: z.string(),
  id: z.string(),
  title: z.string(),
  date: z.string().nullable(),
  lang: z.string().describe('The item\'s language, en or sl.'),
  summary: z.string().describe('A passage around the matched words, as plain text.'),
  ...Link,
});
const Item = z.looseObject({ type: z.string(), id: z.string(), title: z.string(), ...Link, item: z.record(z.string(), z.unknown()).describe('The item as GET <url> answers it.') });
const Comment = z.looseObject({ comment_id: z.string(), entity_type: z.string(), entity_id: z.string(), body: z.string(), created_at: z.string(), page_url: z.string() });
const Post = z.looseObject({ post_id: z.string(), slug: z.string(), title: z.string(), status: z.string(), url: z.string(), page_url: z.string() });

const plain = (snippet: string) =>
  snippet.replace(/<\/?mark>/g, '').replace(/&(lt|gt|amp|quot|#39);/g, (_m, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'" })[e]!);

/** The page of an item a comment is on, with the comment's anchor. */
function commentPage(origin: string, c: { comment_id: string; entity_type: string; entity_id: string }): string {
  const kind = KIND[c.entity_type as keyof typeof KIND];
  return `${origin}/${kind}/${encodeURIComponent(c.entity_id)}#comment-${c.comment_id}`;
}

/** A post as the API answers it, with its page. */
const postOut = (origin: string, p: Record<string, unknown>) => ({ ...absolutise(p, origin), page_url: `${origin}${p.url as string}` });

interface ToolDef {
  name: string;
  needs: ToolNeed;
  register: (server: McpServer, ctx: ToolContext) => RegisteredTool;
}

export const TOOLS: ToolDef[] = [
  {
    name: 'search',
    needs: 'none',
    register: (server, { state, call }) =>
      server.registerTool(
        'search',
        {
          title: 'Search the knowledge base',
          description:
            'Find videos, essays, daily digests, knowledge concepts, personas and published posts (hybrid keyword and semantic search, English and Slovenian). ' +
            'Each hit has page_url, the page to cite to a person, and url, its JSON (read it with get_item).',
          inputSchema: {
            query: z
              .string({ error: 'query is required: the words to look for' })
              .min(1, { error: 'query must not be empty: give the words to look for' })
              .max(500, { error: 'query has at most 500 characters: shorten it' })
              .describe('The words to look for, in English or Slovenian (a question works too).'),
            types: z
              .array(itemType(), { error: `types is a list of item kinds, e.g. ["video", "essay"]` })
              .optional()
              .describe(`Only these kinds of item (any of ${ITEM_TYPES.join(', ')}); all when absent.`),
            limit: count('limit', 1, 50, 10, 'At most this many hits'),
            offset: z
              .number({ error: 'offset must be a whole number, 0 or more' })
              .int({ error: 'offset must be a whole number, 0 or more' })
              .min(0, { error: 'offset must be 0 or more' })
              .default(0)
              .describe('Hits to skip: the next page is at next_offset (default 0).'),
            lang: z.enum(['en', 'sl'], { error: 'lang is en or sl' }).optional().describe('Only items with a version in this language: en or sl.'),
            tag: z.string({ error: 'tag is one tag, e.g. "governance"' }).max(64, { error: 'tag has at most 64 characters' }).optional().describe('Only items carrying this tag (videos, essays, knowledge concepts, posts).'),
            since: z
              .string({ error: 'since is a date YYYY-MM-DD' })
              .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'since is a date YYYY-MM-DD, e.g. 2025-01-31' })
              .optional()
              .describe('Only items dated on or after this day, YYYY-MM-DD (knowledge concepts and personas have no date).'),
            hybrid: z.boolean({ error: 'hybrid is true or false' }).default(true).describe('true: words and meaning fused (default); false: words only.'),
          },
          outputSchema: z.looseObject({
            query: z.string(),
            total: z.number().describe('Items that match; a lower bound when total_exact is false.'),
            total_exact: z.boolean(),
            embedder: z.looseObject({ name: z.string(), model: z.string() }).nullable().describe('What ranked by meaning; null for words only.'),
            hits: z.array(Hit),
            next_offset: z.number().nullable().describe('The offset of the next page, or null on the last one.'),
            warnings: z.array(z.string()).describe('What was not done as asked (a tag no item carries, an offset past the end).'),
          }),
          annotations: READ,
        },
        async ({ query, types, limit, offset, lang, tag, since, hybrid }) => {
          const qs = new URLSearchParams({ q: query, limit: String(limit), offset: String(offset), hybrid: String(hybrid), agent: 'true' });
          if (types?.length) qs.set('types', types.join(','));
          if (lang) qs.set('lang', lang);
          if (tag !== undefined) qs.set('tag', tag);
          if (since) qs.set('since', since);
          const a = await call('GET', `/api/search?${qs}`);
          if (!a.ok) return apiError(a, { q: 'query' });
          const origin = state().site.baseUrl;
          const r = a.body as { query: string; total: number; total_exact?: boolean; embedder?: { name: string; model: string } | null; hits: Record<string, unknown>[]; next?: string | null; warnings?: string[] };
          const hits = r.hits.map((h) => ({
            type: h.type as string,
            id: h.id as string,
            title: h.title as string,
            date: h.date as string | null,
            lang: h.lang as string,
            summary: plain(h.snippet as string),
            url: `${origin}${h.url as string}`,
            page_url: h.page_url as string,
          }));
          const next_offset = r.next ? offset + limit : null;
          return structured({ query: r.query, total: r.total, total_exact: r.total_exact ?? true, embedder: r.embedder ?? null, hits, next_offset, warnings: r.warnings ?? [] });
        },
      ),
  },
  {
    name: 'get_item',
    needs: 'none',
    register: (server, { state, call }) =>
      server.registerTool(
        'get_item',
        {
          title: 'Read one item',
          description: 'One video, essay, digest, knowledge concept, persona or post in full, as its JSON document (links inside point at more JSON; page_url at the page to cite).',
          inputSchema: {
            type: itemType(),
            id: itemId(),
            lang: z.enum(['en', 'sl'], { error: 'lang is en or sl' }).optional().describe('Essays only: the language version (default: the primary one, English where it exists).'),
          },
          outputSchema: Item,
          annotations: READ,
        },
        async ({ type, id, lang }) => {
          const origin = state().site.baseUrl;
          const kind = KIND[type as keyof typeof KIND];
          const path = `/api/${kind}/${encodeURIComponent(id)}`;
          const a = await call('GET', type === 'post' ? path : `${path}?agent=true${lang && type === 'essay' ? `&lang=${lang}` : ''}`);
          if (!a.ok) return apiError(a);
          let item = absolutise(a.body as Record<string, unknown>, origin);
          if (type === 'post') {
            const essay = await call('GET', `${path}/essay`);
            item = { ...item, page_url: `${origin}${(a.body as { url: string }).url}`, essay: essay.ok ? essay.body : null };
          }
          const title = (item.title ?? item.name ?? id) as string;
          const url = type === 'post' ? `${origin}${path}` : `${origin}${path}?agent=true`;
          return structured({ type, id, title, url, page_url: item.page_url as string, item });
        },
      ),
  },
  {
    name: 'latest_briefing',
    needs: 'none',
    register: (server, { state, call }) =>
      server.registerTool(
        'latest_briefing',
        {
          title: 'Latest briefing',
          description: 'The one-call briefing: the latest digest, the newest videos and essays (each with page_url to cite), the featured essay, freshness, counts and how to sign in.',
          outputSchema: z.looseObject({
            site: z.string(),
            generated_at: z.string(),
            latest_digest: z.looseObject({ date: z.string(), title: z.string(), content: z.string(), page_url: z.string() }).nullable(),
            latest_videos: z.array(z.looseObject({ video_id: z.string(), title: z.string(), ...Link })),
            latest_essays: z.array(z.looseObject({ slug: z.string(), title: z.string(), ...Link })),
          }),
          annotations: READ,
        },
        async () => {
          const a = await call('GET', '/api/latest');
          if (!a.ok) return apiError(a);
          return structured(absolutise(a.body as Record<string, unknown>, state().site.baseUrl));
        },
      ),
  },
  {
    name: 'list_recent',
    needs: 'none',
    register: (server, { state }) =>
      server.registerTool(
        'list_recent',
        {
          title: 'Recent items',
          description: 'The newest videos, essays and digests, newest first (or only one kind).',
          inputSchema: {
            type: z.enum(['video', 'essay', 'digest'], { error: 'type is video, essay or digest (or leave it out for all three)' }).optional().describe('Only this kind: video, essay or digest; all three when absent.'),
            limit: count('limit', 1, 50, 10, 'At most this many items'),
          },
          outputSchema: z.looseObject({ items: z.array(z.looseObject({ type: z.string(), id: z.string(), title: z.string(), date: z.string(), ...Link })) }),
          annotations: READ,
        },
        ({ type, limit }) => {
          const { snapshot: snap, site } = state();
          const origin = site.baseUrl;
          const items: { type: string; id: string; title: string; date: string; summary: string; url: string; page_url: string }[] = [];
          // Each list is newest first, so the first `limit` of each suffice for the merge.
          if (!type || type === 'video') {
            for (const v of snap.videos.slice(0, limit)) {
              const it = videoItem(snap, v, true, origin);
              items.push({ type: 'video', id: it.video_id, title: it.title, date: it.date, summary: it.summary, url: `${origin}${it.url}`, page_url: it.page_url });
            }
          }
          if (!type || type === 'essay') {
            for (const e of snap.essays.slice(0, limit)) {
              const it = essayItem(snap, e, true, undefined, origin);
              items.push({ type: 'essay', id: it.slug, title: it.title, date: it.date, summary: it.description, url: `${origin}${it.url}`, page_url: it.page_url });
            }
          }
          if (!type || type === 'digest') {
            for (const d of snap.digests.slice(0, limit)) {
              const it = digestItem(d, true, origin);
              items.push({ type: 'digest', id: it.date, title: it.title, date: it.date, summary: it.intro, url: `${origin}${it.url}`, page_url: it.page_url });
            }
          }
          items.sort((a, b) => b.date.localeCompare(a.date));
          return structured({ items: items.slice(0, limit) });
        },
      ),
  },
  {
    name: 'related',
    needs: 'none',
    register: (server, { state, call }) =>
      server.registerTool(
        'related',
        {
          title: 'Related items',
          description: 'The items most related to one item: nearest by meaning, blended with shared tags and links (never the item itself).',
          inputSchema: { type: itemType(), id: itemId(), k: count('k', 1, 20, 5, 'How many related items') },
          outputSchema: z.looseObject({ item: z.looseObject({ type: z.string(), id: z.string(), title: z.string(), ...Link }), hits: z.array(Hit) }),
          annotations: READ,
        },
        async ({ type, id, k }) => {
          const a = await call('GET', `/api/${KIND[type as keyof typeof KIND]}/${encodeURIComponent(id)}/related?k=${k}&agent=true`);
          if (!a.ok) return apiError(a);
          const origin = state().site.baseUrl;
          const r = a.body as { item: Record<string, unknown>; hits: Record<string, unknown>[] };
          const hits = r.hits.map((h) => ({ type: h.type, id: h.id, title: h.title, date: h.date, lang: h.lang, summary: plain(h.snippet as string), url: `${origin}${h.url as string}`, page_url: h.page_url }));
          return structured({ item: { ...absolutise(r.item, origin), id }, hits });
        },
      ),
  },
  {
    name: 'list_comments',
    needs: 'none',
    register: (server, { state, call }) =>
      server.registerTool(
        'list_comments',
        {
          title: 'Read the comments on an item',
          description: 'The comments people left on one item, oldest first, with replies (parent_id), reactions and each comment\'s page_url.',
          inputSchema: { entity_type: entityType(), entity_id: entityId(), limit: count('limit', 1, 200, 50, 'At most this many comments'), offset: count('offset', 0, 1_000_000, 0, 'Skip this many') },
          outputSchema: z.looseObject({ total: z.number(), limit: z.number(), offset: z.number(), items: z.array(Comment) }),
          annotations: READ,
        },
        async ({ entity_type, entity_id, limit, offset }) => {
          const qs = new URLSearchParams({ entity_type, entity_id, limit: String(limit), offset: String(offset) });
          const a = await call('GET', `/api/comments?${qs}`);
          if (!a.ok) return apiError(a);
          const origin = state().site.baseUrl;
          const r = a.body as { total: number; limit: number; offset: number; items: { comment_id: string; entity_type: string; entity_id: string }[] };
          return structured({ ...r, items: r.items.map((c) => ({ ...absolutise(c, origin), page_url: commentPage(origin, c) })) });
        },
      ),
  },

  // ---- the person's own notes (a token with read) ----
  {
    name: 'list_notes',
    needs: 'read',
    register: (server, { call }) =>
      server.registerTool(
        'list_notes',
        {
          title: 'List your notes',
          description: 'The notes in your connected note repository (personal knowledge): slug, title, last change, blob id.',
          outputSchema: z.looseObject({ items: z.array(z.looseObject({ slug: z.string(), title: z.string(), blob: z.string() })), total: z.number() }),
          annotations: READ,
        },
        async () => {
          const a = await call('GET', '/api/me/personal-knowledge/notes');
          return toolAnswer(a);
        },
      ),
  },
  {
    name: 'read_note',
    needs: 'read',
    register: (server, { call }) =>
      server.registerTool(
        'read_note',
        {
          title: 'Read one of your notes',
          description: 'One note in full, with its blob id: pass that blob as base_blob to write_note to change it.',
          inputSchema: { slug: noteSlug() },
          outputSchema: z.looseObject({ slug: z.string(), title: z.string(), content: z.string(), blob: z.string() }),
          annotations: READ,
        },
        async ({ slug }) => {
          const a = await call('GET', `/api/me/personal-knowledge/notes/${slug}`);
          return toolAnswer(a);
        },
      ),
  },

  // ---- tools that act (write scope) ----
  {
    name: 'comment',
    needs: 'write',
    register: (server, { state, call }) =>
      server.registerTool(
        'comment',
        {
          title: 'Comment on an item',
          description: 'Post a comment (or a reply, with parent_id) on a video, essay, digest, knowledge concept, persona or post, as the signed-in person. @handle mentions notify people. Public, and recorded in the audit log.',
          inputSchema: {
            entity_type: entityType(),
            entity_id: entityId(),
            body: z
              .string({ error: 'body is required: the comment text' })
              .trim()
              .min(1, { error: 'body must not be empty' })
              .max(COMMENT_MAX, { error: `body has at most ${COMMENT_MAX} characters: shorten it` })
              .describe(`The comment, plain text or Markdown, at most ${COMMENT_MAX} characters.`),
            parent_id: z.string({ error: 'parent_id is a comment_id' }).max(100).optional().describe('Reply to this comment (its comment_id, from list_comments); absent: a top-level comment.'),
          },
          outputSchema: Comment,
          annotations: ACT(false, false),
        },
        async (args) => {
          const a = await call('POST', '/api/comments', { json: args });
          if (!a.ok) return apiError(a);
          const origin = state().site.baseUrl;
          return structured({ ...absolutise(a.body as Record<string, unknown>, origin), page_url: commentPage(origin, a.body) });
        },
      ),
  },
  {
    name: 'react',
    needs: 'write',
    register: (server, { call }) =>
      server.registerTool(
        'react',
        {
          title: 'React to a comment',
          description: `Add (or with undo: take back) your reaction to a comment; one per kind per person. Kinds: ${REACTION_KINDS.join(', ')}.`,
          inputSchema: {
            comment_id: z.string({ error: 'comment_id is required (list_comments gives it)' }).min(1).max(100).describe('The comment, by its comment_id (list_comments gives it).'),
            kind: z.enum(REACTION_KINDS, { error: `kind must be one of ${REACTION_KINDS.join(', ')}` }).describe(`The reaction: ${REACTION_KINDS.join(', ')}.`),
            undo: z.boolean({ error: 'undo is true or false' }).default(false).describe('true: take your reaction of this kind back.'),
          },
          outputSchema: z.looseObject({ comment_id: z.string(), counts: z.record(z.string(), z.number()), mine: z.array(z.string()) }),
          annotations: ACT(false, true),
        },
        async ({ comment_id, kind, undo }) => {
          const path = `/api/comments/${encodeURIComponent(comment_id)}/react`;
          const a = undo ? await call('DELETE', `${path}/${kind}`) : await call('POST', path, { json: { kind } });
          return toolAnswer(a);
        },
      ),
  },
  {
    name: 'flag_proposal',
    needs: 'write',
    register: (server, { call }) =>
      server.registerTool(
        'flag_proposal',
        {
          title: 'Flag a proposal',
          description: 'Object to a pending proposal against the knowledge canon (GET /api/proposals lists them). One flag per person, not on your own proposals; enough flags reject it automatically.',
          inputSchema: {
            proposal_id: z.string({ error: 'proposal_id is required (GET /api/proposals lists them)' }).min(1).max(100).describe('The proposal\'s proposal_id.'),
            reason: z.string({ error: 'reason is text' }).max(500, { error: 'reason has at most 500 characters' }).optional().describe('Why it is wrong (shown without your name), at most 500 characters.'),
          },
          outputSchema: z.looseObject({ proposal_id: z.string(), flags: z.number(), threshold: z.number(), status: z.string() }),
          annotations: ACT(true, false),
        },
        async ({ proposal_id, reason }) => {
          const a = await call('POST', `/api/proposals/${encodeURIComponent(proposal_id)}/flag`, { json: reason ? { reason } : {} });
          return toolAnswer(a);
        },
      ),
  },
  {
    name: 'draft_post',
    needs: 'write',
    register: (server, { state, call }) =>
      server.registerTool(
        'draft_post',
        {
          title: 'Draft a post',
          description: 'Start a post (a draft only you and your co-admins see) with its title, summary, tags and first essay. submit_post publishes it once the essay has 200 characters and a summary.',
          inputSchema: {
            title: z.string({ error: 'title is required' }).trim().min(3, { error: 'title needs at least 3 characters' }).max(200, { error: 'title has at most 200 characters' }).describe('The title, 3 to 200 characters.'),
            summary: z.string({ error: 'summary is text' }).trim().max(1000, { error: 'summary has at most 1000 characters' }).optional().describe('One or two sentences; needed before submitting.'),
            tags: z
              .array(z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, { error: 'each tag is lower-case kebab-case, like ai-governance' }).max(64), { error: 'tags is a list of strings' })
              .max(10, { error: 'at most 10 tags' })
              .optional()
              .describe('Up to 10 lower-case kebab-case tags, like ai-governance.'),
            lang: z.enum(['en', 'sl'], { error: 'lang is en or sl' }).optional().describe('The post\'s language, en (default) or sl.'),
            body: z.string({ error: 'body is text' }).max(100_000, { error: 'body has at most 100000 characters' }).optional().describe('The essay in Markdown (at least 200 characters to submit).'),
          },
          outputSchema: Post.extend({ essay_etag: z.string().describe('Pass to edit_post_essay as etag.') }),
          annotations: ACT(false, false),
        },
        async (args) => {
          const a = await call('POST', '/api/posts', { json: args });
          if (!a.ok) return apiError(a);
          const post = a.body as Record<string, unknown> & { post_id: string; essay_revision: number };
          return structured({ ...postOut(state().site.baseUrl, post), essay_etag: `"${post.post_id}.${post.essay_revision}"` });
        },
      ),
  },
  {
    name: 'edit_post_essay',
    needs: 'write',
    register: (server, { call }) =>
      server.registerTool(
        'edit_post_essay',
        {
          title: 'Replace a post\'s essay',
          description: 'Save a new version of your post\'s essay. Send the etag you read (draft_post, get_item of the post, or this tool\'s last answer): if someone saved in between, nothing is written and you get their version to merge.',
          inputSchema: {
            post_id: z.string({ error: 'post_id is required (draft_post gave it)' }).min(1).max(100).describe('The post\'s post_id.'),
            body: z.string({ error: 'body is required: the whole new essay' }).max(100_000, { error: 'body has at most 100000 characters' }).describe('The whole essay in Markdown (it replaces the previous one).'),
            etag: z.string({ error: 'etag is text' }).max(200).optional().describe('The essay version you edited, like "pst_….2" (needed once the essay has text).'),
          },
          outputSchema: z.looseObject({ post_id: z.string(), revision: z.number(), etag: z.string(), body: z.string() }),
          annotations: ACT(true, true),
        },
        async ({ post_id, body, etag }) => {
          const a = await call('PUT', `/api/posts/${encodeURIComponent(post_id)}/essay`, { json: { body }, headers: etag ? { 'If-Match': etag } : {} });
          return toolAnswer(a);
        },
      ),
  },
  {
    name: 'submit_post',
    needs: 'write',
    register: (server, { state, call }) =>
      server.registerTool(
        'submit_post',
        {
          title: 'Submit a post',
          description: 'Submit your draft post: published at once when it passes the checks (a summary, an essay of 200 characters) and auto-publishing is on, otherwise queued for a moderator.',
          inputSchema: { post_id: z.string({ error: 'post_id is required (draft_post gave it)' }).min(1).max(100).describe('The post\'s post_id.') },
          outputSchema: Post,
          annotations: ACT(false, false),
        },
        async ({ post_id }) => {
          const a = await call('POST', `/api/posts/${encodeURIComponent(post_id)}/submit`);
          return a.ok ? structured(postOut(state().site.baseUrl, a.body as Record<string, unknown>)) : apiError(a);
        },
      ),
  },
  {
    name: 'write_note',
    needs: 'write',
    register: (server, { call }) =>
      server.registerTool(
        'write_note',
        {
          title: 'Write one of your notes',
          description: 'Create or replace a note in your connected note repository, in one commit. To change an existing note send the blob read_note gave you as base_blob; null creates a new note only.',
          inputSchema: {
            slug: noteSlug(),
            content: z.string({ error: 'content is required: the whole note in Markdown' }).max(200_000, { error: 'content has at most 200000 characters' }).describe('The whole note in Markdown.'),
            base_blob: z
              .string()
              .regex(/^[0-9a-f]{40}$/, { error: 'base_blob is the 40-hex blob id read_note gave you' })
              .nullable()
              .optional()
              .describe('The blob id of the version you changed (read_note); null: the note must not exist yet.'),
            message: z.string({ error: 'message is text' }).max(500).optional().describe('Added to the commit message.'),
          },
          outputSchema: z.looseObject({ slug: z.string(), blob: z.string().nullable(), commit: z.string().nullable(), action: z.string(), pushed: z.boolean() }),
          annotations: ACT(true, true),
        },
        async ({ slug, ...body }) => {
          const a = await call('PUT', `/api/me/personal-knowledge/notes/${slug}`, { json: body });
          return toolAnswer(a);
        },
      ),
  },
];

/** What each tool needs, by name: the MCP endpoint answers a call of a tool the caller may not use with the challenge, and of an unknown one with a JSON-RPC error. */
export const TOOL_NEEDS: ReadonlyMap<string, ToolNeed> = new Map(TOOLS.map((t) => [t.name, t.needs]));

/** The OAuth scope a token needs for a tool, as the authorization server's scope parameter asks for it. */
const SCOPE_OF: Record<Exclude<ToolNeed, 'none'>, string> = { read: 'read', write: 'read write' };

/**
 * What a tool needs, for clients and models reading tools/list: `securitySchemes` in `_meta` (the shape
 * OpenAI's Apps SDK reads: noauth, or oauth2 with its scopes) and a sentence at the end of the description.
 */
function needsNotice(needs: ToolNeed): { sentence: string; meta: Record<string, unknown> } {
  if (needs === 'none') return { sentence: '', meta: { securitySchemes: [{ type: 'noauth' }] } };
  const scope = SCOPE_OF[needs];
  return {
    sentence:
      ` Needs sign-in: an OAuth access token for this MCP server with scope "${scope}" (${needs === 'write' ? 'it acts as you' : 'your own data'}). ` +
      `Called without one it answers HTTP ${needs === 'write' ? '401 (or 403 insufficient_scope with a read-only token)' : '401'} and the WWW-Authenticate challenge your client's OAuth sign-in follows.`,
    meta: { securitySchemes: [{ type: 'oauth2', scopes: scope.split(' ') }] },
  };
}

/**
 * Registers every tool, whoever calls: a client lists them all (and an agent sees what it could do once
 * signed in); the endpoint answers a call the caller may not make with the HTTP challenge (index.ts).
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
