// Query translation between English and Slovenian, learnt from the corpus itself: a translation lexicon
// trained with IBM Model 1 (Brown et al. 1993) on the passages that say the same thing in both languages,
// the paragraphs of translated essays side by side and an item's head next to what other items say of it
// in the other language (see SearchDocument.citations). A query's words then also stand for their likely
// translations, weighted by probability: a Slovenian question meets English texts on its subject and an
// English one Slovenian texts (dictionary-based CLIR with probabilistic structured queries, Darwish &
// Oard 2003). Built with the index (lexicon.json); small, because only confident translations are kept.
import fs from 'node:fs';
import path from 'node:path';
import { analyse, TEXT_LANGS, type TextLang } from './analyse.ts';
import { FIELDS, type SearchDocument } from './documents.ts';

export const LEXICON_FILE = 'lexicon.json';

/** Pairs Model 1 is trained on at most (from a deterministic sample of documents): build time stays flat. */
const MAX_PAIRS = 2000;
/** Terms per side of a pair: Model 1's work per pair grows with the product of both sides. */
const MAX_PAIR_TERMS = 80;
const ITERATIONS = 8;
/** A translation is kept when it is at least this likely, and its source term was seen in this many pairs. */
const MIN_PROBABILITY = 0.2;
const MIN_SOURCE_PAIRS = 2;
/** Translations kept per term. */
const MAX_TRANSLATIONS = 2;

/** term → its likely translations in the other language, most likely first, with P(translation | term). */
export type Translations = Map<string, [string, number][]>;
export type Lexicon = Record<TextLang, Translations>;

interface Pair {
  en: string[];
  sl: string[];
}

const termsIn = (parts: readonly { text: string; lang: TextLang }[], lang: TextLang) => parts.filter((p) => p.lang === lang).flatMap((p) => analyse(p.text, lang));

/** The passages of a document that hold one text in both languages. */
export function parallelPassages(doc: SearchDocument): Pair[] {
  const out: Pair[] = [];
  const langs = new Set(FIELDS.flatMap((f) => (f === 'tags' ? [] : doc.fields[f].map((p) => p.lang))));
  if (langs.size === 2) {
    for (const f of ['title', 'summary'] as const) out.push({ en: termsIn(doc.fields[f], 'en'), sl: termsIn(doc.fields[f], 'sl') });
    const en = doc.fields.body.filter((p) => p.lang === 'en').map((p) => p.text.split(/\n\s*\n/));
    const sl = doc.fields.body.filter((p) => p.lang === 'sl').map((p) => p.text.split(/\n\s*\n/));
    // Translations keep the paragraphs: when both versions have as many, the n-th translates the n-th.
    if (en.length === 1 && sl.length === 1 && en[0].length === sl[0].length) en[0].forEach((x, i) => out.push({ en: analyse(x, 'en'), sl: analyse(sl[0][i], 'sl') }));
  } else if (langs.size === 1 && doc.citations?.length) {
    const [own] = langs as Set<TextLang>;
    const head = [...doc.fields.title, ...doc.fields.summary].flatMap((p) => analyse(p.text, p.lang));
    for (const c of doc.citations) {
      if (c.lang === own) continue;
      const cited = analyse(c.text, c.lang);
      out.push(own === 'en' ? { en: head, sl: cited } : { en: cited, sl: head });
    }
  }
  return out.filter((p) => p.en.length > 0 && p.sl.length > 0).map((p) => ({ en: p.en.slice(0, MAX_PAIR_TERMS), sl: p.sl.slice(0, MAX_PAIR_TERMS) }));
}

/**
 * IBM Model 1: P(target term | source term) by expectation maximisation over the pairs, with a null source
 * word that absorbs target words nothing translates. Every (source, target) pair of terms that meet in a
 * pair of passages gets one slot; each passage pair is a list of slots, so the iterations run over typed
 * arrays.
 */
function model1(pairs: readonly Pair[], from: TextLang, to: TextLang): Translations {
  const ids = new Map<string, number>();
  const names: string[] = [];
  const id = (t: string) => {
    let i = ids.get(t);
    if (i === undefined) ids.set(t, (i = names.push(t) - 1));
    return i;
  };
  const NULL = id('\0');
  const slotOf = new Map<number, number>();
  const slotSource: number[] = [];
  const slotTarget: number[] = [];
  const layout = pairs.map((p) => {
    const src = [NULL, ...[...new Set(p[from])].map(id)];
    const tgt = p[to].map(id);
    const slots = new Int32Array(src.length * tgt.length);
    tgt.forEach((e, j) => {
      src.forEach((s, i) => {
        const key = s * 1_048_576 + e;
        let slot = slotOf.get(key);
        if (slot === undefined) {
          slotOf.set(key, (slot = slotSource.length));
          slotSource.push(s);
          slotTarget.push(e);
        }
        slots[j * src.length + i] = slot;
      });
    });
    return { width: src.length, slots };
  });
  const t = new Float64Array(slotSource.length).fill(1);
  const count = new Float64Array(slotSource.length);
  const total = new Float64Array(names.length);
  for (let it = 0; it < ITERATIONS; it++) {
    count.fill(0);
    total.fill(0);
    for (const { width, slots } of layout) {
      for (let o = 0; o < slots.length; o += width) {
        let z = 0;
        for (let i = 0; i < width; i++) z += t[slots[o + i]];
        for (let i = 0; i < width; i++) {
          const slot = slots[o + i];
          const c = t[slot] / z;
          count[slot] += c;
          total[slotSource[slot]] += c;
        }
      }
    }
    for (let slot = 0; slot < t.length; slot++) t[slot] = count[slot] / total[slotSource[slot]];
  }
  const seen = new Int32Array(names.length);
  for (const p of pairs) for (const s of new Set(p[from])) seen[ids.get(s)!]++;
  const best = new Map<number, [number, number][]>();
  for (let slot = 0; slot < t.length; slot++) {
    const s = slotSource[slot];
    if (s === NULL || seen[s] < MIN_SOURCE_PAIRS || !(t[slot] >= MIN_PROBABILITY)) continue;
    best.set(s, [...(best.get(s) ?? []), [slotTarget[slot], t[slot]]]);
  }
  const out: Translations = new Map();
  for (const [s, list] of [...best].sort((a, b) => (names[a[0]] < names[b[0]] ? -1 : 1))) {
    list.sort((a, b) => b[1] - a[1] || (names[a[0]] < names[b[0]] ? -1 : 1));
    out.set(names[s], list.slice(0, MAX_TRANSLATIONS).map(([e, p]): [string, number] => [names[e], Math.round(p * 1000) / 1000]));
  }
  return out;
}

/** A deterministic sample: the same corpus always trains the same lexicon. */
function sample<T>(xs: T[], n: number): T[] {
  if (xs.length <= n) return xs;
  const step = xs.length / n;
  return Array.from({ length: n }, (_, i) => xs[Math.floor(i * step)]);
}

/** Whether a document holds any text in both languages (its own, or others' words about it). */
function isParallel(doc: SearchDocument): boolean {
  const langs = new Set(FIELDS.flatMap((f) => (f === 'tags' ? [] : doc.fields[f].map((p) => p.lang))));
  return langs.size === 2 || (langs.size === 1 && (doc.citations ?? []).some((c) => !langs.has(c.lang)));
}

/** Trains the lexicon of both directions on the documents to be indexed. */
export function trainLexicon(docs: readonly SearchDocument[]): Lexicon {
  // Documents are sampled before their passages are analysed; a translated essay gives ~15 pairs.
  const pairs = sample(docs.filter(isParallel), MAX_PAIRS / 2).flatMap(parallelPassages).slice(0, MAX_PAIRS);
  return { sl: model1(pairs, 'sl', 'en'), en: model1(pairs, 'en', 'sl') };
}

export function saveLexicon(dir: string, lexicon: Lexicon): void {
  const json = Object.fromEntries(TEXT_LANGS.map((l) => [l, Object.fromEntries(lexicon[l])]));
  fs.writeFileSync(path.join(dir, LEXICON_FILE), JSON.stringify(json));
}

/** The lexicon saved beside an index, or null for an index built without one. */
export function loadLexicon(dir: string): Lexicon | null {
  try {
    const json = JSON.parse(fs.readFileSync(path.join(dir, LEXICON_FILE), 'utf8')) as Record<TextLang, Record<string, [string, number][]>>;
    return { en: new Map(Object.entries(json.en ?? {})), sl: new Map(Object.entries(json.sl ?? {})) };
  } catch {
    return null;
  }
}
