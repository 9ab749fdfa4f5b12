// NUL characters (U+0000) in what a request sends. PostgreSQL's text types cannot hold one (a query that
// binds one fails), SQLite stores it, and no field of ours means anything by it: so every string input is
// refused when it carries one, the same way on both databases, before it reaches a store.
//
// - the path: 404 (no resource has such a name), from nulGuard (nul-guard.ts), for every route;
// - the query and a form body: 422 naming the parameter (an RFC 6749 invalid_request under /api/oauth/),
//   from nulGuard;
// - a JSON body: 422 naming the field, from addRoute after the caller's identity check (401 comes first);
// - whatever still gets through (an MCP tool's arguments, a route that reads its body itself) meets the
//   PostgreSQL layer's bind check, TextWithNul, which the error handler answers with 422, never 500.
import type { ValidationDetail } from './index.ts';

export const NUL = '\u0000';
export const NUL_MESSAGE = 'Value error, text must not contain NUL characters (\\u0000)';

export { TextWithNul } from '../../src/lib/data/db/errors.ts';

/** The path (keys and indexes) of the first string or key in a parsed JSON value that holds a NUL. */
export function nulPath(value: unknown): (string | number)[] | null {
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes(NUL)) return at;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...at, i]]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes(NUL)) return [...at, k];
        stack.push([child, [...at, k]]);
      }
    }
  }
  return null;
}

export const nulDetail = (loc: (string | number)[], input: unknown): ValidationDetail => ({ type: 'value_error', loc, msg: NUL_MESSAGE, input });
