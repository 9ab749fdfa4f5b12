// Route definition with validation at the edge: one call documents a route in /openapi.json and installs
// its handler behind the caller's identity check (from the route's access in api/openapi/catalogue.ts, so
// 401 comes before 422) and a synchronous zod check of path, query and JSON body. All failures of a request
// are reported together in FastAPI's 422 body. (OpenAPIHono's own validators do the same work
// asynchronously, one middleware per part, at several times the cost on hot read paths.)
import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { z } from 'zod';
import { validationDetail, type ValidationDetail } from './index.ts';
import { IDENTITY_CHECKS } from './access.ts';
import { nulDetail, nulPath } from './nul.ts';
import { catalogueEntry } from '../openapi/catalogue.ts';
import { ValidationErrorResponse } from '../openapi/schemas.ts';
import { RequestValidationError } from './error.ts';

// The route modules take the validation error from here, with addRoute.
export { RequestValidationError };

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;
type BodySchema<R> = R extends { body: { content: { 'application/json': { schema: infer S } } } } ? S : undefined;

export interface Input<R extends RouteConfig['request']> {
  query: Out<NonNullable<R> extends { query?: infer Q } ? Q : undefined>;
  params: Out<NonNullable<R> extends { params?: infer P } ? P : undefined>;
  body: Out<BodySchema<NonNullable<R>>>;
}

const toHonoPath = (p: string) => p.replace(/\{([^}]+)\}/g, ':$1');

function check(schema: Schema | undefined, raw: unknown, target: string, errors: ValidationDetail[]): unknown {
  if (!schema) return {};
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  errors.push(...validationDetail(r.error, target, raw));
  return undefined;
}

/** Deepest nesting of arrays and objects a JSON body may have (ours need a handful of levels). */
export const MAX_JSON_DEPTH = 64;

/** Whether a parsed JSON value nests deeper than `max` levels, walked without recursion. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * @example
 * addRoute(app, createRoute({ method: 'get', path: '/api/videos/{video_id}', request: { params, query }, responses }),
 *   (c, { params, query }) => c.json(getVideo(snap, params.video_id, query)))
 * @param opts.identity the caller check made before validation, where the route's catalogue access is not
 *   the whole rule (it replaces the check that access implies).
 */
export function addRoute<R extends RouteConfig>(
  app: OpenAPIHono,
  route: R,
  handler: (c: Context, input: Input<R['request']>) => Response | Promise<Response>,
  opts: { identity?: (c: Context) => void } = {},
): void {
  const req = route.request ?? {};
  const bodySchema = (req.body?.content?.['application/json'] as { schema?: Schema } | undefined)?.schema;
  // Whatever is validated can answer 422: documented even where the route's responses forgot it.
  const validates = Boolean(req.params || req.query || bodySchema);
  app.openAPIRegistry.registerPath(validates && !route.responses[422] ? { ...route, responses: { ...route.responses, ...ValidationErrorResponse } } : route);
  const entry = catalogueEntry(route.method, route.path);
  const identity = opts.identity ?? (entry ? IDENTITY_CHECKS[entry.access] : undefined);
  app.on(route.method.toUpperCase(), toHonoPath(route.path), async (c) => {
    identity?.(c);
    const errors: ValidationDetail[] = [];
    const params = check(req.params as Schema | undefined, c.req.param(), 'param', errors);
    const query = check(req.query as Schema | undefined, c.req.query(), 'query', errors);
    let body: unknown = {};
    if (bodySchema) {
      let raw: unknown;
      const text = await c.req.text();
      try {
        raw = text === '' ? undefined : JSON.parse(text);
      } catch {
        errors.push({ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } });
      }
      // A body nested deeper than any of ours would overflow the stack of whatever walks it next (the
      // schema check, or the 422 that echoes the input): refused here, with nothing echoed.
      if (raw !== undefined && nestedDeeperThan(raw, MAX_JSON_DEPTH)) {
        raw = undefined;
        errors.push({ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: `Nested deeper than ${MAX_JSON_DEPTH} levels` } });
      }
      // No string of ours may hold a NUL character (api/validation/nul.ts): named here, before any store.
      const nul = raw === undefined || errors.length ? null : nulPath(raw);
      if (nul) errors.push(nulDetail(['body', ...nul], null));
      else if (errors.every((e) => e.type !== 'json_invalid')) body = check(bodySchema, raw, 'json', errors);
    }
    if (errors.length > 0) throw new RequestValidationError(errors);
    return handler(c, { params, query, body } as Input<R['request']>);
  });
}
