// What search sees of an item: its type and id, the texts of its fields with their language, its tags and
// the items it links to. Derived from the content snapshot (and from posts, which live outside it), so
// the index, the embedders, snippets and related items all read one shape.
import { essayIn, type Snapshot } from '../content/model.ts';
import type { ItemKind } from '../read/links.ts';
import { guessLanguage, type TextLang } from './analyse.ts';
import { HTML_TAG, IMAGE, LINK, replaceHtmlComments } from '../text/markup.ts';

export const ITEM_TYPES = ['video', 'knowledge', 'essay', 'digest', 'persona', 'post'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

/** The URL segment of each type: /api/<kind>/<id>. */
export const KIND_OF_TYPE: Record<ItemType, ItemKind> = {
  video: 'videos',
  knowledge: 'knowledge',
  essay: 'essays',
  digest: 'digests',
  persona: 'personas',
  post: 'posts',
};
const TYPE_OF_KIND: Record<string, ItemType> = Object.fromEntries(Object.entries(KIND_OF_TYPE).map(([t, k]) => [k, t as ItemType]));

export interface TextPart {
  text: string;
  lang: TextLang;
}

/** The indexed fields, with the boosts the keyword index gives them. */
export const FIELDS = ['title', 'tags', 'summary', 'body'] as const;
export type Field = (typeof FIELDS)[number];

export interface SearchDocument {
  type: ItemType;
  id: string;
  /** The URL segment when it is not the id: posts are read at /api/posts/<slug>. */
  slug?: string;
  /** The title shown in results. */
  title: string;
  date: string | null;
  /** Draft knowledge concepts (concept stubs): hidden unless asked for, and ranked lower when shown. */
  draft: boolean;
  tags: string[];
  fields: Record<Field, TextPart[]>;
  /** Keys (see docKey) of the items this one links to. */
  links: string[];
  /**
   * What other items say of this one: the digest paragraphs and the sentences of concepts and essays that
   * cite it, in their own language. Neither searched by keyword nor shown in snippets; the vectors read
   * them, so an item is also found in the words others use for it, in the other language too (a
   * Slovenian video is retold in English by the digest that cites it).
   */
  citations?: TextPart[];
}

export function docKey(type: ItemType, id: string): string {
  return `${type}:${id}`;
}

// [text](/videos/<id>) and the other site links inside Markdown.
const SITE_LINK = /\]\(\/(videos|essays|knowledge|digests|personas|posts)\/([^/?#\s)]+)\)/g;

export function siteLinks(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(SITE_LINK)) out.push(docKey(TYPE_OF_KIND[m[1]], decodeURIComponent(m[2])));
  return out;
}

/**
 * Markdown to the words a reader sees: link targets, images, HTML, code fences and emphasis marks go, so
 * neither the index nor a snippet holds "/videos/H9QI-gGWbdX" or "**". Linear in the text (a post's essay is
 * the caller's): see text/markup.ts.
 */
export function plainText(markdown: string): string {
  return replaceHtmlComments(markdown, ' ')
    .replace(IMAGE, '$1')
    .replace(LINK, '$1')
    .replace(HTML_TAG, ' ')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/^```.*$/gm, '')
    .replace(/^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/gm, '')
    .replace(/[*_`~]+/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

const part = (text: string, lang: TextLang): TextPart[] => (text ? [{ text, lang }] : []);

/** A passage that cites more items than this says little about any one of them. */
const MAX_CITED_PER_PASSAGE = 3;
/** Citations kept per item, and characters per citation: bounds on what a much-cited item carries. */
const MAX_CITATIONS = 8;
const MAX_CITATION_CHARS = 600;

/** The paragraphs and list items of a Markdown body that link to site items, with the items they cite. */
export function citingPassages(markdown: string): { text: string; cited: string[] }[] {
  const out: { text: string; cited: string[] }[] = [];
  for (const block of markdown.split(/\n\s*\n|\n(?=\s{0,3}(?:[-*+]|\d+[.)])\s)/)) {
    const cited = [...new Set(siteLinks(block))];
    if (cited.length === 0 || cited.length > MAX_CITED_PER_PASSAGE) continue;
    const text = plainText(block);
    if (text) out.push({ text, cited });
  }
  return out;
}

/** Gives every document the passages of other documents that cite it (see SearchDocument.citations). */
function attachCitations(docs: SearchDocument[], passages: Passage[]): void {
  const byKey = new Map(docs.map((d) => [docKey(d.type, d.id), d]));
  for (const p of passages) {
    for (const key of p.cited) {
      const doc = byKey.get(key);
      if (!doc || key === p.from) continue;
      const list = (doc.citations ??= []);
      if (list.length < MAX_CITATIONS) list.push({ text: p.text.length > MAX_CITATION_CHARS ? p.text.slice(0, MAX_CITATION_CHARS) : p.text, lang: p.lang });
    }
  }
}
const tagPart = (tags: readonly string[]): TextPart[] => part(tags.map((t) => t.replace(/-/g, ' ')).join(' · '), 'en');

/**
 * Every searchable item of a snapshot, in a stable order (the order of the built index's rows). With
 * `only`, just the items whose key (docKey) it accepts, each exactly as the whole list would give it: the
 * passages citing them are gathered from every item that may cite them (`mayCite`, a superset: see
 * search/inputs.ts), so the update of the index builds a few documents instead of all.
 */
export function documentsFromSnapshot(snap: Snapshot, only?: { wanted: (key: string) => boolean; mayCite: (from: string) => boolean }): SearchDocument[] {
  const docs: SearchDocument[] = [];
  const passages: Passage[] = [];
  const c: Gathering = {
    docs,
    passages,
    cite: (from, lang, markdown) => {
      for (const p of citingPassages(markdown)) passages.push({ from, lang, ...p });
    },
    wanted: only ? only.wanted : () => true,
    citing: only ? only.mayCite : () => true,
  };
  // In this order: the documents' order is the built index's.
  videoDocuments(snap, c);
  essayDocuments(snap, c);
  digestDocuments(snap, c);
  conceptDocuments(snap, c);
  personaDocuments(snap, c);
  attachCitations(docs, passages);
  return docs;
}

/** A passage of one item that cites others (see SearchDocument.citations). */
type Passage = { from: string; text: string; lang: TextLang; cited: string[] };

/** What documentsFromSnapshot gathers, and what it is asked for: the documents wanted, and the passages of the items that may cite them. */
interface Gathering {
  docs: SearchDocument[];
  passages: Passage[];
  /** Adds the passages of an item's Markdown that cite other items. */
  cite: (from: string, lang: TextLang, markdown: string) => void;
  wanted: (key: string) => boolean;
  citing: (from: string) => boolean;
}

/** Videos: their transcript is the body; they cite nothing. */
function videoDocuments(snap: Snapshot, { docs, wanted }: Gathering): void {
  for (const v of snap.videos) {
    if (!wanted(docKey('video', v.video_id))) continue;
    docs.push({
      type: 'video',
      id: v.video_id,
      title: v.title,
      date: v.date,
      draft: false,
      tags: v.tags,
      fields: { title: part(v.title, v.language), tags: tagPart(v.tags), summary: part(v.summary, v.language), body: part(plainText(v.transcript), v.language) },
      links: [],
    });
  }
}

/** Essays: every language version under the one essay; their links and citing sentences. */
function essayDocuments(snap: Snapshot, { docs, wanted, citing, cite }: Gathering): void {
  for (const e of snap.essays) {
    const self = docKey('essay', e.slug);
    if (!wanted(self) && !citing(self)) continue;
    const primary = essayIn(e);
    const translations = e.languages.map((l) => e.translations[l]!);
    const links = new Set<string>();
    for (const t of translations) {
      if (t.video) links.add(docKey('video', t.video));
      for (const l of siteLinks(t.body)) links.add(l);
      cite(self, t.lang, t.body);
    }
    if (!wanted(self)) continue;
    docs.push({
      type: 'essay',
      id: e.slug,
      title: primary.title,
      date: primary.date,
      draft: false,
      tags: primary.tags,
      // Every language version is indexed under the one essay, each with its own analyser.
      fields: {
        title: translations.flatMap((t) => part(t.title, t.lang)),
        tags: tagPart(primary.tags),
        summary: translations.flatMap((t) => part(t.description, t.lang)),
        body: translations.flatMap((t) => part(plainText(t.body), t.lang)),
      },
      links: [...links],
    });
  }
}

/** Digests: each item's paragraph cites the videos of its sources. */
function digestDocuments(snap: Snapshot, { docs, passages, wanted, citing }: Gathering): void {
  for (const d of snap.digests) {
    const self = docKey('digest', d.date);
    if (!wanted(self) && !citing(self)) continue;
    const lang = guessLanguage(d.intro + ' ' + d.items.map((i) => i.paragraph).join(' '));
    for (const i of d.items) {
      const cited = [...new Set(i.sources.map((s) => docKey('video', s.video_id)))];
      if (cited.length <= MAX_CITED_PER_PASSAGE) passages.push({ from: self, text: `${i.headline}\n${i.paragraph}`, lang, cited });
    }
    if (!wanted(self)) continue;
    docs.push({
      type: 'digest',
      id: d.date,
      title: d.title,
      date: d.date,
      draft: false,
      tags: [],
      fields: {
        title: part(d.title, lang),
        tags: [],
        summary: part([d.intro, ...d.items.map((i) => i.headline)].join('\n'), lang),
        body: part(d.items.map((i) => `${i.paragraph}\n${i.sources.map((s) => s.title).join('; ')}`).join('\n\n'), lang),
      },
      links: [...new Set(d.items.flatMap((i) => i.sources.map((s) => docKey('video', s.video_id))))],
    });
  }
}

/** Knowledge concepts: their sources, related concepts and links; a draft cites nothing. */
function conceptDocuments(snap: Snapshot, { docs, wanted, citing, cite }: Gathering): void {
  for (const c of snap.concepts) {
    const self = docKey('knowledge', c.slug);
    if (!wanted(self) && !(citing(self) && !c.draft)) continue;
    const lang = guessLanguage(`${c.summary} ${c.body}`);
    const links = new Set<string>();
    for (const s of c.sources) {
      if (s.type === 'video') links.add(docKey('video', s.id));
      else if (s.type === 'essay') links.add(docKey('essay', s.id));
      else if (s.type === 'digest') links.add(docKey('digest', s.id));
    }
    for (const r of c.related) links.add(docKey('knowledge', r));
    for (const l of siteLinks(c.body)) links.add(l);
    if (!c.draft) cite(self, lang, c.body);
    if (!wanted(self)) continue;
    docs.push({
      type: 'knowledge',
      id: c.slug,
      title: c.title,
      date: null,
      draft: c.draft,
      tags: c.tags,
      fields: { title: part(c.title, lang), tags: tagPart(c.tags), summary: part(c.summary, lang), body: part(plainText(c.body), lang) },
      links: [...links],
    });
  }
}

/** Personas: their description and body, their links and citing sentences. */
function personaDocuments(snap: Snapshot, { docs, wanted, citing, cite }: Gathering): void {
  for (const p of snap.personas) {
    const self = docKey('persona', p.persona_id);
    if (!wanted(self) && !citing(self)) continue;
    const lang = guessLanguage(`${p.description} ${p.body}`);
    if (wanted(self)) docs.push({
      type: 'persona',
      id: p.persona_id,
      title: p.name,
      date: null,
      draft: false,
      tags: [],
      fields: { title: part(p.name, lang), tags: [], summary: part(p.description, lang), body: part(plainText(p.body), lang) },
      links: siteLinks(p.body),
    });
    cite(self, lang, p.body);
  }
}

/**
 * An item as one document per language version, each with only that language's texts (and the shared
 * tags): what gets a vector. A mixed-language vector would sit halfway between both and match neither.
 * What other items say of it makes one more version per language (with the item's tags): the English
 * retelling of a Slovenian video, so an English question finds the video; an item's nearest vector
 * decides, so a version of its own and one of its citations never blur each other.
 */
export function languageVersions(doc: SearchDocument): SearchDocument[] {
  const langs = [...new Set(FIELDS.flatMap((f) => (f === 'tags' ? [] : doc.fields[f].map((p) => p.lang))))];
  const own: SearchDocument[] =
    langs.length <= 1
      ? [doc]
      : langs.map((lang) => ({
          ...doc,
          fields: Object.fromEntries(FIELDS.map((f) => [f, f === 'tags' ? doc.fields[f] : doc.fields[f].filter((p) => p.lang === lang)])) as Record<Field, TextPart[]>,
        }));
  for (const lang of new Set((doc.citations ?? []).map((c) => c.lang))) {
    own.push({ ...doc, fields: { title: [], tags: doc.fields.tags, summary: doc.citations!.filter((c) => c.lang === lang), body: [] } });
  }
  return own;
}

/** A published post as the posts domain hands it to search (posts live in the database, not content/). */
export interface PostInput {
  post_id: string;
  slug?: string;
  title: string;
  /** Publication date, YYYY-MM-DD. */
  date: string;
  /** Markdown. */
  body: string;
  summary?: string;
  tags?: string[];
  lang?: TextLang;
}

export function documentFromPost(p: PostInput): SearchDocument {
  const lang = p.lang ?? guessLanguage(`${p.title} ${p.summary ?? ''} ${p.body}`);
  const tags = p.tags ?? [];
  return {
    type: 'post',
    id: p.post_id,
    ...(p.slug ? { slug: p.slug } : {}),
    title: p.title,
    date: p.date,
    draft: false,
    tags,
    fields: { title: part(p.title, lang), tags: tagPart(tags), summary: part(p.summary ?? '', lang), body: part(plainText(p.body), lang) },
    links: siteLinks(p.body),
  };
}
