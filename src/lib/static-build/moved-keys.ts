// Which input keys (inputs.ts) may have moved since the previous build, found from the files that changed
// instead of by computing all of them: at 100k videos a run computed ~235k keys to find the ~300 that
// moved (~4 s). A build records, beside the keys, each item's file hash and which videos each digest and
// published concept cites (`key_record` in dist/site-manifest.json); the next build compares the item
// hashes and walks the relations backwards. Relations an item's own file defines (a concept's sources,
// an essay's videos, a video's channel) need only the current snapshot: when they changed, so did that file
// and with it the item's own key. Relations other files define (the digests and concepts citing a video)
// need the previous build's too: a digest that stopped citing a video moves that video's key.
//
// Only the per-item kinds are covered (video, concept, essay, digest, digest-page): the few keys of other
// groups (channels, lists, the graph) are always computed. With KB_CHECK_INPUT_KEYS=1 every key taken as
// unmoved is computed anyway and a difference throws (the incremental tests run with it).
import { hash } from 'node:crypto';
import type { Snapshot } from '../content/model.ts';

/** What a build records of its snapshot for the next one. */
export interface KeyRecord {
  /** Each item's file hash (`video:<id>` …), shortened: what tells whether the item changed. */
  items: Record<string, string>;
  /** The videos each digest (`digest:<date>`) and each published concept (`concept:<slug>`) cites. */
  cites: Record<string, string[]>;
}

/** The kinds of group movedGroups answers for. */
export const PER_ITEM_KINDS = new Set(['video', 'concept', 'essay', 'digest', 'digest-page']);

// 96 bits of the item's SHA-256(s): a change that keeps them is not a concern for telling builds apart.
const short = (sha: string) => hash('sha1', sha, 'base64url').slice(0, 16);

export function keyRecord(snap: Snapshot): KeyRecord {
  const items: Record<string, string> = {};
  for (const [item, sha] of snap.itemHashes) items[item] = short(sha);
  const cites: Record<string, string[]> = {};
  for (const [video, digests] of snap.digestsByVideo) for (const d of digests) (cites[`digest:${d.date}`] ??= []).push(video);
  for (const [video, concepts] of snap.conceptsByVideo) for (const c of concepts) (cites[`concept:${c.slug}`] ??= []).push(video);
  return { items, cites };
}

export interface MovedGroups {
  /** Per-item groups whose key may differ from the previous build's. */
  groups: Set<string>;
  /** Kinds whose every group may have moved (digest pages when a digest came or went: neighbours shift). */
  all: Set<string>;
}

export function movedGroups(snap: Snapshot, now: KeyRecord, before: KeyRecord): MovedGroups {
  const changed: Record<string, Set<string>> = { video: new Set(), channel: new Set(), digest: new Set(), concept: new Set(), essay: new Set() };
  let digestsCameOrWent = false;
  const note = (item: string, cameOrWent: boolean) => {
    const at = item.indexOf(':');
    const kind = item.slice(0, at);
    changed[kind]?.add(item.slice(at + 1));
    if (kind === 'digest' && cameOrWent) digestsCameOrWent = true;
  };
  for (const item in now.items) if (before.items[item] !== now.items[item]) note(item, !(item in before.items));
  for (const item in before.items) if (!(item in now.items)) note(item, true);

  const groups = new Set<string>();
  // A video: its file, its channel's, the digests and published concepts citing it (now or before).
  for (const v of changed.video) groups.add(`video:${v}`);
  for (const ch of changed.channel) for (const v of snap.videosByChannel.get(ch) ?? []) groups.add(`video:${v.video_id}`);
  for (const kind of ['digest', 'concept']) {
    for (const id of changed[kind]) for (const record of [now, before]) for (const v of record.cites[`${kind}:${id}`] ?? []) groups.add(`video:${v}`);
  }
  // A concept: its file, its sources' and its related concepts'.
  const sourceChanged = (s: { type: string; id?: string }) => s.id !== undefined && (s.type === 'video' || s.type === 'essay' || s.type === 'digest') && changed[s.type].has(s.id);
  for (const c of snap.concepts) {
    if (changed.concept.has(c.slug) || c.sources.some(sourceChanged) || c.related.some((r) => changed.concept.has(r))) groups.add(`concept:${c.slug}`);
  }
  // An essay: its translations' files and the videos they name.
  for (const e of snap.essays) {
    if (changed.essay.has(e.slug) || e.languages.some((l) => changed.video.has(e.translations[l]?.video ?? ''))) groups.add(`essay:${e.slug}`);
  }
  // A digest: its file; its page also its neighbours' dates.
  for (const d of changed.digest) groups.add(`digest:${d}`).add(`digest-page:${d}`);
  return { groups, all: new Set(digestsCameOrWent ? ['digest-page'] : []) };
}
