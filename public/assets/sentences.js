// @ts-check
// What went wrong, in words: an API error answer (`{"detail": "…"}`, or a 422's list of
// `{type, loc, msg, input, ctx}`) as sentences for people, each under the field it concerns. One module for
// the server's pages (api/web/form-errors.ts) and the site's scripts (api.js), so a form says the same
// thing with or without JavaScript. Pure functions: no DOM, no fetch.

/**
 * How a page names one of its fields.
 * @typedef {object} FieldWords
 * @property {string} name the field as the subject of a sentence: "the title"
 * @property {string} [item] one entry of a list field: "tag"
 * @property {string} [rule] what a valid value looks like: "lower-case letters, digits and hyphens"
 */

/**
 * @typedef {{ type?: string, loc?: (string | number)[], msg?: string, input?: unknown, ctx?: Record<string, unknown> }} Issue
 * @typedef {{ fields: Record<string, string>, general: string[] }} Sentences
 */

/** @param {string} s */
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
/** @param {string} s */
const stop = (s) => (/[.!?…]$/.test(s.trim()) ? s.trim() : `${s.trim()}.`);
/** @param {unknown} n @param {string} one */
const count = (n, one) => `${n} ${one}${Number(n) === 1 ? '' : 's'}`;
/** @param {unknown} v */
const quoted = (v) => `“${String(v).length > 40 ? `${String(v).slice(0, 40)}…` : String(v)}”`;

/** Without a page's words: the API's field name read as words ("expires_in_days" → "the expires in days"). */
function wordsFor(/** @type {string} */ field) {
  return { name: field === 'body' ? 'the text' : `the ${field.replace(/_/g, ' ')}` };
}

/**
 * One validation issue as a sentence, or null when it is about no field a person filled in.
 * @param {Issue} d
 * @param {FieldWords} w
 */
function issueSentence(d, w) {
  const Name = cap(w.name);
  const ctx = d.ctx ?? {};
  const length = typeof d.input === 'string' || Array.isArray(d.input) ? d.input.length : null;
  // loc ["body", "tags", 2]: one entry of a list field.
  const entry = typeof d.loc?.[2] === 'number' ? quoted(d.input) : null;
  const rule = w.rule ? `: use ${w.rule}` : '';
  switch (d.type) {
    case 'missing':
      return `${Name} is required.`;
    case 'string_too_short':
      // A schema that trims reports the text as sent: spaces alone are nothing written.
      if (typeof d.input === 'string' && d.input.trim() === '') return `${Name} is required.`;
      return `${entry ? `The ${w.item ?? 'entry'} ${entry}` : Name} needs at least ${count(ctx.min_length, 'character')}${length !== null ? `; it has ${length}` : ''}.`;
    case 'string_too_long':
      return `${entry ? `The ${w.item ?? 'entry'} ${entry}` : Name} can have at most ${count(ctx.max_length, 'character')}${length !== null ? `; it has ${length}` : ''}.`;
    case 'string_pattern_mismatch':
      return entry ? `${entry} is not a valid ${w.item ?? 'entry'}${rule}.` : `${Name} is not in the right form${rule}.`;
    case 'too_long':
      return `${Name} can have at most ${count(ctx.max_length, w.item ?? 'entry')}${length !== null ? `; there are ${length}` : ''}.`;
    case 'too_short':
      return `${Name} needs at least ${count(ctx.min_length, w.item ?? 'entry')}.`;
    case 'enum':
      return `Choose one of the offered values for ${w.name}.`;
    case 'int_parsing':
    case 'int_type':
    case 'float_parsing':
    case 'float_type':
      return `${Name} must be a number.`;
    case 'greater_than_equal':
    case 'greater_than':
      return `${Name} must be at least ${ctx.ge ?? ctx.gt}.`;
    case 'less_than_equal':
    case 'less_than':
      return `${Name} can be at most ${ctx.le ?? ctx.lt}.`;
    case 'extra_forbidden':
      return null;
    default: {
      // A rule of the schema's own ("Value error, …"): its message is words, unless it is a pattern.
      const own = (d.msg ?? '').replace(/^Value error,\s*/, '');
      return own && !/pattern|\/\^/.test(own) && !/^(Input|String|List) should/.test(own) ? `${Name} is not valid: ${stop(own)}` : `${Name} is not valid.`;
    }
  }
}

/** An answer without a detail the page can use, by its status. */
function statusSentence(/** @type {number} */ status) {
  if (status === 0) return 'The server could not be reached. Check your connection and try again.';
  if (status === 401) return 'Please sign in first.';
  if (status === 403) return 'You are not allowed to do that.';
  if (status === 404) return 'It was not found; it may have been deleted.';
  if (status === 409) return 'That cannot be done now; reload the page to see the current state.';
  if (status === 413) return 'That is too large to send.';
  if (status === 429) return 'Too many requests; wait a moment and try again.';
  if (status >= 500) return 'Something went wrong on the server. Nothing was changed; try again in a moment.';
  return 'That did not work. Check what you entered and try again.';
}

/**
 * An API error answer as sentences: by field where the page names the field (`words`, keyed by the API's
 * field name, the 422's loc[1]), the rest as general sentences. A refusal with a plain detail (a 409 "the
 * handle is taken") goes to the field `fieldOf` names for its status.
 * @param {number} status
 * @param {unknown} body
 * @param {Record<string, FieldWords>} [words]
 * @param {Record<number, string>} [fieldOf]
 * @returns {Sentences}
 * @example sentences(422, { detail: [{ type: 'string_pattern_mismatch', loc: ['body', 'tags', 0], input: 'AI Ethics' }] }, { tags: { name: 'the tags', item: 'tag' } })
 *   // { fields: { tags: '“AI Ethics” is not a valid tag.' }, general: [] }
 */
export function sentences(status, body, words = {}, fieldOf = {}) {
  /** @type {Sentences} */
  const out = { fields: {}, general: [] };
  const detail = body && typeof body === 'object' ? /** @type {{ detail?: unknown }} */ (body).detail : undefined;
  /** @param {string | undefined} field @param {string} text */
  const put = (field, text) => {
    if (field && words[field]) out.fields[field] = out.fields[field] ? `${out.fields[field]} ${text}` : text;
    else if (!out.general.includes(text)) out.general.push(text);
  };
  if (typeof detail === 'string' && detail.trim()) {
    put(fieldOf[status], stop(detail));
  } else if (Array.isArray(detail) && detail.length > 0) {
    for (const d of /** @type {Issue[]} */ (detail)) {
      const field = typeof d.loc?.[1] === 'string' ? d.loc[1] : undefined;
      const text = issueSentence(d, (field && words[field]) || wordsFor(field ?? String(d.loc?.[0] ?? 'input')));
      put(field, text ?? 'The form sent something the server does not expect. Reload the page and try again.');
    }
  } else {
    put(fieldOf[status], statusSentence(status));
  }
  return out;
}

/**
 * Every sentence of an answer in one line, for a place that has no fields (a button, a status line).
 * @param {number} status
 * @param {unknown} body
 * @param {Record<string, FieldWords>} [words]
 */
export function sentenceOf(status, body, words = {}) {
  const s = sentences(status, body, words);
  return [...Object.values(s.fields), ...s.general].join(' ');
}
