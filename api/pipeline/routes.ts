// POST /api/admin/content-changed: an admin (a git hook, CI) asks the content pipeline to publish what
// changed in the content folder, for deployments where content arrives by other means than the folder the
// scheduler watches. The request is an audit event (pipeline/lib/content-requests.ts), so it and its record
// are one write, and the scheduler reads it through the database whichever process or instance it runs in.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { requireRole } from '../auth/middleware.ts';
import { enforceRate } from '../rate-limit/index.ts';
import { addRoute } from '../validation/route.ts';
import { ErrorDetail, jsonContent } from '../openapi/schemas.ts';
import { CONTENT_CHANGED_EVENT, CONTENT_CHANGED_JOBS } from '../../pipeline/lib/content-requests.ts';
import type { CommunityDeps } from '../deps.ts';

const ContentChangedOut = z
  .object({
    request_id: z.number().int().openapi({ description: 'The request: the seq of its audit event (kind pipeline.content_changed).' }),
    requested_at: z.string().openapi({ description: 'When it was made (ISO 8601).' }),
    queued: z.array(z.string()).openapi({ description: 'The jobs it runs, in order.' }),
    detail: z.string(),
  })
  .openapi('ContentChangedOut');

export function registerPipelineRoutes(app: OpenAPIHono, deps: Pick<CommunityDeps, 'db' | 'audit' | 'writeLimiter'>): void {
  addRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/admin/content-changed',
      tags: ['pipeline'],
      summary: 'Publish changes to the content folder now (admins): update-index, then rebuild-site',
      responses: {
        202: jsonContent(ContentChangedOut, 'Queued: the scheduler runs it within a few seconds, after any run under way'),
        401: jsonContent(ErrorDetail, 'Not authenticated'),
        403: jsonContent(ErrorDetail, 'Not an admin (an OAuth token also needs the admin scope)'),
        429: jsonContent(ErrorDetail, 'Too many requests'),
      },
    }),
    async (c) => {
      const p = requireRole(c, 'admin');
      await enforceRate(deps.writeLimiter, `user:${p.user.id}`);
      const requestedAt = new Date().toISOString();
      const seq = await deps.db.transaction(() =>
        deps.audit.append({ kind: CONTENT_CHANGED_EVENT, subjectType: 'pipeline', subjectId: 'content', actor: { userId: p.user.id }, data: { jobs: [...CONTENT_CHANGED_JOBS] } }),
      );
      return c.json(
        {
          request_id: seq,
          requested_at: requestedAt,
          queued: [...CONTENT_CHANGED_JOBS],
          detail: 'The content pipeline runs update-index, then rebuild-site (after any run under way); npm run pipeline -- status shows the outcome.',
        },
        202,
        { 'Cache-Control': 'no-store' },
      );
    },
  );
}
