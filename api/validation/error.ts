// The error a request that fails its schemas throws: api/errors answers it with FastAPI's 422 body. A module
// of its own so the error handler (api/errors) need not import the route definitions (route.ts), which reach
// it back through the identity checks (access.ts, api/auth/middleware.ts).
import type { ValidationDetail } from './index.ts';

/** Thrown when a request fails its schemas; the error handler answers 422 with `detail`. */
export class RequestValidationError extends Error {
  readonly detail: ValidationDetail[];
  /** What to do about it, when the thrower knows better than the generic hint from `detail`. */
  readonly hint?: string;
  constructor(detail: ValidationDetail[], hint?: string) {
    super('request validation failed');
    this.detail = detail;
    this.hint = hint;
  }
}
