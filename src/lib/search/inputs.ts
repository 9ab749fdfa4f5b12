// What each search document reads, as a key, so that update-index builds only the documents whose inputs
// changed instead of all of them (at 100k videos ~4 s to build and ~1.5 s to hash 209k documents, to find
// the few hundred a run changed). A document is its item's own file(s) (a video's, an essay's
// translations, a digest's, a concept's) plus what other items say of it: the passages of the essays,
// digests, published concepts and personas that link to it (documents.ts, citations). So its key is the
// hash of its own file, of every item that may cite it (with that item's file hash), and of the code that
// turns them into a document (documents.ts and the language guess in analyse.ts): a change to any of these
// moves the key. `cites` is a superset of what the passages cite (a passage citing more than three items
// is dropped there, kept here), which can only make a key move more often, never less.
// Computing every key took ~3 s of each run at 100k videos, so a run records beside them what tells which
// may have moved (InputsRecord) and the next computes only those. test/search/delta-keys.test.ts changes
// each kind of input alone and checks the delta against one computed from every document.
import fs from 'node:fs';
import { hash } from 'node:crypto';
import type { Snapshot } from '../content/model.ts';
import { shortItemHash } from '../content/assemble.ts';
import { docKey, siteLinks } from './documents.ts';

/** The code a document is made by: a change to it moves every key (read once per process). */
let codeHash: string | undefined;
function documentsCode(): string {
  if (codeHash === undefined) {
    try {
      codeHash = hash('sha256', ['./documents.ts', './analyse.ts', './slovenian.ts'].map((f) => fs.readFileSync(new URL(f, import.meta.url), 'utf8')).join('\0'), 'base64url');
    } catch {
      codeHash = `unreadable-${Date.now()}-${Math.random()}`; // never equal to a recorded key: every document is built
    }
  }
  return codeHash;
}

export interface SearchInputs {
  /** Each document's key (docKey) and input key; null: no key (built every time). */
  keys: Map<string, string | null>;
  /** The items that may cite a document, by document. */
  citedBy: Map<string, string[]>;
  /** What the next run needs to take these keys as they are (recorded with them in doc-inputs.json). */
  record: InputsRecord;
  /** Input keys computed, not taken as recorded (for the log and the tests). */
  computed: number;
  /**
   * The documents whose item changed, came or went since the record given: `record.items` differs from it
   * there alone. Null without a record of the same code (every key computed).
   */
  changed: ReadonlySet<string> | null;
}

/**
 * What a run records beside the input keys so that the next one computes only the keys that may have
 * moved: at 100k videos computing all ~213k took ~3 s of every run, to find the few hundred that moved.
 * A document's key reads its own item's file hash and those of the items that may cite it, and an item's
 * citations come from its own file. So a key may have moved only when its item changed (its hash, or it
 * came or went), or when an item that cites it now, or cited it before, did; the other keys are as recorded.
 */
export interface InputsRecord {
  /** documentsCode() of the run: other code moves every key. */
  salt: string;
  /** Each document's item hash, shortened (shortItemHash). */
  items: Record<string, string>;
  /** What each citing item may cite, by its docKey. */
  cites: Record<string, string[]>;
}

/** The citing items: their docKey, and what they may cite (a superset of their passages' citations) when asked. */
function* citers(snap: Snapshot): Generator<[string, () => string[]]> {
  for (const e of snap.essays) yield [docKey('essay', e.slug), () => e.languages.flatMap((l) => siteLinks(e.translations[l]!.body))];
  for (const d of snap.digests) yield [docKey('digest', d.date), () => d.items.flatMap((i) => i.sources.map((s) => docKey('video', s.video_id)))];
  for (const c of snap.concepts) if (!c.draft) yield [docKey('knowledge', c.slug), () => siteLinks(c.body)];
  for (const p of snap.personas) yield [docKey('persona', p.persona_id), () => siteLinks(p.body)];
}

/** Every document's key, in the order of the documents (documentsFromSnapshot's). */
function documentKeys(snap: Snapshot): string[] {
  return [
    ...snap.videos.map((v) => docKey('video', v.video_id)),
    ...snap.essays.map((e) => docKey('essay', e.slug)),
    ...snap.digests.map((d) => docKey('digest', d.date)),
    ...snap.concepts.map((c) => docKey('knowledge', c.slug)),
    ...snap.personas.map((p) => docKey('persona', p.persona_id)),
  ];
}

/** The documents whose key may differ from the recorded one (InputsRecord), and each citing item's citations (the recorded ones where its file is the same). */
function movedSince(snap: Snapshot, docs: readonly string[], items: Record<string, string>, was: InputsRecord | undefined) {
  // The items that changed, came or went (one without a hash, every time).
  const changed = new Set<string>();
  if (was) {
    for (const key of docs) if (items[key] === undefined || items[key] !== was.items[key]) changed.add(key);
    for (const key in was.items) if (items[key] === undefined) changed.add(key);
  }
  const moved = new Set(changed);
  const cites: Record<string, string[]> = {};
  for (const [from, cited] of citers(snap)) {
    cites[from] = (was && !changed.has(from) ? was.cites[from] : undefined) ?? cited();
    if (was && changed.has(from)) for (const key of cites[from]) moved.add(key);
  }
  if (was) for (const from of changed) for (const key of was.cites[from] ?? []) moved.add(key);
  return { moved: was ? moved : null, changed: was ? changed : null, cites };
}

/**
 * The input key of every document. Given the previous run's record and keys (`before`), a document whose key
 * cannot have moved (InputsRecord) takes its recorded key; with KB_CHECK_INPUT_KEYS=1 it is computed anyway
 * and a difference throws (the tests run with it).
 */
export function searchInputs(snap: Snapshot, before?: { record: InputsRecord; key: (doc: string) => string | undefined }): SearchInputs {
  const salt = documentsCode();
  // A document's key is its item's (`video:<id>` …) but for a concept's (`knowledge:<slug>`, item `concept:<slug>`).
  const own = (key: string): string | undefined => snap.itemHashes.get(key.startsWith('knowledge:') ? `concept:${key.slice(10)}` : key);
  const docs = documentKeys(snap);
  const items: Record<string, string> = {};
  for (const key of docs) {
    const sha = own(key);
    if (sha !== undefined) items[key] = shortItemHash(sha);
  }
  const was = before?.record.salt === salt ? before : undefined;
  const { moved, changed, cites } = movedSince(snap, docs, items, was?.record);
  const citedBy = new Map<string, string[]>();
  for (const from in cites) {
    for (const key of new Set(cites[from])) {
      const list = citedBy.get(key);
      if (list) list.push(from);
      else citedBy.set(key, [from]);
    }
  }
  const keyOf = (key: string): string | null => {
    const sha = own(key);
    if (sha === undefined) return null; // an item without a file hash: built every time
    const by = citedBy.get(key) ?? [];
    return hash('sha1', [salt, key, sha, ...by.map((c) => `${c}=${own(c) ?? '-'}`)].join('\n'), 'base64url');
  };
  const check = process.env.KB_CHECK_INPUT_KEYS === '1';
  const keys = new Map<string, string | null>();
  let computed = 0;
  for (const key of docs) {
    const recorded = was && moved && !moved.has(key) ? was.key(key) : undefined;
    if (recorded === undefined) {
      keys.set(key, keyOf(key));
      computed++;
      continue;
    }
    if (check && keyOf(key) !== recorded) throw new Error(`the search input key of ${key} moved, but no input of it changed`);
    keys.set(key, recorded);
  }
  return { keys, citedBy, record: { salt, items, cites }, computed, changed };
}
