// What each search document reads, as a key, so that update-index builds only the documents whose inputs
// changed instead of all of them (at 100k videos ~4 s to build and ~1.5 s to hash 209k documents, to find
// the few hundred a run changed). A document is its item's own file(s) (a video's, an essay's
// translations, a digest's, a concept's) plus what other items say of it: the passages of the essays,
// digests, published concepts and personas that link to it (documents.ts, citations). So its key is the
// hash of its own file, of every item that may cite it (with that item's file hash), and of the code that
// turns them into a document (documents.ts and the language guess in analyse.ts): a change to any of these
// moves the key. `cites` is a superset of what the passages cite (a passage citing more than three items
// is dropped there, kept here), which can only make a key move more often, never less.
// test/search/delta-keys.test.ts changes each kind of input alone and checks the delta against one
// computed from every document.
import fs from 'node:fs';
import { hash } from 'node:crypto';
import type { Snapshot } from '../content/model.ts';
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
}

/** The items each citing item may cite (a superset of its passages' citations), by the citing item's docKey. */
function citations(snap: Snapshot): Map<string, string[]> {
  const cites = new Map<string, string[]>();
  for (const e of snap.essays) cites.set(docKey('essay', e.slug), e.languages.flatMap((l) => siteLinks(e.translations[l]!.body)));
  for (const d of snap.digests) cites.set(docKey('digest', d.date), d.items.flatMap((i) => i.sources.map((s) => docKey('video', s.video_id))));
  for (const c of snap.concepts) if (!c.draft) cites.set(docKey('knowledge', c.slug), siteLinks(c.body));
  for (const p of snap.personas) cites.set(docKey('persona', p.persona_id), siteLinks(p.body));
  return cites;
}

export function searchInputs(snap: Snapshot): SearchInputs {
  const salt = documentsCode();
  const own = (key: string): string | undefined => {
    const at = key.indexOf(':');
    const type = key.slice(0, at);
    return snap.itemHashes.get(`${type === 'knowledge' ? 'concept' : type}:${key.slice(at + 1)}`);
  };
  const citedBy = new Map<string, string[]>();
  for (const [from, cited] of citations(snap)) {
    for (const key of new Set(cited)) {
      const list = citedBy.get(key);
      if (list) list.push(from);
      else citedBy.set(key, [from]);
    }
  }
  const keys = new Map<string, string | null>();
  const add = (key: string) => {
    const sha = own(key);
    if (sha === undefined) return keys.set(key, null); // personas: a handful, always built
    const by = citedBy.get(key) ?? [];
    keys.set(key, hash('sha1', [salt, key, sha, ...by.map((c) => `${c}=${own(c) ?? '-'}`)].join('\n'), 'base64url'));
  };
  for (const v of snap.videos) add(docKey('video', v.video_id));
  for (const e of snap.essays) add(docKey('essay', e.slug));
  for (const d of snap.digests) add(docKey('digest', d.date));
  for (const c of snap.concepts) add(docKey('knowledge', c.slug));
  for (const p of snap.personas) add(docKey('persona', p.persona_id));
  return { keys, citedBy };
}
