// Errors other than validation: `{"detail": "…", "hint": "…"}` with the status the case calls for, in one
// place. Every 4xx carries a `hint` saying what to do next (api/errors/hints.ts).
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { RequestValidationError } from '../validation/error.ts';
import { nulDetail, TextWithNul } from '../validation/nul.ts';
import { InvalidRequest, oauthErrorResponse } from '../oauth/errors.ts';
import { databaseUnavailable, RETRY_AFTER_SECONDS } from '../../src/lib/data/db/unavailable.ts';
import { defaultHint, JSON_BODY_HINT, NOT_FOUND_PATH_HINT, validationHint } from './hints.ts';
import { isOAuthEndpoint } from './body-size.ts';

export { scopeHint, SIGN_IN_HINT } from './hints.ts';

/** An error a handler throws to answer `{"detail": message, "hint"}` with `status`. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly headers: Record<string, string>;
  /** What the client should do next; a default by status when absent. */
  readonly hint?: string;
  constructor(status: ContentfulStatusCode, detail: string, headers: Record<string, string> = {}, hint?: string) {
    super(detail);
    this.status = status;
    this.headers = headers;
    this.hint = hint;
  }
}

export const notFound = (what: string): ApiError => new ApiError(404, `${what} not found`);

/** The `{"detail"}` body of an error, with its hint for a 4xx. */
export function errorBody(status: number, message: string, headers: Record<string, string> = {}, hint?: string): { detail: string; hint?: string } {
  const h = hint ?? defaultHint(status, headers);
  return h ? { detail: message, hint: h } : { detail: message };
}

export function detail(c: Context, status: ContentfulStatusCode, message: string, headers: Record<string, string> = {}, hint?: string) {
  return c.json(errorBody(status, message, headers, hint), status, headers);
}

/** The same unexpected error is logged with its stack once, then counted: a flood of one bad request must not flood the log. */
const REPEAT_WINDOW_MS = 60_000;

/**
 * Turns ApiError and Hono's HTTPException into `{"detail"}` bodies; anything else is logged (without the
 * request body or its path; its stack once per error and route pattern, repeats counted per minute) and
 * answered 500 with no internals.
 * @example app.onError(errorHandler())
 */
export function errorHandler(log: (msg: string) => void = console.error): ErrorHandler {
  const seen = new Map<string, { at: number; repeats: number }>();
  const report = (where: string, err: unknown) => {
    const message = err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(err);
    const key = `${where} ${message}`;
    const now = Date.now();
    const last = seen.get(key);
    if (!last) {
      if (seen.size > 1000) seen.clear();
      seen.set(key, { at: now, repeats: 0 });
      log(`unhandled error on ${where}: ${(err as Error)?.stack ?? message}`);
    } else if (now - last.at < REPEAT_WINDOW_MS) {
      last.repeats++;
    } else {
      log(`unhandled error on ${where}: ${message}${last.repeats ? ` (and ${last.repeats} more since ${new Date(last.at).toISOString()})` : ''}`);
      seen.set(key, { at: now, repeats: 0 });
    }
  };
  return (err, c) => {
    if (err instanceof RequestValidationError) return c.json({ detail: err.detail, hint: err.hint ?? validationHint(err.detail) }, 422);
    if (err instanceof ApiError) return detail(c, err.status, err.message, err.headers, err.hint);
    if (err instanceof TextWithNul) {
      // An input no edge check named reached the database with a NUL character (api/validation/nul.ts).
      if (isOAuthEndpoint(c.req.path)) return oauthErrorResponse(new InvalidRequest(err.message), new URL(c.req.url).origin);
      return c.json({ detail: [nulDetail(['body'], null)], hint: 'Remove the NUL characters (\\u0000) from the text you send.' }, 422);
    }
    if (err instanceof HTTPException) {
      const status = err.status as ContentfulStatusCode;
      // Hono's JSON body parser throws 400 on malformed JSON; FastAPI reports that as 422 json_invalid.
      if (status === 400 && /JSON/i.test(err.message)) {
        return c.json({ detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: null }], hint: JSON_BODY_HINT }, 422);
      }
      return detail(c, status, err.message || 'Request failed');
    }
    const unavailable = databaseUnavailable(err);
    if (unavailable) {
      // An outage, not a bug: logged once a minute (not per request), answered 503 so clients retry.
      report('database', err);
      const headers = { 'Retry-After': String(RETRY_AFTER_SECONDS) };
      const message = `The database is unavailable for a moment (${unavailable}); try again`;
      // The OAuth endpoints answer in RFC 6749's form (temporarily_unavailable, §4.1.2.1).
      if (isOAuthEndpoint(c.req.path)) return c.json({ error: 'temporarily_unavailable', error_description: message }, 503, { ...headers, 'Cache-Control': 'no-store' });
      return detail(c, 503, message, headers, `Retry after ${RETRY_AFTER_SECONDS} s; reads of published content (static pages, /api/latest) are still served.`);
    }
    // By route, not by path: a flood of one bad request over many paths (/api/users/<anything>) is one entry.
    report(`${c.req.method} ${c.req.routePath}`, err);
    return detail(c, 500, 'Internal server error');
  };
}

/** @example app.notFound(notFoundHandler) */
export const notFoundHandler: NotFoundHandler = (c) => detail(c, 404, 'Not found', {}, NOT_FOUND_PATH_HINT);
