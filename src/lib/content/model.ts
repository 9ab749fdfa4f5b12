// The loaded content snapshot: validated, cross-checked and indexed once, then read by pure functions.
import type { ChannelFront, ConceptFront, EssayFront, Lang, PersonaFront, SkillFront, VideoFront } from './schema.ts';

export interface Channel extends ChannelFront {
  body: string;
}

export interface Video extends VideoFront {
  /** Optional transcript or notes (Markdown); empty when there is none. */
  transcript: string;
}

export interface EssayTranslation extends EssayFront {
  lang: Lang;
  body: string;
}

export interface Essay {
  slug: string;
  /** The language whose front matter speaks for the essay in lists: en when present. */
  primary: Lang;
  languages: Lang[];
  translations: Partial<Record<Lang, EssayTranslation>>;
}

export interface DigestSource {
  title: string;
  video_id: string;
}

export interface DigestItem {
  number: number;
  headline: string;
  paragraph: string;
  sources: DigestSource[];
}

export interface Digest {
  date: string;
  title: string;
  intro: string;
  items: DigestItem[];
  /** The Markdown body exactly as written (the spec's digest shape). */
  content: string;
}

export interface Concept extends ConceptFront {
  slug: string;
  body: string;
}

export interface Persona extends PersonaFront {
  persona_id: string;
  body: string;
  /** Keyed by `${mode}/${lang}`. */
  modelfiles: Map<string, string>;
}

export interface Skill extends SkillFront {
  body: string;
  /** The whole file as an agent installs it (front matter included). */
  source: string;
}

export interface Snapshot {
  channels: Channel[];
  channelsById: Map<string, Channel>;
  /** Newest first, then by id: the order of every video listing. */
  videos: Video[];
  videosById: Map<string, Video>;
  videosByChannel: Map<string, Video[]>;
  /** Newest first. */
  essays: Essay[];
  essaysBySlug: Map<string, Essay>;
  /** Newest first. */
  digests: Digest[];
  digestsByDate: Map<string, Digest>;
  /** Digests whose sources include a video, newest first. */
  digestsByVideo: Map<string, Digest[]>;
  /** By title. */
  concepts: Concept[];
  /** Published (non-draft) concepts that cite a video. */
  conceptsByVideo: Map<string, Concept[]>;
  conceptsBySlug: Map<string, Concept>;
  personas: Persona[];
  personasById: Map<string, Persona>;
  skills: Skill[];
  skillsByName: Map<string, Skill>;
  /** SHA-256 over every content file's path and bytes: identifies the snapshot. */
  contentHash: string;
  /**
   * The SHA-256 of the file each item was read from, by `<kind>:<id>` (`video:<id>`, `channel:<id>`,
   * `essay:<slug>` (its translations' files, comma-separated, in path order), `digest:<date>`,
   * `concept:<slug>`): what the incremental build keys the documents of one item by.
   */
  itemHashes: Map<string, string>;
  /**
   * The files a lenient load (LoadOptions.lenient) did not publish as they are, with why, in path order:
   * empty when every file is valid. The snapshot holds their last published version instead, or leaves
   * them out.
   */
  invalid: InvalidFile[];
}

/** What a lenient load serves for a file that failed validation (InvalidFile.served), in words. */
export const SERVED_AS: Record<InvalidFile['served'], string> = {
  previous: 'its last valid version is published',
  current: 'published without its references to items that are not there',
  none: 'not published',
};

/** A content file that failed validation, in a lenient load. */
export interface InvalidFile {
  /** Its path under the content folder (`essays/<slug>/en.md`). */
  path: string;
  /** Why, one line per problem, without the path (`title: Invalid input: expected string, received undefined`). */
  reasons: string[];
  /**
   * What the snapshot holds for it: `previous`, the last version of the file that was published (its item
   * stays as it was; an edit that broke it waits for a fix); `current`, this version without its references
   * to items that are not there (a video deleted that it cites); `none`, nothing (no earlier valid version
   * is known, or that one fails too).
   */
  served: 'previous' | 'current' | 'none';
}

/** The essay's representation in one language, falling back to its primary language. */
export function essayIn(essay: Essay, lang?: Lang): EssayTranslation {
  return (lang && essay.translations[lang]) || essay.translations[essay.primary]!;
}
