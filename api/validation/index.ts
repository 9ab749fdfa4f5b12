// Validation at the edge: query, path and body schemas are zod (the same schemas feed /openapi.json), and
// a failure becomes FastAPI's 422 body, {"detail":[{"type","loc","msg","input","ctx"?}]}, so clients
// written against the spec parse our errors without a special case.
import { z } from '@hono/zod-openapi';
import type { ZodError } from 'zod';

export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

const LOCATION: Record<string, string> = { query: 'query', param: 'path', json: 'body', form: 'body', header: 'header', cookie: 'cookie' };

function valueAt(raw: unknown, path: PropertyKey[]): unknown {
  let cur = raw;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/** Maps one zod issue to pydantic's error vocabulary (type, msg, ctx) as FastAPI reports it. */
function describe(issue: z.core.$ZodIssue, input: unknown): Omit<ValidationDetail, 'loc' | 'input'> {
  if (input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value')) {
    return { type: 'missing', msg: 'Field required' };
  }
  switch (issue.code) {
    case 'too_small':
      if (issue.origin === 'string') {
        return { type: 'string_too_short', msg: `String should have at least ${issue.minimum} character${Number(issue.minimum) === 1 ? '' : 's'}`, ctx: { min_length: Number(issue.minimum) } };
      }
      if (issue.origin === 'array') return { type: 'too_short', msg: `List should have at least ${issue.minimum} items`, ctx: { min_length: Number(issue.minimum) } };
      return issue.inclusive
        ? { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${issue.minimum}`, ctx: { ge: Number(issue.minimum) } }
        : { type: 'greater_than', msg: `Input should be greater than ${issue.minimum}`, ctx: { gt: Number(issue.minimum) } };
    case 'too_big':
      if (issue.origin === 'string') {
        return { type: 'string_too_long', msg: `String should have at most ${issue.maximum} character${Number(issue.maximum) === 1 ? '' : 's'}`, ctx: { max_length: Number(issue.maximum) } };
      }
      if (issue.origin === 'array') return { type: 'too_long', msg: `List should have at most ${issue.maximum} items`, ctx: { max_length: Number(issue.maximum) } };
      return issue.inclusive
        ? { type: 'less_than_equal', msg: `Input should be less than or equal to ${issue.maximum}`, ctx: { le: Number(issue.maximum) } }
        : { type: 'less_than', msg: `Input should be less than ${issue.maximum}`, ctx: { lt: Number(issue.maximum) } };
    case 'invalid_type':
      if (issue.expected === 'number' || issue.expected === 'int') {
        return { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' };
      }
      if (issue.expected === 'boolean') return { type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input' };
      if (issue.expected === 'string') return { type: 'string_type', msg: 'Input should be a valid string' };
      if (issue.expected === 'object') return { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' };
      if (issue.expected === 'array') return { type: 'list_type', msg: 'Input should be a valid list' };
      return { type: `${issue.expected}_type`, msg: `Input should be a valid ${issue.expected}` };
    case 'invalid_value': {
      const options = issue.values.map((v) => `'${String(v)}'`);
      const list = options.length > 1 ? `${options.slice(0, -1).join(', ')} or ${options.at(-1)}` : options[0];
      return { type: 'enum', msg: `Input should be ${list}`, ctx: { expected: list } };
    }
    case 'invalid_format':
      if (issue.format === 'date') return { type: 'date_from_datetime_parsing', msg: 'Input should be a valid date in the format YYYY-MM-DD' };
      if (issue.format === 'uuid') return { type: 'uuid_parsing', msg: 'Input should be a valid UUID' };
      if (issue.format === 'url') return { type: 'url_parsing', msg: 'Input should be a valid URL' };
      if (issue.format === 'regex') return { type: 'string_pattern_mismatch', msg: `String should match pattern '${(issue as { pattern?: string }).pattern ?? ''}'`, ctx: { pattern: (issue as { pattern?: string }).pattern } };
      return { type: 'value_error', msg: `Value error, ${issue.message}` };
    case 'unrecognized_keys':
      return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' };
    case 'custom': {
      const p = (issue.params ?? {}) as { type?: string; ctx?: Record<string, unknown> };
      return { type: p.type ?? 'value_error', msg: p.type ? issue.message : `Value error, ${issue.message}`, ...(p.ctx ? { ctx: p.ctx } : {}) };
    }
    default:
      return { type: 'value_error', msg: `Value error, ${issue.message}` };
  }
}

/** FastAPI's `detail` list for a zod error on one request part. */
export function validationDetail(error: ZodError, target: string, raw: unknown): ValidationDetail[] {
  const location = LOCATION[target] ?? target;
  return error.issues.map((issue) => {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const extra = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const input = extra.length ? valueAt(raw, [...path, extra[0]]) : valueAt(raw, path);
    const d = describe(issue, input);
    return {
      type: d.type,
      loc: [location, ...path, ...extra.slice(0, 1)],
      msg: d.msg,
      input: input === undefined ? null : input,
      ...(d.ctx ? { ctx: d.ctx } : {}),
    };
  });
}

// ---- Query parameter schemas with FastAPI's semantics (strings in, typed values out) ----

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', 'f', 'n']);

/** A boolean query parameter: true/false/1/0/yes/no/on/off, as FastAPI accepts them. */
export function queryBool(defaultValue: boolean, description: string) {
  return z
    .string()
    .transform((v, ctx) => {
      const word = v.trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      ctx.addIssue({ code: 'custom', message: 'Input should be a valid boolean, unable to interpret input', params: { type: 'bool_parsing' } });
      return z.NEVER;
    })
    .default(defaultValue)
    .openapi({ type: 'boolean', default: defaultValue, description });
}

/** A required integer parameter within bounds ("12", not "12.5" or "twelve"); absent → 422 missing. */
export function requiredInt(min: number, max: number | undefined, description: string) {
  const bounded = max === undefined ? z.number().int().min(min) : z.number().int().min(min).max(max);
  return z
    .string()
    .transform((v, ctx) => {
      if (/^\s*[-+]?\d{1,15}\s*$/.test(v)) return Number(v);
      ctx.addIssue({ code: 'custom', message: 'Input should be a valid integer, unable to parse string as an integer', params: { type: 'int_parsing' } });
      return z.NEVER;
    })
    .pipe(bounded)
    .openapi({ type: 'integer', minimum: min, ...(max !== undefined ? { maximum: max } : {}), description });
}

/** An optional integer query parameter with a default. */
export function queryInt(min: number, max: number | undefined, defaultValue: number, description: string) {
  return requiredInt(min, max, description)
    .default(defaultValue)
    .openapi({ type: 'integer', minimum: min, ...(max !== undefined ? { maximum: max } : {}), default: defaultValue, description });
}

export const limitParam = (max: number, defaultValue: number) =>
  queryInt(1, max, defaultValue, `Page size, 1..${max}.`);
export const offsetParam = () => queryInt(0, undefined, 0, 'Items to skip, >= 0.');

function isRealDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

/** A calendar date YYYY-MM-DD (month and day checked, not only the pattern). */
export function dateString(description: string) {
  return z
    .string()
    .refine(isRealDate, { message: 'Input should be a valid date in the format YYYY-MM-DD', params: { type: 'date_from_datetime_parsing' } })
    .openapi({ type: 'string', format: 'date', description, example: '2026-11-20' });
}
