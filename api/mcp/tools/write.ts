// The tools that act, with the `write` scope: comment, react, flag a proposal, draft a post, edit and
// submit it, write a note. Each goes through the HTTP route it mirrors, so the route's permission checks,
// rate limits and audit events apply; the annotations say which can destroy and which are idempotent.
import { z } from 'zod';
import { REACTION_KINDS } from '../../../src/lib/data/comments/store.ts';
import { COMMENT_MAX } from '../../comments/routes.ts';
import { absolutise, apiError, structured, toolAnswer } from '../api.ts';
import { commentPage, postOut } from './links.ts';
import { Comment, entityId, entityType, noteSlug, Post } from './schemas.ts';
import { ACT, type ToolDef } from './shared.ts';

/** The `comment` tool: post a comment or reply as the signed-in person (write). */
export const commentTool: ToolDef = {
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
};

/** The `react` tool: add or take back a reaction to a comment (write). */
export const reactTool: ToolDef = {
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
};

/** The `flag_proposal` tool: object to a pending proposal against the knowledge canon (write). */
export const flagProposalTool: ToolDef = {
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
};

/** The `draft_post` tool: start a draft post with its first essay (write). */
export const draftPostTool: ToolDef = {
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
};

/** The `edit_post_essay` tool: replace a post's essay, guarded by its etag (write). */
export const editPostEssayTool: ToolDef = {
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
};

/** The `submit_post` tool: submit a draft post for publishing (write). */
export const submitPostTool: ToolDef = {
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
};

/** The `write_note` tool: create or replace one of the person's notes in one commit (write). */
export const writeNoteTool: ToolDef = {
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
};
