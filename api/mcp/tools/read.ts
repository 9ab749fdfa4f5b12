// The tools that read one thing or a list, for everyone: get_item, latest_briefing, list_recent and
// list_comments; and, with a token, the person's own notes (list_notes, read_note). All but list_recent
// (which reads the content snapshot) go through the HTTP route they mirror.
import { z } from 'zod';
import { essayItem } from '../../../src/lib/read/essays.ts';
import { videoItem } from '../../../src/lib/read/videos.ts';
import { digestItem } from '../../../src/lib/read/digests.ts';
import { absolutise, apiError, structured, toolAnswer } from '../api.ts';
import { commentPage, KIND } from './links.ts';
import { Comment, count, entityId, entityType, Item, itemId, itemType, Link, noteSlug } from './schemas.ts';
import { READ, type ToolDef } from './shared.ts';

/** The `get_item` tool: one item in full as its JSON document (a post with its essay). */
export const getItemTool: ToolDef = {
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
};

/** The `latest_briefing` tool: the one-call briefing, through GET /api/latest. */
export const latestBriefingTool: ToolDef = {
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
};

/** The `list_recent` tool: the newest videos, essays and digests, read from the content snapshot. */
export const listRecentTool: ToolDef = {
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
};

/** The `list_comments` tool: the comments on one item, through GET /api/comments. */
export const listCommentsTool: ToolDef = {
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
};

// ---- the person's own notes (a token with read) ----

/** The `list_notes` tool: the person's notes (a token with read). */
export const listNotesTool: ToolDef = {
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
};

/** The `read_note` tool: one of the person's notes in full, with its blob id (a token with read). */
export const readNoteTool: ToolDef = {
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
};
