// The content schema: the single place that says what a channel, video, essay, digest, knowledge concept,
// persona and skill is. The loader validates every file's front matter with these; everything else imports
// the inferred types. Documented for editors in content/README.md.
import { z } from 'zod';

export const LANGUAGES = ['en', 'sl'] as const;
export type Lang = (typeof LANGUAGES)[number];
export const Lang = z.enum(LANGUAGES);

/** A calendar date. The loader's YAML schema keeps unquoted dates as strings, so this sees the text. */
export const IsoDate = z.iso.date({ message: 'expected a date YYYY-MM-DD' });
/** Ids may look numeric to YAML; they are always strings. */
const IdString = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string());

export const Slug = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'expected lower-case letters, digits and single hyphens')
  .max(120);
export const VideoId = IdString.pipe(z.string().regex(/^[A-Za-z0-9_-]{6,32}$/, 'expected a video id [A-Za-z0-9_-]'));
export const Tag = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'tags are lower-case kebab-case')
  .max(64);
const HttpUrl = z.url({ protocol: /^https?$/, message: 'expected an http(s) URL' });

export const ChannelFront = z.strictObject({
  channel_id: Slug,
  name: z.string().min(1).max(200),
  description: z.string().min(1).max(1000),
  language: Lang,
  url: HttpUrl,
  feed_url: HttpUrl,
});

export const VideoFront = z.strictObject({
  video_id: VideoId,
  title: z.string().min(1).max(300),
  date: IsoDate,
  channel: Slug,
  language: Lang,
  tags: z.array(Tag).max(12).default([]),
  summary: z.string().max(5000).default(''),
  thumbnail_url: HttpUrl,
  url: HttpUrl,
  highlight: z.boolean().default(false),
});

export const EssayFront = z.strictObject({
  title: z.string().min(1).max(300),
  date: IsoDate,
  description: z.string().min(1).max(1000),
  tags: z.array(Tag).max(12).default([]),
  video: VideoId.optional(),
  featured: z.boolean().default(false),
});

export const DigestFront = z.strictObject({ date: IsoDate });

export const ConceptSource = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('video'), id: VideoId }),
  z.strictObject({ type: z.literal('essay'), id: Slug }),
  z.strictObject({ type: z.literal('digest'), id: IsoDate }),
  z.strictObject({ type: z.literal('web_page'), url: HttpUrl, title: z.string().min(1).max(300) }),
]);

export const ConceptFront = z.strictObject({
  title: z.string().min(1).max(200),
  summary: z.string().min(1).max(1000),
  tags: z.array(Tag).max(12).default([]),
  draft: z.boolean().default(false),
  sources: z.array(ConceptSource).min(1, 'a concept needs at least one source'),
  related: z.array(Slug).default([]),
});

export const PersonaFront = z.strictObject({
  name: z.string().min(1).max(200),
  description: z.string().min(1).max(1000),
  languages: z.array(Lang).min(1),
  modes: z.array(Slug).min(1),
});

export const SkillFront = z.strictObject({
  name: Slug,
  description: z.string().min(1).max(500),
});

export type ChannelFront = z.infer<typeof ChannelFront>;
export type VideoFront = z.infer<typeof VideoFront>;
export type EssayFront = z.infer<typeof EssayFront>;
export type ConceptFront = z.infer<typeof ConceptFront>;
export type ConceptSource = z.infer<typeof ConceptSource>;
export type PersonaFront = z.infer<typeof PersonaFront>;
export type SkillFront = z.infer<typeof SkillFront>;
