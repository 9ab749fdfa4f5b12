// The documentation stays in step with the code: every `npm run <script>` that README.md and docs/ name
// exists in package.json, every repository path they name in backticks exists, every environment variable
// they name is read by src/lib/config.ts or by a module listed below (which must still mention it), every
// variable config.ts reads is in README.md's configuration table, and every relative link between the
// documents (and its #anchor) resolves. README-commands (test/scripts) runs the commands themselves.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve('.');

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(p);
    return e.name.endsWith('.md') ? [p] : [];
  });
}

const docs = [path.join(root, 'README.md'), ...markdownFiles(path.join(root, 'docs'))].map((file) => ({
  file,
  name: path.relative(root, file),
  text: fs.readFileSync(file, 'utf8'),
}));
const packageScripts = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** Text inside `backticks` (inline code) of a document. */
function inlineCode(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
}

/** Fenced code blocks of a document. */
function fences(text: string): string[] {
  return [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]);
}

// Variables the docs name that src/lib/config.ts does not read, each with the file that reads it (a
// variable of Node, npm or a library: null).
const readElsewhere: Record<string, string | null> = {
  KEYS_DIR: 'src/lib/data/keys.ts',
  'PIPELINE_CRON_<JOB>': 'pipeline/scheduler.ts',
  PIPELINE_CRON_INGEST_VIDEOS: 'pipeline/scheduler.ts',
  PIPELINE_RUN_ON_START: 'pipeline/scheduler.ts',
  'PIPELINE_FETCH_*': 'pipeline/lib/ingest.ts',
  PIPELINE_FETCH_TIMEOUT_MS: 'pipeline/lib/ingest.ts',
  PIPELINE_FETCH_RETRIES: 'pipeline/lib/ingest.ts',
  PIPELINE_FETCH_BACKOFF_MS: 'pipeline/lib/ingest.ts',
  PIPELINE_FETCH_CONCURRENCY: 'pipeline/lib/ingest.ts',
  KB_COMPILE_CACHE_MAX_MB: 'scripts/ensure-node.sh',
  NODE_COMPILE_CACHE: 'scripts/ensure-node.sh',
  NODE_DISABLE_COMPILE_CACHE: 'scripts/ensure-node.sh',
  KB_CREDENTIALS: 'src/lib/read/discovery/agent-login.ts',
  KB_SERVER: 'src/lib/read/discovery/agent-login.ts',
  KB_PAGES_PER_SHARD: 'src/lib/static-build/render.ts',
  KB_CHECK_INPUT_KEYS: 'src/lib/static-build/moved-keys.ts',
  KB_PAGE_SELECTION: 'src/lib/static-build/render.ts',
  KB_PAGE_MODELS: 'src/lib/build-inputs.ts',
  KB_GENERATED_AT: 'src/lib/build-inputs.ts',
  BENCH_DIR: 'scripts/bench/util.ts',
  NODE_OPTIONS: null,
  ONNXRUNTIME_NODE_INSTALL: null, // onnxruntime-node's install script
  ORT_DISABLE_TELEMETRY: null, // set by onnxruntime as it loads
  REDOCLY_TELEMETRY: null,
};

// Constants of the code that the decision records name in the same spelling, with the file declaring them.
const constants: Record<string, string> = {
  BEFORE_ISSUE_18: 'scripts/bench/search.ts',
  IN_PROCESS_PAGES: 'src/lib/static-build/full.ts',
  LEADS_TO_SITE: 'pipeline/lib/jobs.ts',
  MAX_JSON_DEPTH: 'api/validation/route.ts',
  MAX_NEXT_LENGTH: 'api/auth/oidc.ts',
  PAGE_CSP: 'api/web/render.ts',
  SKELETON_NODES: 'src/lib/read/graph.ts',
};

/** The variables config.ts validates: the keys of its zod schema. */
function configVariables(): string[] {
  const source = fs.readFileSync(path.join(root, 'src/lib/config.ts'), 'utf8');
  const schema = source.slice(source.indexOf('z.object({'), source.indexOf('\n});'));
  return [...schema.matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
}

const VARIABLE = /(?<![\w$./-])([A-Z][A-Z0-9]*(?:_(?:[A-Z0-9]+|<[A-Z]+>|\*))+)(?![\w-])/g;

/** Environment variables a document names: in inline code, and assigned in its code blocks. */
function variablesNamed(text: string): string[] {
  const found = new Set<string>();
  for (const code of inlineCode(text)) for (const m of code.matchAll(VARIABLE)) found.add(m[1]);
  for (const block of fences(text)) for (const m of block.matchAll(/(?<![\w$])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/g)) found.add(m[1]);
  return [...found];
}

/** The variables in the first column of README.md's configuration table. */
function configurationTable(readme: string): Set<string> {
  const section = readme.slice(readme.indexOf('## Configuration'));
  const table = section.slice(0, section.indexOf('\n## '));
  const names = new Set<string>();
  for (const row of table.split('\n').filter((l) => l.startsWith('| `'))) {
    for (const m of row.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]);
  }
  return names;
}

const TOP_LEVEL = ['api/', 'src/', 'pipeline/', 'scripts/', 'test/', 'content/', 'public/', 'tools/', 'docs/', '.ci/'];

/** Repository paths a document names in backticks: a known top-level folder, then a file name with an extension. */
function pathsNamed(text: string): string[] {
  return inlineCode(text)
    .map((c) => c.trim())
    .filter((c) => TOP_LEVEL.some((t) => c.startsWith(t)) && /^[\w./-]+\.[a-z]{1,5}$/.test(c) && !c.includes('..'));
}

/** GitHub's anchor for a heading. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(text: string): Set<string> {
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1].trim())));
}

/** Relative links of a document, as [file, anchor] resolved against its folder. */
function relativeLinks(file: string, text: string): { target: string; file: string; hash: string }[] {
  const withoutCode = text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t))
    .map((target) => {
      const [p, hash = ''] = target.split('#');
      return { target, file: p ? path.resolve(path.dirname(file), p) : file, hash };
    });
}

describe('the documentation', () => {
  it.each(docs.map((d) => [d.name, d]))('%s names only npm scripts that exist', (_name, doc) => {
    const named = [...doc.text.matchAll(/\bnpm run ([a-z][\w-]*(?::[\w-]+)*)/g)].map((m) => m[1]);
    for (const script of named) expect(packageScripts[script], `${doc.name}: npm run ${script}`).toBeDefined();
  });

  it.each(docs.map((d) => [d.name, d]))('%s names only repository paths that exist', (_name, doc) => {
    for (const p of pathsNamed(doc.text)) expect(fs.existsSync(path.join(root, p)), `${doc.name}: \`${p}\``).toBe(true);
  });

  it('names only environment variables that config.ts, or a listed module, reads', () => {
    const config = new Set(configVariables());
    for (const doc of docs) {
      for (const v of variablesNamed(doc.text)) {
        if (v in constants) continue;
        const family = v.endsWith('_*') && [...config].some((c) => c.startsWith(v.slice(0, -1)));
        expect(config.has(v) || family || v in readElsewhere, `${doc.name}: ${v} is read by no module the test knows`).toBe(true);
      }
    }
    for (const [c, file] of Object.entries(constants)) {
      expect(fs.readFileSync(path.join(root, file), 'utf8'), `${file} no longer declares ${c}`).toMatch(new RegExp(`const ${c}\\b`));
    }
    for (const [v, file] of Object.entries(readElsewhere)) {
      if (!file) continue;
      const prefix = v.replace(/(<[A-Z]+>|\*)$/, '');
      expect(fs.readFileSync(path.join(root, file), 'utf8'), `${file} no longer reads ${v}`).toContain(prefix);
    }
  });

  it('lists every variable config.ts reads in README.md\'s configuration table', () => {
    const table = configurationTable(docs[0].text);
    expect(table.size).toBeGreaterThan(50);
    for (const v of configVariables()) expect(table.has(v), `README.md's table lacks ${v}`).toBe(true);
  });

  it.each(docs.map((d) => [d.name, d]))('%s links only to documents and headings that exist', (_name, doc) => {
    for (const link of relativeLinks(doc.file, doc.text)) {
      expect(fs.existsSync(link.file), `${doc.name}: (${link.target})`).toBe(true);
      if (link.hash && link.file.endsWith('.md')) {
        expect(anchorsOf(fs.readFileSync(link.file, 'utf8')), `${doc.name}: (${link.target})`).toContain(link.hash);
      }
    }
  });
});
