// HTTP for personal knowledge: the connection's status, disconnect and sync, notes (list, read, write with
// optimistic concurrency, delete) and history, plus the connect flow from connect.ts. Each route checks who
// may call it once, and host failures become clear answers that say what was kept.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { addRoute, RequestValidationError } from '../validation/route.ts';
import { limitParam, queryBool } from '../validation/index.ts';
import { ErrorDetail } from '../openapi/schemas.ts';
import { registerConnectRoutes } from './connect.ts';
import { requireAccountAccess, requireUser, requireWriter } from '../auth/middleware.ts';
import { enforceRate } from '../rate-limit/index.ts';
import { HostUnavailable, NoteConflict, type Precondition } from './notes.ts';
import { slugSchema } from './slug.ts';
import type { PkRouteDeps } from './deps.ts';
import { E, HistoryItem, HostErrors, json, NoteList, NoteOut, NotePutBody, NoteWriteOut, slugParams, StatusOut } from './schemas.ts';



const HOST_MESSAGES: Record<string, string> = {
  unauthorized: 'The note host refused our access token (it was revoked or has expired): reconnect at GET /api/auth/vcs/begin.',
  forbidden: 'The note host denied access to the repository (a permission or scope is missing): reconnect and grant it.',
  not_found: 'The repository was not found at the note host.',
  unreachable: 'The note host is unreachable right now.',
  rejected: 'The note host rejected the push',
  conflict: 'The repository kept changing on the note host; try again.',
  failed: 'The note host failed',
};

function hostFailure(c: Context, err: HostUnavailable): Response {
  const kind = err.hostError.kind;
  const base = HOST_MESSAGES[kind] ?? HOST_MESSAGES.failed;
  let detail = base.endsWith('.') ? base : `${base}: ${err.hostError.message}.`;
  if (err.saved) {
    detail += ` Your change is saved on this server (commit ${err.saved.commit.slice(0, 12)}) and is pushed by the next write or POST /api/me/personal-knowledge/sync.`;
  }
  const status = kind === 'unreachable' ? 503 : kind === 'conflict' ? 409 : 502;
  return c.json({ detail, host_error: kind, saved: err.saved ? { ...err.saved, pushed: false } : null }, status, status === 503 ? { 'Retry-After': '30' } : {});
}

/** What to send next after a refused note write: the blob to base it on. */
function conflictHint(err: NoteConflict): string {
  const slug = err.yours.slug;
  if (err.status === 428) {
    const blob = err.current?.blob ?? '<its blob>';
    return `The note ${slug} already exists: read it (GET /api/me/personal-knowledge/notes/${slug}), merge, then PUT again with "base_blob": "${blob}" in the body (or the header If-Match: "${blob}").`;
  }
  return err.current
    ? `The note changed since the version you based this on: merge your text with current.content and PUT again with "base_blob": "${err.current.blob}".`
    : `The note is gone, or exists when you said it should not: PUT again with "base_blob": null to create it, or read it first.`;
}

/** Notes answers: conflicts with both versions, host failures with what was kept. */
async function guarded(c: Context, fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof NoteConflict) return c.json({ detail: err.message, hint: conflictHint(err), current: err.current, yours: err.yours }, err.status);
    if (err instanceof HostUnavailable) return hostFailure(c, err);
    throw err;
  }
}

/** If-Match / If-None-Match as a precondition; a body's base_blob, when present, wins. */
function preconditionOf(c: Context, baseBlob: string | null | undefined): Precondition {
  if (baseBlob === null) return { kind: 'absent' };
  if (typeof baseBlob === 'string') return { kind: 'blob', blob: baseBlob };
  const ifNoneMatch = c.req.header('if-none-match')?.trim();
  if (ifNoneMatch === '*') return { kind: 'absent' };
  const ifMatch = c.req.header('if-match')?.trim();
  if (ifMatch === undefined || ifMatch === '') return { kind: 'none' };
  if (ifMatch === '*') return { kind: 'exists' };
  const m = /^"?([0-9a-f]{40})"?$/.exec(ifMatch);
  if (!m) {
    throw new RequestValidationError([{ type: 'value_error', loc: ['header', 'if-match'], msg: 'Value error, expected the note\'s ETag ("<blob id>") or *', input: ifMatch }]);
  }
  return { kind: 'blob', blob: m[1] };
}


/** Registers the personal-knowledge routes: connecting, the connection, the notes and their history. */
export function registerPkRoutes(app: OpenAPIHono, deps: PkRouteDeps): void {
  registerConnectRoutes(app, deps);
  registerConnectionRoutes(app, deps);
  registerNoteReadRoutes(app, deps);
  registerNoteWriteRoutes(app, deps);
  registerHistoryRoute(app, deps);
}

/** The connection: its status, disconnecting, and a sync on demand. */
function registerConnectionRoutes(app: OpenAPIHono, deps: PkRouteDeps): void {
  const { notes } = deps;
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/me/personal-knowledge',
      tags: ['personal-knowledge'],
      summary: 'Your note repository connection: host, repository, since, last sync, last error',
      responses: { 200: json(StatusOut, 'Status'), ...E },
    }),
    async (c) => {
      const p = requireUser(c);
      return c.json(await notes.status(p.user.id));
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'delete',
      path: '/api/me/personal-knowledge',
      tags: ['personal-knowledge'],
      summary: 'Disconnect: erase the token and the local clone (pending changes are pushed first when the host allows)',
      request: {
        query: z.object({
          discard_unpushed: queryBool(false, 'Also erase changes saved here that the host refused so far (otherwise 409 while there are any).'),
        }),
      },
      responses: { 204: { description: 'Disconnected' }, 409: json(ErrorDetail, 'Changes not yet at the host would be lost'), ...E },
    }),
    async (c, { query }) => {
      const p = requireAccountAccess(c);
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      await notes.disconnect(p.user.id, { discardUnpushed: query.discard_unpushed });
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/me/personal-knowledge/sync',
      tags: ['personal-knowledge'],
      summary: 'Push what is saved here but not yet at the host, and fetch what is new there',
      responses: { 200: json(StatusOut, 'Status after the sync'), ...E, 502: HostErrors[502], 503: HostErrors[503] },
    }),
    async (c) => {
      const p = await requireWriter(c, deps.writeLimiter);
      return guarded(c, async () => {
        await notes.sync(p.user.id);
        return c.json(await notes.status(p.user.id));
      });
    },
  );

}

/** The notes: the list, and one note with its blob id as ETag. */
function registerNoteReadRoutes(app: OpenAPIHono, deps: PkRouteDeps): void {
  const { notes } = deps;
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/me/personal-knowledge/notes',
      tags: ['personal-knowledge'],
      summary: 'Your notes: slug, title, last change',
      responses: { 200: json(NoteList, 'Notes, most recently changed first'), ...E },
    }),
    async (c) => {
      const p = requireUser(c);
      return c.json(await notes.list(p.user.id));
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/me/personal-knowledge/notes/{slug}',
      tags: ['personal-knowledge'],
      summary: 'One note, with its blob id as ETag',
      request: { params: slugParams },
      responses: { 200: json(NoteOut, 'The note'), ...E },
    }),
    async (c, { params }) => {
      const p = requireUser(c);
      const note = await notes.read(p.user.id, params.slug);
      return c.json(note, 200, { ETag: `"${note.blob}"`, 'Cache-Control': 'private, no-store' });
    },
  );

}

/** Writing a note and deleting one, each one commit against the version the client read. */
function registerNoteWriteRoutes(app: OpenAPIHono, deps: PkRouteDeps): void {
  const { notes } = deps;
  addRoute(
    app,
    createRoute({
      method: 'put',
      path: '/api/me/personal-knowledge/notes/{slug}',
      tags: ['personal-knowledge'],
      summary: 'Create or update a note in one commit',
      description:
        'Send the blob id you read as `If-Match: "<blob>"` or `base_blob` (null or `If-None-Match: *` to create only). ' +
        'When the note changed on the host since, nothing is written: 409 with both versions. Updating an existing note without a blob id is 428.',
      request: {
        params: slugParams,
        headers: z.object({ 'if-match': z.string().optional(), 'if-none-match': z.string().optional() }),
        body: { content: { 'application/json': { schema: NotePutBody } }, required: true },
      },
      responses: { 200: json(NoteWriteOut, 'Saved (and pushed)'), ...E, ...HostErrors },
    }),
    async (c, { params, body }) => {
      const p = await requireWriter(c, deps.writeLimiter);
      const pre = preconditionOf(c, body.base_blob);
      return guarded(c, async () => {
        const r = await notes.write(p.user.id, p.user, params.slug, body.content, pre, body.message);
        return c.json(r, 200, r.blob ? { ETag: `"${r.blob}"` } : {});
      });
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'delete',
      path: '/api/me/personal-knowledge/notes/{slug}',
      tags: ['personal-knowledge'],
      summary: 'Delete a note in one commit (If-Match optional: 409 when it changed since)',
      request: { params: slugParams, headers: z.object({ 'if-match': z.string().optional() }) },
      responses: { 200: json(NoteWriteOut, 'Deleted (and pushed)'), ...E, ...HostErrors },
    }),
    async (c, { params }) => {
      const p = await requireWriter(c, deps.writeLimiter);
      const pre = preconditionOf(c, undefined);
      return guarded(c, async () => c.json(await notes.remove(p.user.id, p.user, params.slug, pre.kind === 'absent' ? { kind: 'none' } : pre)));
    },
  );

}

/** The commits that touched the notes. */
function registerHistoryRoute(app: OpenAPIHono, deps: PkRouteDeps): void {
  const { notes } = deps;
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/me/personal-knowledge/history',
      tags: ['personal-knowledge'],
      summary: 'Commits that touched your notes, newest first; `slug` scopes to one note',
      request: { query: z.object({ limit: limitParam(100, 20), slug: slugSchema.optional() }) },
      responses: { 200: json(z.array(HistoryItem), 'One item per note a commit changed'), ...E },
    }),
    async (c, { query }) => {
      const p = requireUser(c);
      return c.json(await notes.history(p.user.id, { limit: query.limit, slug: query.slug }));
    },
  );
}
