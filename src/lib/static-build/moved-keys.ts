// Which input keys (inputs.ts) may have moved since the previous build, found from the files that changed
// instead of by computing all of them: at 100k videos a run computed ~235k keys to find the ~300 that
// moved (~4 s). A build records, beside the keys, each item's file hash and which videos each digest and
// published concept cites (`key_record` in dist/site-manifest.json); the next build compares the item
// hashes and walks the relations backwards. A relation matters in the direction a key reads it: a
// concept's key reads its sources, which its own file names, so when they change so does that file and with
// it the concept's key (the current snapshot is enough). A video's key reads the digests and concepts that
// cite it, and a channel's the videos naming it: those relations are in other files, so the previous
// build's are needed too (a digest that stopped citing a video moves that video's key; a video that moved
// to another channel moves the one it left).
//
// Every kind of group is covered (video, concept, essay, digest, digest-page, channel, list, graph). With
// KB_CHECK_INPUT_KEYS=1 every key taken as unmoved is computed anyway and a difference throws (the tests
// run with it).
import { shortItemHash } from '../content/assemble.ts';
import type { Snapshot } from '../content/model.ts';

/** What a build records of its snapshot for the next one. */
export interface KeyRecord {
  /** Each item's file hash (`video:<id>` …), shortened: what tells whether the item changed. */
  items: Record<string, string>;
  /**
   * Relations other files define: the videos each digest (`digest:<date>`) and each published concept
   * (`concept:<slug>`) cites, and the videos of each channel (`channel:<id>`: a video names its channel).
   */
  cites: Record<string, string[]>;
}

/** The kinds of group movedGroups answers for. */
export const COVERED_KINDS = new Set(['video', 'concept', 'essay', 'digest', 'digest-page', 'channel', 'list', 'graph']);

export function keyRecord(snap: Snapshot): KeyRecord {
  const items: Record<string, string> = {};
  for (const [item, sha] of snap.itemHashes) items[item] = shortItemHash(sha);
  const cites: Record<string, string[]> = {};
  for (const [video, digests] of snap.digestsByVideo) for (const d of digests) (cites[`digest:${d.date}`] ??= []).push(video);
  for (const [video, concepts] of snap.conceptsByVideo) for (const c of concepts) (cites[`concept:${c.slug}`] ??= []).push(video);
  for (const [channel, videos] of snap.videosByChannel) cites[`channel:${channel}`] = videos.map((v) => v.video_id);
  return { items, cites };
}

export interface MovedGroups {
  /** Groups whose key may differ from the previous build's. */
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
  for (const [item, sha] of snap.itemHashes) {
    const was = before.items[item];
    if (was !== shortItemHash(sha)) note(item, was === undefined);
  }
  for (const item in before.items) if (!snap.itemHashes.has(item)) note(item, true);

  const groups = new Set<string>();
  const citedBy = (rel: string) => [...(now.cites[rel] ?? []), ...(before.cites[rel] ?? [])];
  // A video: its file, its channel's, the digests and published concepts citing it (now or before).
  for (const v of changed.video) groups.add(`video:${v}`);
  for (const ch of changed.channel) for (const v of snap.videosByChannel.get(ch) ?? []) groups.add(`video:${v.video_id}`);
  for (const kind of ['digest', 'concept']) for (const id of changed[kind]) for (const v of citedBy(`${kind}:${id}`)) groups.add(`video:${v}`);
  // A channel: its file and its videos' (those it has now and had before).
  for (const c of snap.channels) {
    const rel = `channel:${c.channel_id}`;
    if (changed.channel.has(c.channel_id) || citedBy(rel).some((v) => changed.video.has(v))) groups.add(rel);
  }
  // A concept: its file, its sources' and its related concepts'.
  const sourceChanged = (s: { type: string; id?: string }) => s.id !== undefined && (s.type === 'video' || s.type === 'essay' || s.type === 'digest') && changed[s.type].has(s.id);
  for (const c of snap.concepts) {
    if (changed.concept.has(c.slug) || c.sources.some(sourceChanged) || c.related.some((r) => changed.concept.has(r))) groups.add(`concept:${c.slug}`);
  }
  // An essay: its translations' files and the videos they name; the list of essays, every essay's.
  for (const e of snap.essays) {
    if (changed.essay.has(e.slug) || e.languages.some((l) => changed.video.has(e.translations[l]?.video ?? ''))) groups.add(`essay:${e.slug}`).add('list:essays');
  }
  if (changed.essay.size) groups.add('list:essays');
  // A digest: its file; its page also its neighbours' dates; the list, every digest's.
  for (const d of changed.digest) groups.add(`digest:${d}`).add(`digest-page:${d}`).add('list:digests');
  if (changed.concept.size) groups.add('list:knowledge');
  // The graph: every concept's file and those of what published concepts cite (a concept that stopped
  // citing something changed itself).
  const citedByPublished = () => snap.concepts.some((c) => !c.draft && c.sources.some(sourceChanged));
  if (changed.concept.size || [...changed.video].some((v) => snap.conceptsByVideo.get(v)?.length) || ((changed.essay.size || changed.digest.size) && citedByPublished())) groups.add('graph:data');
  return { groups, all: new Set(digestsCameOrWent ? ['digest-page'] : []) };
}
