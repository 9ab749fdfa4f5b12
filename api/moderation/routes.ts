// The moderators' view across items: GET /api/moderation/comments lists hidden comments wherever they
// are (GET /api/comments needs one item), newest decision first, for the moderation queue.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Db } from '../../src/lib/data/db/index.ts';
import type { Identity } from '../../src/lib/data/identity/index.ts';
import { requireRole } from '../auth/middleware.ts';
import { addRoute } from '../validation/route.ts';
import { limitParam, offsetParam } from '../validation/index.ts';
import { ErrorDetail, HTTPValidationError } from '../openapi/schemas.ts';
import { ENTITY_TYPES, entityLink, type EntityType } from '../../src/lib/data/comments/entities.ts';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const Person = z.object({ id: z.string(), display_name: z.string(), handle: z.string() }).nullable();
const HiddenComment = z
  .object({
    comment_id: z.string(),
    entity_type: z.enum(ENTITY_TYPES),
    entity_id: z.string(),
    entity_url: z.string(),
    parent_id: z.string().nullable(),
    author: Person,
    hidden_by: Person,
    body: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('HiddenComment');
const HiddenCommentList = z
  .object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), items: z.array(HiddenComment) })
  .openapi('HiddenCommentList');

interface Row {
  id: string;
  entity_type: EntityType;
  entity_id: string;
  parent_id: string | null;
  author_id: string;
  hidden_by: string | null;
  body: string;
  created_at: string;
  updated_at: string;
}

export function registerModerationRoutes(app: OpenAPIHono, deps: { db: Db; identity: Identity }): void {
  const person = async (id: string | null) => {
    const u = id ? await deps.identity.getUser(id) : undefined;
    return u ? { id: u.id, display_name: u.display_name, handle: u.handle } : null;
  };
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/moderation/comments',
      tags: ['moderation'],
      summary: 'Hidden comments across all items, most recently changed first (moderators)',
      request: { query: z.object({ limit: limitParam(200, 50), offset: offsetParam() }) },
      responses: {
        200: json(HiddenCommentList, 'Hidden comments'),
        401: json(ErrorDetail, 'Not authenticated'),
        403: json(ErrorDetail, 'Not a moderator'),
        422: json(HTTPValidationError, 'Validation error'),
      },
    }),
    async (c, { query }) => {
      requireRole(c, 'moderator');
      const where = 'hidden = 1 AND deleted_at IS NULL';
      const [total, rows] = await Promise.all([
        deps.db.prepare<[], number>(`SELECT COUNT(*) FROM comments WHERE ${where}`).pluck().get(),
        deps.db
          .prepare<[number, number], Row>(`SELECT id, entity_type, entity_id, parent_id, author_id, hidden_by, body, created_at, updated_at FROM comments WHERE ${where} ORDER BY updated_at DESC, id LIMIT ? OFFSET ?`)
          .all(query.limit, query.offset),
      ]);
      // Each person looked up once per page, however many of its comments they wrote or hid.
      const people = new Map<string, ReturnType<typeof person>>();
      const once = (id: string | null) => (id === null ? null : people.get(id) ?? people.set(id, person(id)).get(id)!);
      const items = await Promise.all(rows.map(async (r) => ({
        comment_id: r.id,
        entity_type: r.entity_type,
        entity_id: r.entity_id,
        entity_url: entityLink(r.entity_type, r.entity_id).replace(/^\/api\/posts\//, '/posts/'),
        parent_id: r.parent_id,
        author: await once(r.author_id),
        hidden_by: await once(r.hidden_by),
        body: r.body,
        created_at: r.created_at,
        updated_at: r.updated_at,
      })));
      return c.json({ total, limit: query.limit, offset: query.offset, items }, 200, { 'Cache-Control': 'no-store' });
    },
  );
}
