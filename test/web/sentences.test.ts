// The API's error answers as sentences for people (public/assets/sentences.js), the words every form on
// the server's pages and in the site's scripts shows: by field, never JSON, a pattern or a field path.
import { describe, expect, it } from 'vitest';
import { sentenceOf, sentences } from '../../public/assets/sentences.js';

const TAGS = { tags: { name: 'the tags', item: 'tag', rule: 'lower-case letters, digits and single hyphens' } };
const issue = (type: string, loc: (string | number)[], input: unknown, ctx?: Record<string, unknown>, msg = 'raw message') => ({ type, loc, msg, input, ctx });

describe('sentences from API errors', () => {
  it('name the bad entry of a list field and the rule it breaks', () => {
    const body = { detail: [issue('string_pattern_mismatch', ['body', 'tags', 2], 'c++', { pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' }, "String should match pattern '^[a-z0-9]+(?:-[a-z0-9]+)*$'")] };
    expect(sentences(422, body, TAGS)).toEqual({ fields: { tags: '“c++” is not a valid tag: use lower-case letters, digits and single hyphens.' }, general: [] });
  });

  it('say lengths, counts, required fields and numbers in words', () => {
    const words = { title: { name: 'the title' }, tags: TAGS.tags, n: { name: 'the number of days' } };
    const body = {
      detail: [
        issue('string_too_short', ['body', 'title'], 'No', { min_length: 3 }),
        issue('too_long', ['body', 'tags'], Array.from({ length: 12 }, (_, i) => `t${i}`), { max_length: 10 }),
        issue('less_than_equal', ['body', 'n'], 4000, { le: 3650 }),
      ],
    };
    expect(sentences(422, body, words).fields).toEqual({
      title: 'The title needs at least 3 characters; it has 2.',
      tags: 'The tags can have at most 10 tags; there are 12.',
      n: 'The number of days can be at most 3650.',
    });
    expect(sentences(422, { detail: [issue('missing', ['body', 'title'], null)] }, words).fields.title).toBe('The title is required.');
    expect(sentences(422, { detail: [issue('string_too_short', ['body', 'title'], '   ', { min_length: 1 })] }, words).fields.title).toBe('The title is required.');
  });

  it('put a plain refusal by the field its status concerns, or in general, as a sentence', () => {
    expect(sentences(409, { detail: 'The handle @ana is taken', hint: 'x' }, { handle: { name: 'the handle' } }, { 409: 'handle' })).toEqual({ fields: { handle: 'The handle @ana is taken.' }, general: [] });
    expect(sentences(429, { detail: 'Too many requests; try again in 12 s' })).toEqual({ fields: {}, general: ['Too many requests; try again in 12 s.'] });
    expect(sentenceOf(502, 'Bad Gateway')).toBe('Something went wrong on the server. Nothing was changed; try again in a moment.');
    expect(sentenceOf(0, null)).toMatch(/could not be reached/);
  });

  it('read a field the page does not name from its API name, and never show a pattern or a schema message', () => {
    const text = sentenceOf(422, { detail: [issue('string_pattern_mismatch', ['body', 'parent_id'], 'x', { pattern: '^c_' }, "String should match pattern '^c_'"), issue('value_error', ['query', 'next'], 'x', undefined, 'Value error, at most 1024 characters once percent-encoded'), issue('extra_forbidden', ['body', 'x'], 1)] });
    expect(text).toBe('The parent id is not in the right form. The next is not valid: at most 1024 characters once percent-encoded. The form sent something the server does not expect. Reload the page and try again.');
    expect(text).not.toMatch(/pattern|\^|String should|body\./);
  });
});
