// What the documents and page models of one item read, as a key: the hashes of the content files behind
// them. The incremental build compares each item's key with the one recorded in dist/site-manifest.json
// and recomputes an item's documents (its JSON, title card and Markdown twin) and page model only when
// the key moved; otherwise it keeps the file hashes and fingerprints it recorded. At 100k videos that is
// the difference between recomputing ~500k documents and ~1k.
//
// Each key must name everything its documents read, or an incremental build keeps a stale file: the
// functions below follow the read model (src/lib/read, src/lib/pages/models.ts) line by line, and
// test/pipeline/incremental-inputs.test.ts changes each of those inputs alone and compares the incremental
// build with a full one, byte for byte. Code changes need no key: they change the renderer hash, and the
// incremental build then falls back to a full build. Site settings the documents use are keyed once
// (siteInputs).
import { createHash, hash } from 'node:crypto';
import { essayIn, type Snapshot } from '../content/model.ts';
import type { SiteContext } from '../site.ts';
import { digestPosition } from '../pages/models.ts';
import { COVERED_KINDS, keyRecord, movedGroups, type KeyRecord, type MovedGroups } from './moved-keys.ts';

/** The site settings an item's documents read (the origin and site name are checked on their own too). */
export function siteInputs(site: SiteContext): string {
  return createHash('sha256')
    .update(JSON.stringify([site.baseUrl, site.siteName, site.description, site.devMode, site.keyPrefix, site.videoThumbnails ?? 'card']))
    .digest('base64url');
}

// One-shot hashing: ~3x cheaper than a Hash object per key, and there are ~200k keys at 100k videos.
const key = (parts: string[]) => hash('sha1', parts.join('\n'), 'base64url');
/**
 * Each item's file hash by kind and id (the snapshot's itemHashes split once per snapshot): a lookup by the
 * id string the snapshot already holds, instead of building `kind:id` for each of ~1M lookups at 100k videos.
 */
type Kind = 'video' | 'channel' | 'digest' | 'concept' | 'essay';
const byKind = new WeakMap<Snapshot, Record<Kind, Map<string, string>>>();
function hashesOf(snap: Snapshot): Record<Kind, Map<string, string>> {
  let kinds = byKind.get(snap);
  if (!kinds) {
    const made: Record<string, Map<string, string>> = { video: new Map(), channel: new Map(), digest: new Map(), concept: new Map(), essay: new Map() };
    for (const [item, sha] of snap.itemHashes) {
      const at = item.indexOf(':');
      made[item.slice(0, at)]?.set(item.slice(at + 1), sha);
    }
    byKind.set(snap, (kinds = made as Record<Kind, Map<string, string>>));
  }
  return kinds;
}
/** The item's file hash, '-' when it has no file (a reference the content check would have refused). */
const hashOf = (snap: Snapshot, kind: Kind, id: string) => hashesOf(snap)[kind].get(id) ?? '-';

/**
 * A video's documents and page (getVideo, videoModel, the title card, the Markdown twin): the video, its
 * channel (name), the digests that cite it and the published concepts that cite it (date or slug, title).
 */
function videoKey(snap: Snapshot, id: string): string | null {
  const v = snap.videosById.get(id);
  if (!v) return null;
  return key([
    hashOf(snap, 'video', id),
    hashOf(snap, 'channel', v.channel),
    ...(snap.digestsByVideo.get(id) ?? []).map((d) => `d:${d.date}:${hashOf(snap, 'digest', d.date)}`),
    ...(snap.conceptsByVideo.get(id) ?? []).map((c) => `c:${c.slug}:${hashOf(snap, 'concept', c.slug)}`),
  ]);
}

/**
 * A concept's documents and page (getConcept, conceptModel, the Markdown twin): the concept, each source it
 * resolves (a video's, essay's or digest's title and date) and each related concept (title, draft).
 */
function conceptKey(snap: Snapshot, slug: string): string | null {
  const c = snap.conceptsBySlug.get(slug);
  if (!c) return null;
  const source = (s: (typeof c.sources)[number]) =>
    s.type === 'video' ? hashOf(snap, 'video', s.id) : s.type === 'essay' ? hashOf(snap, 'essay', s.id) : s.type === 'digest' ? hashOf(snap, 'digest', s.id) : '';
  return key([hashOf(snap, 'concept', slug), ...c.sources.map((s) => `s:${s.type}:${source(s)}`), ...c.related.map((r) => `r:${r}:${hashOf(snap, 'concept', r)}`)]);
}

/**
 * An essay's documents and pages in every language (getEssay, essayModel, the title card, the Markdown
 * twins): its translations' files and each video a translation names (id, url, title, language).
 */
function essayKey(snap: Snapshot, slug: string): string | null {
  const e = snap.essaysBySlug.get(slug);
  if (!e) return null;
  return key([hashOf(snap, 'essay', slug), ...e.languages.map((l) => e.translations[l]!.video ?? '').map((v) => (v ? `v:${v}:${hashOf(snap, 'video', v)}` : ''))]);
}

/** A digest's documents (getDigest, the title card, the Markdown twin): the digest file alone. */
function digestKey(snap: Snapshot, date: string): string | null {
  return snap.digestsByDate.has(date) ? key([hashOf(snap, 'digest', date)]) : null;
}

/** A digest's page (digestModel): its documents' inputs and the dates of the newer and older digest. */
function digestPageKey(snap: Snapshot, date: string): string | null {
  const i = digestPosition(snap, date);
  if (i < 0) return null;
  return key([hashOf(snap, 'digest', date), snap.digests[i - 1]?.date ?? '', snap.digests[i + 1]?.date ?? '']);
}

/**
 * A channel's documents and pages (getChannel, channelModel, the Markdown twins of every page of it): the
 * channel's file and each of its videos' (id and file, in the channel's order: a video's title, date,
 * summary or tags are in the lists, and a video that moves in or out moves the count and the pages). A run
 * that brings videos to a few channels keeps the other channels' documents (~500 at 100k videos).
 */
function channelKey(snap: Snapshot, id: string): string | null {
  if (!snap.channelsById.has(id)) return null;
  const videos = hashesOf(snap).video;
  const parts = [hashOf(snap, 'channel', id)];
  for (const v of snap.videosByChannel.get(id) ?? []) parts.push(`${v.video_id}:${videos.get(v.video_id) ?? '-'}`);
  return key(parts);
}

/**
 * A list of every item of one kind (`list:essays`, `list:digests`, `list:knowledge`: the list's JSON and its
 * Markdown twin): every file of that kind, by id, and for essays the videos their translations name (an
 * essay's item shows the video's url). A run of new videos keeps them (at 100k, ~50 MB of JSON and Markdown).
 */
function listKey(snap: Snapshot, kind: string): string | null {
  const h = hashesOf(snap);
  const parts = [kind];
  if (kind === 'essays') {
    for (const e of snap.essays) {
      parts.push(`${e.slug}:${h.essay.get(e.slug) ?? '-'}`);
      for (const l of e.languages) {
        const v = e.translations[l]?.video;
        if (v) parts.push(`v:${v}:${h.video.get(v) ?? '-'}`);
      }
    }
  } else if (kind === 'digests') for (const d of snap.digests) parts.push(`${d.date}:${h.digest.get(d.date) ?? '-'}`);
  else if (kind === 'knowledge') for (const c of snap.concepts) parts.push(`${c.slug}:${h.concept.get(c.slug) ?? '-'}`);
  else return null;
  return key(parts);
}

/**
 * The graph's documents (graphData, graphHtml: /api/graph/data and /api/graph): what graphStructure reads
 * and nothing more. Each concept's slug and draft flag, and a published one's title, sources, related
 * concepts and tags (its nodes and edges); the title of each video, essay and digest a published concept
 * cites (its label). A new video no concept cites, or an edit of a concept's or a cited essay's body, leaves
 * the graph as it was: the layout is ~1 s of an editor's change at 10k videos, and at 100k the structure,
 * the layout and the 70 MB of JSON are ~4 s of a run.
 */
function graphKey(snap: Snapshot): string {
  const parts: string[] = [];
  for (const c of snap.concepts) {
    if (c.draft) {
      parts.push(`c:${c.slug}:draft`);
      continue;
    }
    parts.push(`c:${c.slug}:${JSON.stringify([c.title, c.sources, c.related, c.tags])}`);
    for (const s of c.sources) {
      if (s.type === 'video') parts.push(`video:${s.id}:${snap.videosById.get(s.id)?.title ?? '-'}`);
      else if (s.type === 'essay') {
        const essay = snap.essaysBySlug.get(s.id);
        parts.push(`essay:${s.id}:${essay ? essayIn(essay).title : '-'}`);
      } else if (s.type === 'digest') parts.push(`digest:${s.id}:${snap.digestsByDate.get(s.id)?.title ?? '-'}`);
    }
  }
  return key(parts);
}

/**
 * The input key of a group of documents, or null when the group has none (its documents are always
 * recomputed). Groups: `video:<id>`, `concept:<slug>`, `essay:<slug>`, `digest:<date>`, `channel:<id>`
 * (documents and, but for digests, the pages of the same item), `digest-page:<date>`, `graph:data` (the
 * graph's two documents) and `list:<kind>` (a list's JSON and twin; its page is rendered with every run).
 */
export function inputKey(snap: Snapshot, group: string): string | null {
  const at = group.indexOf(':');
  const kind = group.slice(0, at);
  const id = group.slice(at + 1);
  switch (kind) {
    case 'video':
      return videoKey(snap, id);
    case 'concept':
      return conceptKey(snap, id);
    case 'essay':
      return essayKey(snap, id);
    case 'digest':
      return digestKey(snap, id);
    case 'digest-page':
      return digestPageKey(snap, id);
    case 'channel':
      return channelKey(snap, id);
    case 'list':
      return listKey(snap, id);
    case 'graph':
      return graphKey(snap);
    default:
      return null;
  }
}

/** The group whose key a page's model follows, by page key (src/lib/pages pageKey), or null. */
export function pageGroup(pageKey: string): string | null {
  if (pageKey.startsWith('video:') || pageKey.startsWith('concept:') || pageKey.startsWith('essay:')) return pageKey;
  // essay-translation:<lang>/<slug> (pageKey orders params by name)
  if (pageKey.startsWith('essay-translation:')) return `essay:${pageKey.slice(pageKey.indexOf('/') + 1)}`;
  if (pageKey.startsWith('digest:')) return `digest-page:${pageKey.slice('digest:'.length)}`;
  if (pageKey.startsWith('channel:')) return pageKey;
  // channel-page:<id>/<n>
  if (pageKey.startsWith('channel-page:')) return `channel:${pageKey.slice('channel-page:'.length, pageKey.lastIndexOf('/'))}`;
  return null;
}

/**
 * The keys of a build, computed once per group and recorded in the site manifest; `unchanged(group)` says
 * whether the previous build recorded the same key (for the same site settings). Given the previous build's
 * key record, a group none of whose inputs changed keeps its recorded key without computing it
 * (moved-keys.ts).
 */
export class InputKeys {
  readonly keys = new Map<string, string | null>();
  private readonly snap: Snapshot;
  private readonly previous: Record<string, string>;
  private readonly before: KeyRecord | undefined;
  private now: KeyRecord | undefined;
  private moved: MovedGroups | undefined;
  /** KB_CHECK_INPUT_KEYS=1 (read once: process.env is slow to read ~235k times). */
  private readonly check = process.env.KB_CHECK_INPUT_KEYS === '1';
  constructor(snap: Snapshot, previous: Record<string, string> = {}, before?: KeyRecord) {
    this.snap = snap;
    this.previous = previous;
    this.before = before;
  }
  /** Keys computed (not taken as recorded). */
  computed = 0;
  of(group: string): string | null {
    let k = this.keys.get(group);
    if (k === undefined) {
      this.keys.set(group, (k = inputKey(this.snap, group)));
      this.computed++;
    }
    return k;
  }
  /** unchanged()'s answer by group: a video's group is asked for by its page, JSON, card and twin. */
  private readonly verdicts = new Map<string, boolean>();
  unchanged(group: string): boolean {
    let same = this.verdicts.get(group);
    if (same === undefined) this.verdicts.set(group, (same = this.compare(group)));
    return same;
  }
  private compare(group: string): boolean {
    const was = this.previous[group];
    if (was !== undefined && !this.keys.has(group) && !this.mayHaveMoved(group)) {
      if (this.check && inputKey(this.snap, group) !== was) throw new Error(`the input key of ${group} moved, but no input of it changed`);
      this.keys.set(group, was);
      return true;
    }
    const k = this.of(group);
    return k !== null && was === k;
  }
  /** What this build records for the next one (moved-keys.ts). */
  keyRecord(): KeyRecord {
    return (this.now ??= keyRecord(this.snap));
  }
  private mayHaveMoved(group: string): boolean {
    if (!this.before) return true;
    const kind = group.slice(0, group.indexOf(':'));
    if (!COVERED_KINDS.has(kind)) return true;
    this.moved ??= movedGroups(this.snap, this.keyRecord(), this.before);
    return this.moved.all.has(kind) || this.moved.groups.has(group);
  }
  /** What the manifest records: every group asked for that has a key. */
  record(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [g, k] of this.keys) if (k !== null) out[g] = k;
    return out;
  }
}
