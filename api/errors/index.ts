// Errors other than validation: `{"detail": "…"}` with the status the case calls for, in one place.
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { RequestValidationError } from '../validation/route.ts';

/** An error a handler throws to answer `{"detail": message}` with `status`. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly headers: Record<string, string>;
  constructor(status: ContentfulStatusCode, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.status = status;
    this.headers = headers;
  }
}

export const notFound = (what: string): ApiError => new ApiError(404, `${what} not found`);

export function detail(c: Context, status: ContentfulStatusCode, message: string, headers: Record<string, string> = {}) {
  return c.json({ detail: message }, status, headers);
}

/**
 * Turns ApiError and Hono's HTTPException into `{"detail"}` bodies; anything else is logged (without the
 * request body) and answered 500 with no internals.
 * @example app.onError(errorHandler())
 */
export function errorHandler(log: (msg: string) => void = console.error): ErrorHandler {
  return (err, c) => {
    if (err instanceof RequestValidationError) return c.json({ detail: err.detail }, 422);
    if (err instanceof ApiError) return detail(c, err.status, err.message, err.headers);
    if (err instanceof HTTPException) {
      const status = err.status as ContentfulStatusCode;
      // Hono's JSON body parser throws 400 on malformed JSON; FastAPI reports that as 422 json_invalid.
      if (status === 400 && /JSON/i.test(err.message)) {
        return c.json({ detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: null }] }, 422);
      }
      return detail(c, status, err.message || 'Request failed');
    }
    log(`unhandled error on ${c.req.method} ${new URL(c.req.url).pathname}: ${(err as Error).stack ?? err}`);
    return detail(c, 500, 'Internal server error');
  };
}

/** @example app.notFound(notFoundHandler) */
export const notFoundHandler: NotFoundHandler = (c) => detail(c, 404, 'Not found');
