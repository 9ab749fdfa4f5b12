// Who may call a route, checked before its request is validated: FastAPI resolves the identity dependency
// before the body, so a call that needs a user answers 401 (with WWW-Authenticate) before any 422, and a
// caller fixes its credentials first. The access kind of each route is in api/openapi/catalogue.ts.
import type { Context } from 'hono';
import { requireAccountAccess, requireRole, requireSession, requireUser } from '../auth/middleware.ts';
import type { Access } from '../openapi/catalogue.ts';

/** The identity check of each access kind that needs one (the same checks the handlers make). */
export const IDENTITY_CHECKS: Partial<Record<Access, (c: Context) => void>> = {
  user: (c) => void requireUser(c),
  session: (c) => void requireSession(c),
  account: (c) => void requireAccountAccess(c),
  moderator: (c) => void requireRole(c, 'moderator'),
  admin: (c) => void requireRole(c, 'admin'),
};
