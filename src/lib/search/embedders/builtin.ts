// The builtin offline embedder: latent semantic analysis trained on the corpus when the index is built.
// Passages of every item form a TF-IDF matrix; its truncated SVD gives each term coordinates in a space of
// a few hundred "topics" where words that occur in the same contexts lie close ("reskilling" near
// "training", "uvajalec" near "deployer" through the bilingual essays). A text's vector is the TF-IDF
// weighted sum of its terms' coordinates. Needs no model files and no network; used when no transformer
// model is configured or available.
import fs from 'node:fs';
import path from 'node:path';
import { analyse, analyseQuery, queryLanguages, wordsOf, type TextLang } from '../analyse.ts';
import { FIELDS, languageVersions, type SearchDocument, type TextPart } from '../documents.ts';
import { normalise, type Embedder, type EmbedderInfo } from './embedder.ts';
import { truncatedSvd, type Csr, type TruncatedSvd } from './svd.ts';
import { truncatedSvdInThread } from './svd-thread.ts';

export const DEFAULT_BUILTIN_DIMENSIONS = 128;

/** Bounds that keep training time and model size flat on large corpora. */
const MAX_TRAINING_PASSAGES = 24_000;
const MAX_VOCABULARY = 40_000;
/** Documents whose mean makes a language's centre: a mean settles long before a large corpus ends. */
const CENTRE_SAMPLE = 3000;
/** Passages are cut to about this many terms: short enough to be about one thing. */
const PASSAGE_TERMS = 60;

/** How much a field's words count in a document's vector: titles and tags say what an item is about. */
const FIELD_WEIGHT = { title: 3, tags: 2, summary: 1.5, body: 1 } as const;

interface Model {
  vocabulary: string[];
  idf: Float32Array;
  /** vocabulary × dimension, row-major. */
  projection: Float32Array;
  dimension: number;
  /** The mean vector of each language's documents, taken off every vector of that language (see centre). */
  centres?: Partial<Record<TextLang, Float32Array>>;
}

/** The language most of a document's words are in (its tags aside, which are English everywhere). */
function documentLanguage(doc: SearchDocument): TextLang {
  const count: Record<TextLang, number> = { en: 0, sl: 0 };
  for (const f of FIELDS) if (f !== 'tags') for (const p of doc.fields[f]) count[p.lang] += p.text.length;
  for (const p of doc.citations ?? []) count[p.lang] += p.text.length;
  return count.sl > count.en ? 'sl' : 'en';
}

function termsOf(parts: readonly TextPart[]): string[] {
  return parts.flatMap((p) => analyse(p.text, p.lang));
}

/**
 * Training passages of an item: its head (title, tags, summary), body chunks of ~60 terms each carrying
 * the item's title and tags (so body words are tied to what the item is about), and the whole item.
 * Measured on test/search/queries.json, this beats whole items or bare chunks as training units.
 */
function passagesOf(doc: SearchDocument): string[][] {
  const topic = [...termsOf(doc.fields.title), ...termsOf(doc.fields.tags)];
  const head = [...topic, ...termsOf(doc.fields.summary)];
  const chunks: string[][] = [];
  for (const p of doc.fields.body) {
    let current: string[] = [];
    for (const paragraph of p.text.split(/\n\s*\n/)) {
      current.push(...analyse(paragraph, p.lang));
      while (current.length >= PASSAGE_TERMS * 1.5) {
        chunks.push(current.slice(0, PASSAGE_TERMS));
        current = current.slice(PASSAGE_TERMS);
      }
      if (current.length >= PASSAGE_TERMS / 2) {
        chunks.push(current);
        current = [];
      }
    }
    if (current.length) chunks.push(current);
  }
  const out = head.length ? [head] : [];
  for (const c of chunks) out.push([...c, ...topic]);
  if (chunks.length) out.push([...head, ...chunks.flat()]);
  out.push(...alignedPassages(doc, head));
  return out;
}

/**
 * Passages that hold the same thing said in both languages, the bridge of cross-language LSA (Dumais et
 * al. 1997): the paragraphs of a translated essay side by side (when both versions have as many
 * paragraphs, the n-th of one translates the n-th of the other), and an item's head next to what other
 * items say of it (an English digest paragraph retelling a Slovenian video). Terms of the two languages
 * that co-occur in them land close together, so a query in one language finds texts in the other.
 */
function alignedPassages(doc: SearchDocument, head: string[]): string[][] {
  const out: string[][] = [];
  if (doc.citations?.length) {
    const cited = termsOf(doc.citations);
    if (cited.length) out.push([...head, ...cited]);
  }
  const bodies = doc.fields.body;
  if (bodies.length > 1) {
    const paragraphs = bodies.map((b) => b.text.split(/\n\s*\n/));
    const n = paragraphs[0].length;
    if (n > 1 && paragraphs.every((x) => x.length === n)) {
      for (let i = 0; i < n; i++) out.push(paragraphs.flatMap((x, l) => analyse(x[i], bodies[l].lang)));
    }
  }
  return out;
}

/** A deterministic sample: the same corpus always trains the same model. */
function sample<T>(xs: T[], n: number): T[] {
  if (xs.length <= n) return xs;
  const step = xs.length / n;
  return Array.from({ length: n }, (_, i) => xs[Math.floor(i * step)]);
}

/** What training decomposes: the passages' TF-IDF matrix over the vocabulary, and how many dimensions to keep. */
interface Training {
  vocabulary: string[];
  idf: Float32Array;
  matrix: Csr;
  k: number;
}

function trainingMatrix(docs: readonly SearchDocument[], dimensions: number): Training {
  const passages = sample(docs.flatMap(passagesOf), MAX_TRAINING_PASSAGES);
  const df = new Map<string, number>();
  for (const p of passages) for (const t of new Set(p)) df.set(t, (df.get(t) ?? 0) + 1);
  // Terms seen in one passage only carry no co-occurrence; the rarest beyond the cap carry little.
  const vocabulary = [...df]
    .filter(([, n]) => n >= 2)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_VOCABULARY)
    .map(([t]) => t)
    .sort();
  const index = new Map(vocabulary.map((t, i) => [t, i]));
  const n = passages.length;
  const idf = Float32Array.from(vocabulary, (t) => Math.log((1 + n) / (1 + df.get(t)!)) + 1);

  const indptr = new Int32Array(n + 1);
  const indices: number[] = [];
  const values: number[] = [];
  passages.forEach((p, r) => {
    const tf = new Map<number, number>();
    for (const t of p) {
      const i = index.get(t);
      if (i !== undefined) tf.set(i, (tf.get(i) ?? 0) + 1);
    }
    const row = [...tf].sort((a, b) => a[0] - b[0]);
    let norm = 0;
    const w = row.map(([i, f]) => (1 + Math.log(f)) * idf[i]);
    for (const x of w) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    row.forEach(([i], k) => {
      indices.push(i);
      values.push(w[k] / norm);
    });
    indptr[r + 1] = indices.length;
  });
  const matrix: Csr = { rows: n, cols: vocabulary.length, indptr, indices: Int32Array.from(indices), values: Float32Array.from(values) };
  return { vocabulary, idf, matrix, k: Math.min(dimensions, Math.max(1, Math.min(n, vocabulary.length) - 1)) };
}

/** The SVD's options: seeded, so the same corpus trains the same model. */
const SVD_OPTIONS = { seed: 42 } as const;

function trainedModel(t: Training, svd: TruncatedSvd, docs: readonly SearchDocument[]): Model {
  const model: Model = { vocabulary: t.vocabulary, idf: t.idf, projection: Float32Array.from(svd.v), dimension: svd.k };
  model.centres = languageCentres(model, docs);
  return model;
}

/**
 * Below this many nonzeros the SVD takes well under a second, and a thread's start (~50 ms) is not worth it
 * (the sample corpus: ~54k). At 10k videos the matrix has ~1.2 million.
 */
const THREAD_MIN_NONZEROS = 200_000;

/**
 * Each language's mean document vector. In a space trained on two languages the strongest common
 * direction of a language's texts is that they are in that language: a Slovenian query is close to every
 * Slovenian text before it is close to any English one about its subject. Taking each language's mean off
 * its vectors (and the query's language's off the query) leaves what the texts are about, so the nearest
 * items are the ones on the subject, in either language (Libovický et al. 2020 on language-neutral
 * representations).
 */
function languageCentres(model: Model, docs: readonly SearchDocument[]): Partial<Record<TextLang, Float32Array>> {
  const index = new Map(model.vocabulary.map((t, i) => [t, i]));
  const sums: Partial<Record<TextLang, { v: Float64Array; n: number }>> = {};
  const v = new Float32Array(model.dimension);
  for (const doc of sample([...docs], CENTRE_SAMPLE)) {
    for (const version of languageVersions(doc)) {
      v.fill(0);
      project(model, index, documentTerms(version), v, false);
      const lang = documentLanguage(version);
      const sum = (sums[lang] ??= { v: new Float64Array(model.dimension), n: 0 });
      for (let j = 0; j < v.length; j++) sum.v[j] += v[j];
      sum.n++;
    }
  }
  const out: Partial<Record<TextLang, Float32Array>> = {};
  for (const [lang, sum] of Object.entries(sums) as [TextLang, { v: Float64Array; n: number }][]) out[lang] = Float32Array.from(sum.v, (x) => x / sum.n);
  return out;
}

/** Takes a language's centre off a unit vector and normalises it again. */
function centre(v: Float32Array, c: Float32Array | undefined): void {
  if (!c || v.every((x) => x === 0)) return;
  for (let j = 0; j < v.length; j++) v[j] -= c[j];
  normalise(v);
}

/** A document's terms weighted by the fields they are in. */
function documentTerms(doc: SearchDocument): Map<string, number> {
  const weighted = new Map<string, number>();
  for (const field of Object.keys(FIELD_WEIGHT) as (keyof typeof FIELD_WEIGHT)[]) {
    for (const t of termsOf(doc.fields[field])) weighted.set(t, (weighted.get(t) ?? 0) + FIELD_WEIGHT[field]);
  }
  return weighted;
}

/**
 * Embeds weighted terms: Σ (1 + ln weight) · idf · coordinates(term), normalised. With `unitTerms` each
 * term's coordinates are first scaled to unit length. Queries use that: a rare, specific query word has
 * short coordinates (the top topics explain little of it) and would otherwise be drowned by a common one
 * ("observability" by "agents"); documents have enough words for their sum to be right as it is.
 */
function project(model: Model, index: Map<string, number>, weighted: ReadonlyMap<string, number>, out: Float32Array, unitTerms: boolean): void {
  const d = model.dimension;
  const p = model.projection;
  for (const [term, tf] of weighted) {
    const i = index.get(term);
    if (i === undefined || tf <= 0) continue;
    let w = Math.max(0, 1 + Math.log(tf)) * model.idf[i];
    const o = i * d;
    if (unitTerms) {
      let n = 0;
      for (let j = 0; j < d; j++) n += p[o + j] * p[o + j];
      if (n > 0) w /= Math.sqrt(n);
    }
    for (let j = 0; j < d; j++) out[j] += w * p[o + j];
  }
  normalise(out);
}

export class BuiltinEmbedder implements Embedder {
  readonly info: EmbedderInfo;
  readonly minSimilarity = 0.1;
  private readonly model: Model;
  private readonly index: Map<string, number>;

  constructor(model: Model) {
    this.model = model;
    this.index = new Map(model.vocabulary.map((t, i) => [t, i]));
    this.info = { name: 'builtin', model: 'lsa', dimension: model.dimension };
  }

  /**
   * Trains on the items to be indexed, with the SVD in a worker thread when the matrix is large: the
   * training matrix is made before this returns its promise, and the caller's thread is free while the SVD
   * runs (buildSearchIndex builds the keyword index meanwhile). The model is the same bits either way.
   * @example const training = BuiltinEmbedder.train(docs); buildKeywordIndex(docs, rows); const embedder = await training;
   */
  static async train(docs: readonly SearchDocument[], dimensions = DEFAULT_BUILTIN_DIMENSIONS, opts: { /** Always (true) or never (false) in a thread; by size when unset. */ thread?: boolean } = {}): Promise<BuiltinEmbedder> {
    // An async function runs up to its first await when called: the matrix is made before the caller goes on.
    const t = trainingMatrix(docs, dimensions);
    const inThread = opts.thread ?? t.matrix.values.length >= THREAD_MIN_NONZEROS;
    const svd = inThread ? await truncatedSvdInThread(t.matrix, t.k, SVD_OPTIONS) : truncatedSvd(t.matrix, t.k, SVD_OPTIONS);
    return new BuiltinEmbedder(trainedModel(t, svd, docs));
  }

  embedDocumentsSync(docs: readonly SearchDocument[]): Float32Array {
    const d = this.model.dimension;
    const out = new Float32Array(docs.length * d);
    docs.forEach((doc, r) => {
      const v = out.subarray(r * d, (r + 1) * d);
      project(this.model, this.index, documentTerms(doc), v, false);
      centre(v, this.model.centres?.[documentLanguage(doc)]);
    });
    return out;
  }

  async embedDocuments(docs: readonly SearchDocument[]): Promise<Float32Array> {
    return this.embedDocumentsSync(docs);
  }

  embedQuerySync(query: string, terms?: ReadonlyMap<string, number>): Float32Array {
    let weighted = terms;
    if (!weighted) {
      const counts = new Map<string, number>();
      for (const w of analyseQuery(query)) for (const t of w.terms) counts.set(t, (counts.get(t) ?? 0) + 1);
      weighted = counts;
    }
    const out = new Float32Array(this.model.dimension);
    project(this.model, this.index, weighted, out, true);
    const centres = this.model.centres;
    if (centres) {
      // A query in one language loses that language's centre; one that could be either, the mean of both.
      const langs = queryLanguages(wordsOf(query)).filter((l) => centres[l]);
      if (langs.length) {
        const c = new Float32Array(out.length);
        for (const l of langs) for (let j = 0; j < c.length; j++) c[j] += centres[l]![j] / langs.length;
        centre(out, c);
      }
    }
    return out;
  }

  async embedQuery(query: string, terms?: ReadonlyMap<string, number>): Promise<Float32Array> {
    return this.embedQuerySync(query, terms);
  }

  /** Writes the model beside the index: the vocabulary and idf as JSON, the projection as raw Float32. */
  save(dir: string): void {
    const m = this.model;
    const centres = m.centres && Object.fromEntries(Object.entries(m.centres).map(([l, c]) => [l, [...c!]]));
    fs.writeFileSync(path.join(dir, 'builtin-embedder.json'), JSON.stringify({ dimension: m.dimension, vocabulary: m.vocabulary, idf: [...m.idf], centres }));
    fs.writeFileSync(path.join(dir, 'builtin-embedder.f32'), new Uint8Array(m.projection.buffer, m.projection.byteOffset, m.projection.byteLength));
  }

  static load(dir: string): BuiltinEmbedder {
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'builtin-embedder.json'), 'utf8')) as {
      dimension: number;
      vocabulary: string[];
      idf: number[];
      centres?: Partial<Record<TextLang, number[]>>;
    };
    const projection = readFloat32(path.join(dir, 'builtin-embedder.f32'));
    if (projection.length !== meta.vocabulary.length * meta.dimension) throw new Error('builtin-embedder.f32 does not match its vocabulary');
    const centres = meta.centres && Object.fromEntries(Object.entries(meta.centres).map(([l, c]) => [l, Float32Array.from(c!)]));
    return new BuiltinEmbedder({ vocabulary: meta.vocabulary, idf: Float32Array.from(meta.idf), projection, dimension: meta.dimension, centres });
  }
}

/** Reads a raw little-endian Float32 file into an aligned array. */
export function readFloat32(file: string): Float32Array {
  const buf = fs.readFileSync(file);
  const out = new Float32Array(buf.length / 4);
  new Uint8Array(out.buffer).set(buf);
  return out;
}
