// Labels inside the content area of pages whose content is Slovenian, so a Slovenian video or essay reads
// as one language. The site chrome (navigation, comments, account) stays English and is marked lang="en".
import type { Lang } from '../lib/content/schema.ts';

const LABELS = {
  summary: { en: 'Summary', sl: 'Povzetek' },
  notes: { en: 'Notes', sl: 'Zapiski' },
  watch: { en: 'Watch the video at', sl: 'Oglejte si posnetek na' },
  inDigests: { en: 'In the daily digests', sl: 'V dnevnih pregledih' },
  inKnowledge: { en: 'Cited by knowledge concepts', sl: 'Navajajo ga pojmi' },
  tags: { en: 'Tags', sl: 'Oznake' },
  published: { en: 'Published', sl: 'Objavljeno' },
  relatedVideo: { en: 'The video behind this essay', sl: 'Posnetek, na katerem temelji esej' },
  language: { en: 'Language', sl: 'Jezik' },
} as const;

export type Label = keyof typeof LABELS;

export function t(lang: Lang, key: Label): string {
  return LABELS[key][lang];
}
