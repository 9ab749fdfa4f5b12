// Notification endpoints: only the owner sees or changes them; another user's id is a 404, not a 403,
// so ids cannot be probed.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { addRoute } from '../validation/route.ts';
import { limitParam, offsetParam, queryBool } from '../validation/index.ts';
import { ApiError } from '../errors/index.ts';
import { ErrorDetail, HTTPValidationError, jsonContent as json } from '../openapi/schemas.ts';
import { requireUser } from '../auth/middleware.ts';
import type { Notifications } from '../../src/lib/data/notifications/index.ts';

const NotificationOut = z
  .object({
    id: z.string().uuid(),
    kind: z.string(),
    category: z.enum(['mention', 'system', 'activity']),
    title: z.string(),
    body: z.string(),
    link: z.string().nullable(),
    actor_id: z.string().nullable(),
    subject_type: z.string().nullable(),
    subject_id: z.string().nullable(),
    created_at: z.string(),
    read: z.boolean(),
    dismissed: z.boolean(),
  })
  .openapi('NotificationOut');
const NotificationList = z
  .object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), items: z.array(NotificationOut) })
  .openapi('NotificationList');
const UnreadOut = z.object({ unread: z.number().int() }).openapi('UnreadOut');
const errors = { 401: json(ErrorDetail, 'Not authenticated'), 422: json(HTTPValidationError, 'Validation error') };
const idParam = z.object({ notification_id: z.uuid() });

export function registerNotificationRoutes(app: OpenAPIHono, notifications: Notifications) {
  const noStore = { 'Cache-Control': 'no-store' };
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/notifications',
      tags: ['notifications'],
      summary: 'Your notifications, newest first',
      request: {
        query: z.object({
          limit: limitParam(200, 50),
          offset: offsetParam(),
          filter: z.enum(['all', 'mentions', 'system', 'unread', '']).default('all').openapi({ description: 'all, mentions, system or unread (empty = all)' }),
          include_dismissed: queryBool(false, 'Include dismissed notifications.'),
        }),
      },
      responses: { 200: json(NotificationList, 'Notifications'), ...errors },
    }),
    async (c, { query }) => {
      const p = requireUser(c);
      const page = await notifications.list(p.user.id, { filter: query.filter || 'all', includeDismissed: query.include_dismissed, limit: query.limit, offset: query.offset });
      return c.json(
        { ...page, items: page.items.map(({ read_at, dismissed_at, ...n }) => ({ ...n, read: read_at !== null, dismissed: dismissed_at !== null })) },
        200,
        noStore,
      );
    },
  );
  addRoute(
    app,
    createRoute({ method: 'get', path: '/api/notifications/unread', tags: ['notifications'], summary: 'How many unread notifications you have', responses: { 200: json(UnreadOut, 'Count'), ...errors } }),
    async (c) => c.json({ unread: await notifications.unread(requireUser(c).user.id) }, 200, noStore),
  );
  addRoute(
    app,
    createRoute({ method: 'post', path: '/api/notifications/mark-all-read', tags: ['notifications'], summary: 'Mark every notification read', responses: { 200: json(z.object({ marked: z.number().int() }), 'Done'), ...errors } }),
    async (c) => c.json({ marked: await notifications.markAllRead(requireUser(c).user.id) }, 200, noStore),
  );
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/notifications/{notification_id}/read',
      tags: ['notifications'],
      summary: 'Mark one notification read',
      request: { params: idParam },
      responses: { 200: json(z.object({ id: z.string(), read: z.boolean() }), 'Done'), 404: json(ErrorDetail, 'Not yours or unknown'), ...errors },
    }),
    async (c, { params }) => {
      if (!(await notifications.markRead(requireUser(c).user.id, params.notification_id))) throw new ApiError(404, 'Notification not found');
      return c.json({ id: params.notification_id, read: true }, 200, noStore);
    },
  );
  addRoute(
    app,
    createRoute({
      method: 'delete',
      path: '/api/notifications/{notification_id}',
      tags: ['notifications'],
      summary: 'Dismiss a notification',
      request: { params: idParam },
      responses: { 204: { description: 'Dismissed' }, 404: json(ErrorDetail, 'Not yours or unknown'), ...errors },
    }),
    async (c, { params }) => {
      if (!(await notifications.dismiss(requireUser(c).user.id, params.notification_id))) throw new ApiError(404, 'Notification not found');
      return c.body(null, 204);
    },
  );
}
