// The tools' input fields and output schemas. Each input field says what it is and, when wrong, how to fix
// it; each output schema is what structuredContent carries beside the JSON text (absolute URLs, page_url
// the page to cite).
import { z } from 'zod';
import { ITEM_TYPES } from '../../../src/lib/search/documents.ts';
import { ENTITY_TYPES } from '../../../src/lib/data/comments/entities.ts';

const ID_OF = 'video: its video_id; essay, knowledge: the slug; digest: the date YYYY-MM-DD; persona: the persona_id; post: the post_id or slug';

// ---- input fields: each says what it is and, when wrong, how to fix it ----

/** The kind of an item, one of `types` (every item type by default). */
export const itemType = (types: readonly string[] = ITEM_TYPES) =>
  z.enum(types as [string, ...string[]], { error: `type must be one of ${types.join(', ')}` }).describe(`The kind of item: ${types.join(', ')}.`);

/** An item's id, as search hits and lists give it. */
export const itemId = () =>
  z
    .string({ error: `id is required: ${ID_OF}` })
    .min(1, { error: `id must not be empty: ${ID_OF}` })
    .max(200, { error: 'id has at most 200 characters' })
    .describe(`The item's id. ${ID_OF}. Search hits and lists give it.`);

/** A whole number from `min` to `max`, `dflt` when absent, named `name` in its errors. */
export const count = (name: string, min: number, max: number, dflt: number, what: string) =>
  z
    .number({ error: `${name} must be a whole number from ${min} to ${max}` })
    .int({ error: `${name} must be a whole number from ${min} to ${max}` })
    .min(min, { error: `${name} must be at least ${min}` })
    .max(max, { error: `${name} must be at most ${max}` })
    .default(dflt)
    .describe(`${what} (${min}..${max}, default ${dflt}).`);

/** The kind of item a comment is on. */
export const entityType = () => z.enum(ENTITY_TYPES, { error: `entity_type must be one of ${ENTITY_TYPES.join(', ')}` }).describe(`What the comment is on: ${ENTITY_TYPES.join(', ')}.`);

/** The id of the item a comment is on. */
export const entityId = () =>
  z
    .string({ error: `entity_id is required: ${ID_OF}` })
    .min(1, { error: 'entity_id must not be empty' })
    .max(200, { error: 'entity_id has at most 200 characters' })
    .describe(`The item's id. ${ID_OF} (a post: its post_id).`);

/** A note's name in the person's note repository. */
export const noteSlug = () =>
  z
    .string({ error: 'slug is required: the note\'s name, 1 to 80 of a-z, 0-9, - and _' })
    .regex(/^[a-z0-9_-]{1,80}$/, { error: 'slug is 1 to 80 of a-z, 0-9, - and _ (lower case)' })
    .describe('The note\'s name: 1 to 80 of a-z, 0-9, - and _ (list_notes gives them).');

// ---- output schemas ----

/** An item's two absolute links: its JSON document and the page to cite. */
export const Link = { url: z.string().describe('The item\'s JSON document (absolute).'), page_url: z.string().describe('The page a person reads (absolute): cite this one.') };

/** One search or related hit. */
export const Hit = z.looseObject({
  type: z.string(),
  id: z.string(),
  title: z.string(),
  date: z.string().nullable(),
  lang: z.string().describe('The item\'s language, en or sl.'),
  summary: z.string().describe('A passage around the matched words, as plain text.'),
  ...Link,
});

/** One item in full, as get_item answers it. */
export const Item = z.looseObject({ type: z.string(), id: z.string(), title: z.string(), ...Link, item: z.record(z.string(), z.unknown()).describe('The item as GET <url> answers it.') });

/** One comment, with its page. */
export const Comment = z.looseObject({ comment_id: z.string(), entity_type: z.string(), entity_id: z.string(), body: z.string(), created_at: z.string(), page_url: z.string() });

/** One post, with its page. */
export const Post = z.looseObject({ post_id: z.string(), slug: z.string(), title: z.string(), status: z.string(), url: z.string(), page_url: z.string() });
