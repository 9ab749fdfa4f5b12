// bench search: the search engine in-process at 10k and 100k synthetic items (index build time and size,
// p50/p99 latency of keyword and hybrid search) next to @orama/orama's hybrid search over the same items,
// vectors and queries; then the server's requests per second for /api/search next to a prerendered file.
import fs from 'node:fs';
import path from 'node:path';
import { create, insertMultiple, search as oramaSearch, MODE_FULLTEXT_SEARCH, MODE_HYBRID_SEARCH, type AnyOrama } from '@orama/orama';
import autocannon from 'autocannon';
import { generateCorpus } from '../gen-corpus.ts';
import { buildSite } from '../build.ts';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { buildSearchIndex, documentsFromSnapshot, SearchService, type LoadedIndex } from '../../src/lib/search/index.ts';
import { benchDir, load, settledLine, startChild, table, waitUntilSteady } from './util.ts';
import lunr from 'lunr';
import { gibberish, WORST_QUERIES } from './hostile-queries.ts';
import { nearInAutomaton } from '../../src/lib/search/query-plan.ts';

/** Queries over the generator's vocabulary: subjects, things, tags, sentence words, Slovenian, typos. */
const QUERIES = [
  'claims handling', 'regional bank agents', 'evaluation harness', 'AI governance board', 'retrieval assistant',
  'open-weight models', 'workflow automation', 'prompt library', 'human review queues', 'model risk process',
  'AI literacy training', 'kill switch', 'vendor lock-in', 'power users', 'data access pilots',
  'legal and risk approvals', 'cycle time error rates', 'hospital triage', 'tax office copilots', 'supply planning',
  'contract review', 'evaluaton harnes', 'goverance', 'stroški na nalogo', 'pravna služba', 'ekipa odločitve',
  'uvajanje proces', 'security', 'leadership', 'finance close', 'EU AI Act deployers', 'quality control',
];
const ROUNDS = 10;
/**
 * The index before issue 18 (no citations, no translation lexicon, no language centres), measured with
 * this bench's corpus on the same machine, alternating with runs of the code after it (docs/decisions/0047-search-questions-offline.md):
 * what the build table shows beside today's figures.
 */
const BEFORE_ISSUE_18: Record<number, { build_s: number; index_mb: number; hybrid_p99_ms: number }> = {
  10_000: { build_s: 9.1, index_mb: 23.3, hybrid_p99_ms: 6.5 },
  100_000: { build_s: 82, index_mb: 219.6, hybrid_p99_ms: 108 },
};
/** Items per video in the generator's proportions (videos + essays/6 + digests/4 + concepts·2/3). */
const ITEMS_PER_VIDEO = 1 + 1 / 6 + 1 / 4 + 2 / 3;

interface Latency {
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
}

function percentiles(samples: number[]): Latency {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50_ms: +at(0.5).toFixed(2), p99_ms: +at(0.99).toFixed(2), mean_ms: +(s.reduce((a, b) => a + b, 0) / s.length).toFixed(2) };
}

async function time(run: (q: string) => unknown, rounds = ROUNDS): Promise<Latency> {
  for (const q of QUERIES) await run(q); // warm-up: JIT, caches of first use
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of QUERIES) {
      const t = performance.now();
      await run(q);
      samples.push(performance.now() - t);
    }
  }
  return percentiles(samples);
}

const mb = (bytes: number) => +(bytes / 1024 / 1024).toFixed(1);

/** The same items, fields and (our builtin) vectors in Orama, searched in its hybrid mode. */
async function oramaBench(index: LoadedIndex, docs: ReturnType<typeof documentsFromSnapshot>) {
  const dim = index.manifest.embedder.dimension;
  const db = create({
    schema: { key: 'string', title: 'string', tags: 'string', summary: 'string', body: 'string', embedding: `vector[${dim}]` },
  }) as AnyOrama;
  // Each item's first vector row (its own language), as our index has it.
  const firstRow = new Map<string, number>();
  index.ids.forEach((r, i) => {
    const key = `${r.type}:${r.id}`;
    if (!firstRow.has(key)) firstRow.set(key, i);
  });
  const text = (parts: { text: string }[]) => parts.map((p) => p.text).join(' ');
  const started = performance.now();
  for (let i = 0; i < docs.length; i += 1000) {
    await insertMultiple(
      db,
      docs.slice(i, i + 1000).map((d) => {
        const row = firstRow.get(`${d.type}:${d.id}`)!;
        return {
          key: `${d.type}:${d.id}`,
          title: text(d.fields.title),
          tags: text(d.fields.tags),
          summary: text(d.fields.summary),
          body: text(d.fields.body),
          embedding: Array.from(index.vectors.subarray(row * dim, (row + 1) * dim)),
        };
      }),
    );
  }
  const insert_s = +((performance.now() - started) / 1000).toFixed(1);
  // Query vectors come from our embedder, computed before timing: Orama is measured on its search alone.
  const vectors = new Map<string, number[]>();
  for (const q of QUERIES) vectors.set(q, Array.from(await index.embedder.embedQuery(q)));
  // Orama's defaults (no typo tolerance: with tolerance 1 it is several times slower again) and our boosts.
  const rounds = docs.length > 50_000 ? 3 : ROUNDS;
  const fields = ['title', 'tags', 'summary', 'body'];
  const fulltext = await time((q) => oramaSearch(db, { term: q, mode: MODE_FULLTEXT_SEARCH, properties: fields, boost: { title: 6, tags: 4, summary: 2 }, limit: 20 }), rounds);
  const hybrid = await time(
    (q) => oramaSearch(db, { term: q, mode: MODE_HYBRID_SEARCH, vector: { value: vectors.get(q)!, property: 'embedding' }, similarity: 0.1, properties: fields, limit: 20 }),
    rounds,
  );
  return { insert_s, fulltext, hybrid };
}

async function engineBench(items: number, root: string) {
  const videos = Math.max(60, Math.round((items - 2) / ITEMS_PER_VIDEO));
  const contentDir = path.join(root, `search-${items}`, 'content');
  const dataDir = path.join(root, `search-${items}`, 'var');
  const marker = path.join(root, `search-${items}`, 'videos.txt');
  if (!fs.existsSync(marker) || fs.readFileSync(marker, 'utf8') !== String(videos)) {
    console.log(`bench search: generating ${videos} videos (~${items} items) …`);
    generateCorpus({ dir: contentDir, videos, seed: 42 });
    fs.writeFileSync(marker, String(videos));
  }
  let t = performance.now();
  const snap = loadSnapshot(contentDir);
  const load_s = +((performance.now() - t) / 1000).toFixed(1);
  console.log(`bench search: ${items} items: content loaded in ${load_s} s; building the index …`);
  t = performance.now();
  const index = await buildSearchIndex(snap, { dataDir, embedder: { provider: 'builtin', dimensions: 128 } });
  const build_s = +((performance.now() - t) / 1000).toFixed(1);
  const heap_mb = mb(process.memoryUsage().rss);
  const service = new SearchService(snap, index);
  const keyword = await time((q) => service.search({ q, hybrid: false, draft: false, limit: 20, agent: false }));
  const hybrid = await time((q) => service.search({ q, hybrid: true, draft: false, limit: 20, agent: false }));
  const worst = await worstCase(service);
  const expansion = expansionBench(index);
  console.log(`bench search: ${items} items: ours measured; Orama …`);
  const orama = await oramaBench(index, documentsFromSnapshot(snap));
  return {
    items: index.manifest.items,
    vector_rows: index.manifest.rows,
    dimension: index.manifest.embedder.dimension,
    index_build_s: build_s,
    index_mb: mb(index.manifest.bytes),
    rss_mb: heap_mb,
    keyword,
    hybrid,
    worst,
    expansion,
    orama,
  };
}

/** The slowest of the hostile queries (scripts/bench/hostile-queries.ts), each the slowest of 3 runs. */
async function worstCase(service: SearchService) {
  const rows: { query: string; keyword_ms: number; hybrid_ms: number }[] = [];
  for (const [name, q] of Object.entries(WORST_QUERIES)) {
    const slowest = async (hybrid: boolean) => {
      let max = 0;
      for (let r = 0; r < 3; r++) {
        const t = performance.now();
        await service.search({ q: `${q.slice(0, -1)}${r}`, hybrid, draft: false, limit: 20, agent: false });
        max = Math.max(max, performance.now() - t);
      }
      return +max.toFixed(2);
    };
    rows.push({ query: name, keyword_ms: await slowest(false), hybrid_ms: await slowest(true) });
  }
  return rows;
}

/**
 * One unknown word's typo lookup (two edits) in the built vocabulary: lunr's fuzzy token set, which the
 * planner used before, next to the bounded automaton walk that replaced it, side by side.
 */
function expansionBench(index: LoadedIndex) {
  const tokenSet = (index.keyword as unknown as { tokenSet: lunr.TokenSet & Parameters<typeof nearInAutomaton>[0] }).tokenSet;
  const fuzzy = (lunr.TokenSet as unknown as { fromFuzzyString(t: string, e: number): lunr.TokenSet }).fromFuzzyString;
  const rows: { letters: number; lunr_ms: number; ours_ms: number }[] = [];
  for (const letters of [8, 14, 20, 40, 80]) {
    const words = Array.from({ length: 5 }, (_, i) => `s${gibberish(letters - 1, i + letters)}`);
    const t0 = performance.now();
    for (const w of words) tokenSet.intersect(fuzzy(w, 2)).toArray();
    const t1 = performance.now();
    for (const w of words) nearInAutomaton(tokenSet, w, 2);
    const t2 = performance.now();
    rows.push({ letters, lunr_ms: +((t1 - t0) / words.length).toFixed(2), ours_ms: +((t2 - t1) / words.length).toFixed(3) });
  }
  return rows;
}

async function distinctQueries(url: string, seconds: number) {
  let n = 0;
  const r = await autocannon({
    url,
    duration: seconds,
    connections: 16,
    // A fresh query every request (a counter word keeps the response cache out of it).
    requests: [{ setupRequest: (req) => ({ ...req, path: `/api/search?q=${encodeURIComponent(`${QUERIES[n % QUERIES.length]} ${n++}`)}` }) }],
  });
  return { rps: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

async function serverBench(root: string) {
  // A corpus small enough to prerender quickly (1000 videos, ~2,100 items): the server's own overhead.
  const base = path.join(root, 'search-server');
  const contentDir = path.join(base, 'content');
  const distDir = path.join(base, 'dist');
  const dataDir = path.join(base, 'var');
  generateCorpus({ dir: contentDir, videos: 1000, seed: 42 });
  console.log('bench search: prerendering the 1000-video corpus for the server …');
  await buildSite({ ...process.env, CONTENT_DIR: contentDir, DIST_DIR: distDir, DATA_DIR: dataDir });
  const sample = fs.readdirSync(path.join(distDir, 'client', 'api', 'videos')).find((d) => fs.existsSync(path.join(distDir, 'client', 'api', 'videos', d, 'index.json')))!;
  const server = await startChild('api/server.ts', [], {
    CONTENT_DIR: contentDir,
    DIST_DIR: distDir,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    EMBEDDING_PROVIDER: 'builtin',
    // One client sends every request: with the per-address limit this would measure 429s.
    SEARCH_RATE_LIMIT_PER_MINUTE: '1000000000',
  });
  const targets = [
    { name: 'prerendered file', url: `${server.url}/api/videos/${sample}` },
    { name: '/api/search, repeated query (cached)', url: `${server.url}/api/search?q=evaluation%20harness` },
    { name: '/api/search?hybrid=false, repeated query', url: `${server.url}/api/search?q=evaluation%20harness&hybrid=false` },
  ];
  const results: Record<string, unknown>[] = [];
  try {
    // Each target is measured once it has settled (after the server's "listening" line: index loaded).
    console.log('bench search: waited for the server\'s "listening" line (search index loaded, prerendered files in memory), then');
    for (const t of targets) {
      const settled = await waitUntilSteady(t.url);
      console.log(settledLine(t.name, settled));
      results.push({ target: t.name, steady_windows_rps: settled.windows, ...(await load(t.url)) });
    }
    await distinctQueries(server.url, 2);
    results.push({ target: '/api/search, a new query every request (hybrid)', ...(await distinctQueries(server.url, 8)) });
  } finally {
    await server.stop();
  }
  return results;
}

export async function runSearchBench(args: string[]): Promise<Record<string, unknown>> {
  const sizes = args.filter((a) => /^\d+$/.test(a)).map(Number);
  const root = benchDir('corpus');
  const engines = [];
  for (const items of sizes.length ? sizes : [10_000, 100_000]) engines.push(await engineBench(items, root));

  console.log('\nin-process search, limit 20 (ms; ours: builtin LSA embedder, 128 dims; Orama: the same vectors and items)');
  console.log(
    table(
      engines.flatMap((e) => [
        { items: e.items, engine: 'ours keyword', p50: e.keyword.p50_ms, p99: e.keyword.p99_ms, mean: e.keyword.mean_ms },
        { items: e.items, engine: 'ours hybrid (RRF)', p50: e.hybrid.p50_ms, p99: e.hybrid.p99_ms, mean: e.hybrid.mean_ms },
        { items: e.items, engine: 'Orama full-text', p50: e.orama.fulltext.p50_ms, p99: e.orama.fulltext.p99_ms, mean: e.orama.fulltext.mean_ms },
        { items: e.items, engine: 'Orama hybrid', p50: e.orama.hybrid.p50_ms, p99: e.orama.hybrid.p99_ms, mean: e.orama.hybrid.mean_ms },
      ]),
    ),
  );
  console.log(`\nworst-case queries (slowest of 3 runs, ms; at most ${WORST_QUERIES['one word of maximum length'].length} characters, as /api/search accepts)`);
  console.log(table(engines.flatMap((e) => e.worst.map((w) => ({ items: e.items, query: w.query, keyword: w.keyword_ms, hybrid: w.hybrid_ms })))));
  console.log('\ntypo lookup of one unknown word, two edits (ms per word): lunr fuzzy token set (before) vs bounded automaton walk');
  console.log(table(engines.flatMap((e) => e.expansion.map((x) => ({ items: e.items, letters: x.letters, 'lunr ms': x.lunr_ms, 'walk ms': x.ours_ms, ratio: `${Math.round(x.lunr_ms / Math.max(x.ours_ms, 0.001))}x` })))));
  console.log('\nindex build (before: the index before issue 18, see BEFORE_ISSUE_18)');
  console.log(
    table(
      engines.map((e) => {
        const before = BEFORE_ISSUE_18[Math.round(e.items / 10_000) * 10_000];
        return {
          items: e.items,
          'vector rows': e.vector_rows,
          'ours build s': e.index_build_s,
          'before s': before?.build_s ?? '',
          'index MB': e.index_mb,
          'before MB': before?.index_mb ?? '',
          'hybrid p99 ms': e.hybrid.p99_ms,
          'before p99': before?.hybrid_p99_ms ?? '',
          'process RSS MB': e.rss_mb,
          'Orama insert s': e.orama.insert_s,
        };
      }),
    ),
  );

  const serving = await serverBench(root);
  const file = serving[0].rps as number;
  console.log('\nrequests per second (autocannon, 16 connections, 8 s each; ~2,100 items)');
  console.log(table(serving.map((s) => ({ target: String(s.target), 'req/s': s.rps as number, 'vs file': `${Math.round(((s.rps as number) / file) * 100)}%`, 'p50 ms': s.p50_ms as number, 'p99 ms': s.p99_ms as number, errors: (s.errors as number) + (s.non2xx as number) }))));
  return { engines, serving, queries: QUERIES.length, rounds: ROUNDS };
}
