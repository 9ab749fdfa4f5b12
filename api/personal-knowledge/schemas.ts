// The request and response schemas of the personal-knowledge routes: they validate at the edge and
// document the routes in /openapi.json.
import { z } from '@hono/zod-openapi';
import { ErrorDetail, HTTPValidationError, jsonContent as json } from '../openapi/schemas.ts';
import { slugSchema } from './slug.ts';

export { json };
export const E = {
  401: json(ErrorDetail, 'Not authenticated'),
  404: json(ErrorDetail, 'Not connected, or no such note'),
  422: json(HTTPValidationError, 'Validation error'),
  429: json(ErrorDetail, 'Too many requests'),
};

const ErrorOut = z.object({ kind: z.string().nullable(), message: z.string(), at: z.string().nullable() });
export const StatusOut = z
  .object({
    connected: z.boolean(),
    status: z.enum(['not_connected', 'ok', 'error', 'reauthorization_required']),
    mode: z.enum(['remote', 'embedded']),
    host: z.string(),
    repository: z.string().nullable(),
    branch: z.string().nullable(),
    since: z.string().nullable(),
    last_sync: z.string().nullable(),
    last_error: ErrorOut.nullable(),
    unpushed_commits: z.number().int(),
  })
  .openapi('PersonalKnowledgeStatus');
export const BeginOut = z
  .object({ authorize_url: z.string(), state: z.string(), mode: z.enum(['remote', 'embedded']), host: z.string(), expires_in: z.number().int() })
  .openapi('PersonalKnowledgeBegin');
const Freshness = { stale: z.boolean().openapi({ description: 'True when the host could not be reached and this is the copy on this server.' }), sync_error: z.string().nullable() };
export const NoteOut = z
  .object({
    slug: z.string(),
    title: z.string(),
    content: z.string(),
    blob: z.string().openapi({ description: 'Git blob id of the content; also the ETag.' }),
    updated: z.string().nullable(),
    commit: z.string().nullable(),
    audit_subject: z.string(),
    ...Freshness,
  })
  .openapi('PersonalKnowledgeNote');
const NoteSummary = z.object({ slug: z.string(), title: z.string(), updated: z.string().nullable(), blob: z.string() });
export const NoteList = z.object({ items: z.array(NoteSummary), total: z.number().int(), last_sync: z.string().nullable(), ...Freshness }).openapi('PersonalKnowledgeNoteList');
export const NotePutBody = z
  .strictObject({
    content: z.string().max(200_000).openapi({ description: 'Markdown; the note is notes/<slug>.md.' }),
    base_blob: z
      .string()
      .regex(/^[0-9a-f]{40}$/)
      .nullable()
      .optional()
      .openapi({ description: 'The blob id you read (null: the note must not exist yet). Takes precedence over If-Match / If-None-Match.' }),
    message: z.string().trim().max(500).optional().openapi({ description: 'Added to the commit message.' }),
  })
  .openapi('PersonalKnowledgeNotePut');
export const NoteWriteOut = z
  .object({ slug: z.string(), title: z.string().nullable(), blob: z.string().nullable(), commit: z.string().nullable(), action: z.enum(['create', 'update', 'delete', 'unchanged']), pushed: z.boolean() })
  .openapi('PersonalKnowledgeNoteWrite');
const ConflictOut = z
  .object({
    detail: z.string(),
    hint: z.string().openapi({ description: 'What to send next: the blob id to base the write on.' }),
    current: NoteOut.omit({ stale: true, sync_error: true }).nullable(),
    yours: z.object({ slug: z.string(), base_blob: z.string().nullable(), content: z.string().nullable(), blob: z.string().nullable() }),
  })
  .openapi('PersonalKnowledgeConflict');
const HostFailureOut = z
  .object({ detail: z.string(), host_error: z.string(), saved: z.object({ commit: z.string(), blob: z.string().nullable(), pushed: z.boolean() }).nullable() })
  .openapi('PersonalKnowledgeHostError');
export const HistoryItem = z
  .object({
    commit: z.string(),
    slug: z.string(),
    action: z.enum(['create', 'update', 'delete']),
    message: z.string(),
    author: z.object({ name: z.string(), email: z.string() }),
    time: z.string(),
    blob: z.string().nullable(),
  })
  .openapi('PersonalKnowledgeHistoryItem');
export const HostErrors = {
  409: json(ConflictOut, 'The note changed since you read it: both versions'),
  428: json(ConflictOut, 'The note exists: send the blob id you read'),
  502: json(HostFailureOut, 'The host refused (token revoked, push rejected); the change stays saved here'),
  503: json(HostFailureOut, 'The host is unreachable; the change stays saved here'),
};
export const slugParams = z.object({ slug: slugSchema });
