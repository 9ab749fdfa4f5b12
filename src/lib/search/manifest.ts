// The index manifest: what an index folder holds and what it was built from. The server compares it with
// the content snapshot and the configured embedder to decide whether the index on disk can be used.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ANALYSER_VERSION } from './analyse.ts';
import { docKey, type Field, type ItemType, type SearchDocument } from './documents.ts';
import { embedderMatches, type EmbedderInfo, type EmbedderSetting } from './embedders/embedder.ts';
import type { KeywordStats } from './keyword.ts';
import type { InputsRecord, SearchInputs } from './inputs.ts';
import { writeFileAtomic } from '../fs-atomic.ts';
import { applyChange, deltaFits, newBaseId, readJsonFile, recordChange, stringifyAscii, type RecordChange } from '../json-file.ts';

/** Bumped when the folder's layout or the meaning of a file changes. */
export const INDEX_FORMAT = 1;

export const INDEX_FILES = {
  manifest: 'manifest.json',
  keyword: 'keyword.json',
  vectors: 'vectors.f32',
  ids: 'ids.json',
} as const;

export interface IndexManifest {
  format: number;
  analyser: number;
  built_at: string;
  /** The content snapshot's hash (Snapshot.contentHash) the index serves (base and delta). */
  content_hash: string;
  /** Items the index serves now (base items, minus those deleted, plus new ones). */
  items: number;
  /** Items of the full build (the base); absent in indexes built before incremental updates. */
  base_items?: number;
  /** Present when a delta (delta.ts) brings the base up to content_hash: since the full build of `since`. */
  delta?: { since: string; updated_at: string; documents: number; removed: number };
  /** Vector rows: one per language version of an item. */
  rows: number;
  embedder: EmbedderInfo;
  keyword: KeywordStats & { boosts: Record<Field, number> };
  files: typeof INDEX_FILES & { embedder?: string[]; lexicon?: string };
  build_ms: number;
  /** Total size of the index's files, the manifest aside. */
  bytes: number;
}

/**
 * One row of ids.json and of vectors.f32. An item with several language versions owns consecutive rows;
 * its first row number is its document ref in the keyword index.
 */
export interface ItemRef {
  type: ItemType;
  id: string;
}

/**
 * The incremental update's files (delta.ts): the base's document hashes, the delta over the base, and each
 * current document's input key with its hash (search/inputs.ts), so an update builds only the documents
 * whose inputs moved; those keys as a base and a delta of what changed since it (readDocInputs).
 */
export const DELTA_FILES = { hashes: 'doc-hashes.json', delta: 'delta.json', inputs: 'doc-inputs.json', inputsDelta: 'doc-inputs.delta.json' } as const;

/** Per document key, its input key and the hash of the document those inputs gave. */
export type DocInputs = Record<string, [inputKey: string, hash: string]>;

/**
 * What a run records: the keyed documents (DocInputs) and what the next update needs to compute only the
 * keys that may have moved (inputs.ts, InputsRecord), always together, so that the two describe the same run.
 */
export interface DocInputsState {
  keys: DocInputs;
  record: InputsRecord;
}

/**
 * doc-inputs.json, the base: a run's DocInputsState whole, with an id that its delta names. Version 3 adds
 * the id and the delta (doc-inputs.delta.json: the entries of `keys`, `record.items` and `record.cites`
 * set or removed since the base, and the salt), so that an update writes what changed, not the whole
 * record again (~37 MB at 100k videos, ~0.6 s a run). Read too: version 2 (the same without an id, written
 * whole every run) and the first form (the DocInputs alone: keys without a record, every key is computed).
 * Code that reads version 2 alone reads a version-3 file as no keys (every key computed, none wrongly kept).
 */
export interface DocInputsFile extends DocInputsState {
  version: 3;
  id: string;
}

/** doc-inputs.delta.json: what changed since the base `base` (salt whole). */
export interface DocInputsDelta {
  version: 3;
  base: string;
  salt: string;
  keys: RecordChange<[string, string]>;
  items: RecordChange<string>;
  cites: RecordChange<string[]>;
}

/** What readDocInputs read: the keys and record, and the base (and delta) they came from, if any. */
export interface DocInputsRead {
  keys: DocInputs;
  record?: InputsRecord;
  /** The base's id and the delta applied to it: what writeDocInputs writes the next delta over. */
  base?: { id: string; delta: DocInputsDelta | null };
}

/** The record of keyed documents (those with an input key, with their hashes) and the inputs' record. */
export function docInputsOf(inputs: SearchInputs, hashOf: (key: string) => string | undefined): DocInputsState {
  const keys: DocInputs = {};
  for (const [key, input] of inputs.keys) {
    const h = input === null ? undefined : hashOf(key);
    if (input !== null && h !== undefined) keys[key] = [input, h];
  }
  return { keys, record: inputs.record };
}

/** The text of a new base (doc-inputs.json) holding `state`, with a new id. */
export function docInputsBaseText(state: DocInputsState): string {
  const file: DocInputsFile = { version: 3, id: newBaseId(), keys: state.keys, record: state.record };
  return stringifyAscii(file);
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isPair = (v: unknown): v is [string, string] => isStrings(v) && v.length === 2;

function isChange(v: unknown, entry: (x: unknown) => boolean): boolean {
  return isObject(v) && isObject(v.set) && isStrings(v.removed) && Object.values(v.set).every(entry);
}

function isInputsDelta(d: unknown): d is DocInputsDelta {
  return (
    isObject(d) &&
    d.version === 3 &&
    typeof d.base === 'string' &&
    typeof d.salt === 'string' &&
    isChange(d.keys, isPair) &&
    isChange(d.items, (x) => typeof x === 'string') &&
    isChange(d.cites, isStrings)
  );
}


/**
 * The keys and record in the index folder `dir`, as searchInputs takes them: the base with its delta applied.
 * Missing, unreadable or of another shape: no keys (every key is computed). A delta naming another base is
 * older than the base (written before it, the base's writer removes it after) and is ignored; none: the base
 * alone. A delta that cannot be read or has another shape may be this base's: no keys either (every key
 * computed: slower, and never a key kept wrongly).
 */
export function readDocInputs(dir: string): DocInputsRead {
  let raw: unknown;
  try {
    raw = readJsonFile(path.join(dir, DELTA_FILES.inputs));
  } catch {
    return { keys: {} };
  }
  if (!isObject(raw)) return { keys: {} };
  if (!('version' in raw)) return { keys: raw as DocInputs }; // the first form
  const { version, id, keys, record } = raw as { version: unknown; id?: unknown; keys?: unknown; record?: Partial<InputsRecord> };
  const usable = (version === 2 || (version === 3 && typeof id === 'string')) && isObject(keys) && isObject(record) && typeof record.salt === 'string' && isObject(record.items) && isObject(record.cites);
  if (!usable) return { keys: {} };
  const state = { keys: keys as DocInputs, record: record as InputsRecord };
  if (version === 2) return state; // written whole, with no delta: the next update writes a base
  let delta: unknown;
  try {
    delta = readJsonFile(path.join(dir, DELTA_FILES.inputsDelta));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? { ...state, base: { id: id as string, delta: null } } : { keys: {} };
  }
  if (!isInputsDelta(delta)) return { keys: {} };
  if (delta.base !== id) return { ...state, base: { id: id as string, delta: null } };
  applyChange(state.keys, delta.keys);
  applyChange(state.record.items, delta.items);
  applyChange(state.record.cites, delta.cites);
  state.record.salt = delta.salt;
  return { ...state, base: { id: id as string, delta } };
}

/**
 * Which entries of `keys` and `record.items` a run may have changed from the ones it read: those of the
 * documents `docs` (the others are the same), and how many documents it has. Without it every entry is
 * compared: 0.4-0.6 s over the ~428k entries of the two records at 100k videos, as long as writing them whole.
 */
export interface DocInputsChanges {
  docs: Iterable<string>;
  documents: number;
}

/**
 * Writes a run's keys and record to the index folder `dir`. Given what the run read (readDocInputs), only
 * what changed since its base is written, as the delta, unless that grew too large (deltaFits: past 1,000
 * entries and a tenth of all) or there is no base of this form to write it over, or the salt changed (every
 * key moved); then a new base, and the delta goes. Each file is written atomically. Returns which it wrote.
 */
export function writeDocInputs(dir: string, next: DocInputsState, prev: DocInputsRead, changes?: DocInputsChanges): 'delta' | 'base' {
  const { base, record } = prev;
  if (base && record && record.salt === next.record.salt) {
    const { delta, size, entries } = inputsDeltaOf(base.id, base.delta, { keys: prev.keys, record }, next, changes);
    if (deltaFits(size, entries)) {
      writeFileAtomic(path.join(dir, DELTA_FILES.inputsDelta), stringifyAscii(delta));
      return 'delta';
    }
  }
  writeFileAtomic(path.join(dir, DELTA_FILES.inputs), docInputsBaseText(next));
  // After the base: a reader between the two finds a delta naming the old base, and ignores it.
  fs.rmSync(path.join(dir, DELTA_FILES.inputsDelta), { force: true });
  return 'base';
}

/**
 * The delta from the base `id` to `next`: the one `prev` was read with (`had`), updated with what changed
 * from `prev` to `next`; its size (entries set or removed) and how many entries `next` has. `record.cites`
 * (one entry per citing item, most the same array as read) is compared whole.
 */
function inputsDeltaOf(id: string, had: DocInputsDelta | null, prev: DocInputsState, next: DocInputsState, changes: DocInputsChanges | undefined) {
  const samePair = (a: [string, string], b: [string, string]) => a[0] === b[0] && a[1] === b[1];
  const sameString = (a: string, b: string) => a === b;
  const docs = changes && new Set(changes.docs);
  const keys = docs ? changeAt(prev.keys, next.keys, had?.keys, samePair, docs) : recordChange(prev.keys, next.keys, had?.keys, samePair);
  const items = docs ? changeAt(prev.record.items, next.record.items, had?.items, sameString, docs) : recordChange(prev.record.items, next.record.items, had?.items, sameString);
  if (docs && process.env.KB_CHECK_INPUT_KEYS === '1') {
    // The tests: every entry compared too, and a change the documents named missed throws.
    const whole = { keys: recordChange(prev.keys, next.keys, had?.keys, samePair).change, items: recordChange(prev.record.items, next.record.items, had?.items, sameString).change };
    if (!sameChange(keys.change, whole.keys, samePair) || !sameChange(items.change, whole.items, sameString)) throw new Error('doc-inputs: an entry changed outside the documents the run named');
  }
  const cites = recordChange(prev.record.cites, next.record.cites, had?.cites, sameStrings);
  const delta: DocInputsDelta = { version: 3, base: id, salt: next.record.salt, keys: keys.change, items: items.change, cites: cites.change };
  const size = [keys, items, cites].reduce((n, c) => n + Object.keys(c.change.set).length + c.change.removed.length, 0);
  const entries = (changes ? 2 * changes.documents : keys.entries + items.entries) + cites.entries;
  return { delta, size, entries };
}

/** recordChange where `before` and `after` can differ at the keys `at` alone. */
function changeAt<T>(before: Record<string, T>, after: Record<string, T>, had: RecordChange<T> | undefined, same: (a: T, b: T) => boolean, at: Iterable<string>): { change: RecordChange<T>; entries: number } {
  const set: Record<string, T> = { ...had?.set };
  const removed = new Set(had?.removed);
  for (const k of at) {
    const was = Object.hasOwn(before, k) ? before[k] : undefined;
    const now = Object.hasOwn(after, k) ? after[k] : undefined;
    if (now === undefined) {
      if (was === undefined) continue;
      delete set[k];
      removed.add(k);
    } else if (was === undefined || !same(was, now)) {
      set[k] = now;
      removed.delete(k);
    }
  }
  return { change: { set, removed: [...removed] }, entries: 0 };
}

function sameChange<T>(a: RecordChange<T>, b: RecordChange<T>, same: (a: T, b: T) => boolean): boolean {
  const keys = Object.keys(a.set);
  if (keys.length !== Object.keys(b.set).length || keys.some((k) => !Object.hasOwn(b.set, k) || !same(a.set[k], b.set[k]))) return false;
  const removed = new Set(b.removed);
  return a.removed.length === removed.size && a.removed.every((k) => removed.has(k));
}

function sameStrings(a: string[], b: string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function documentHash(doc: SearchDocument): string {
  return createHash('sha256').update(JSON.stringify(doc)).digest('base64url');
}

export function documentHashes(docs: readonly SearchDocument[]): Record<string, string> {
  return Object.fromEntries(docs.map((d) => [docKey(d.type, d.id), documentHash(d)]));
}

export function indexDir(dataDir: string): string {
  return path.join(dataDir, 'index');
}

export function readManifest(dir: string): IndexManifest | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, INDEX_FILES.manifest), 'utf8')) as IndexManifest;
  } catch {
    return null;
  }
}

/** readManifest without blocking the event loop (a running server preparing a reload). */
export async function readManifestAsync(dir: string): Promise<IndexManifest | null> {
  try {
    return JSON.parse(await fs.promises.readFile(path.join(dir, INDEX_FILES.manifest), 'utf8')) as IndexManifest;
  } catch {
    return null;
  }
}

/** Why the index in `dir` cannot serve this content and embedder, or null when it can. */
export function staleReason(manifest: IndexManifest | null, contentHash: string, setting: EmbedderSetting): string | null {
  if (!manifest) return 'no index yet';
  if (manifest.format !== INDEX_FORMAT || manifest.analyser !== ANALYSER_VERSION) return 'the index format changed';
  if (manifest.content_hash !== contentHash) return 'content changed since the index was built';
  if (!embedderMatches(manifest.embedder, setting)) return `the embedder changed (${manifest.embedder.name} ${manifest.embedder.model} → ${setting.provider === 'builtin' ? 'builtin lsa' : `transformers ${setting.model}`})`;
  if (setting.provider === 'builtin' && manifest.embedder.dimension > setting.dimensions) return 'EMBEDDING_DIMENSIONS changed';
  return null;
}
