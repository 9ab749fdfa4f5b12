// Nothing blocks the event loop on I/O once the server serves: the TypeScript sources under api/ and
// src/lib/data/ call no synchronous function of node:fs or node:child_process (readFileSync, existsSync,
// execFileSync, ...) except in the functions listed below, each with the reason it may. A call is placed
// in the function it is written in (the nearest enclosing named function, found by indentation).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOTS = ['api', 'src/lib/data'];

/** Functions that may do synchronous file-system work: file (from the repository root) → function → why. */
const ALLOWED: Record<string, Record<string, string>> = {
  // Once at start-up, before the server listens.
  'api/builds.ts': {
    readBuildMeta: 'start-up (startServer, scripts/start.ts); the reload reads build-meta.json with readBuildMetaAsync',
    contentStateOf: 'existsSync only when there is no build-meta.json, which a reload never gets to (it needs one)',
  },
  'src/lib/data/keys.ts': { loadOrCreateFile: 'key files, read or created once when the stores and the app are built' },
  'api/oauth/consent.ts': { loadConsentKey: 'the consent key, read or created once when the app is built' },
  'api/auth/embedded-idp/index.ts': { loadJson: "the embedded identity provider's keys, read or created once when it is built" },
  'src/lib/data/db/index.ts': {
    openSqlite: 'opening the SQLite file (the driver itself is synchronous)',
    migrationFiles: 'listing the migrations, before the server listens',
  },
  // Request paths not converted yet: each touches one small file or a person's own repository, on a write a
  // signed-in person makes, never on a read. Their helpers outside api/ (src/lib/fs-atomic.ts,
  // src/lib/content/concept-file.ts, pipeline/lib/video-files.ts) are synchronous too.
  'api/proposals/apply.ts': { planApply: 'applying a concept_stub proposal (moderators)', planDiscard: 'rejecting a concept_stub proposal (moderators)' },
  'api/proposals/content-edits.ts': {
    taggedFiles: 'applying a tag_correction (moderators)',
    planTagCorrection: 'applying a tag_correction (moderators)',
    planLinkAdd: 'applying a link_add (moderators)',
    planEssayPromotion: 'applying an essay_promotion (moderators)',
    commitEdits: "writing an applied proposal's files (moderators)",
  },
  'api/sources/routes.ts': { proposeDraft: 'taking back a drafted concept whose proposal did not commit (writers)' },
  'api/personal-knowledge/repositories.ts': { ensureRepository: "checking the owner's local clone" },
  'api/personal-knowledge/connection.ts': {
    connectEmbedded: "connecting the owner's embedded store",
    disconnect: "removing the owner's local clone",
    remoteConnector: "swapping in the owner's fresh clone",
  },
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The synchronous calls of node:fs and node:child_process in a source: the line and the function called. */
function syncCalls(text: string): { line: number; call: string }[] {
  const modules = String.raw`'(?:node:)?(?:fs|child_process)'`;
  // `import fs from 'node:fs'`, `import * as cp from 'node:child_process'`: calls as fs.readFileSync(.
  const namespaces = [...text.matchAll(new RegExp(String.raw`import\s+(?:\*\s+as\s+)?(\w+)(?:\s*,\s*\{[^}]*\})?\s+from\s+${modules}`, 'g'))].map((m) => m[1]);
  // `import { readFileSync as read } from 'node:fs'`: calls as read(.
  const named = [...text.matchAll(new RegExp(String.raw`import\s+(?:\w+\s*,\s*)?\{([^}]*)\}\s+from\s+${modules}`, 'g'))].flatMap((m) =>
    m[1]
      .split(',')
      .map((s) => s.trim().split(/\s+as\s+/))
      .filter(([name]) => name.endsWith('Sync'))
      .map(([name, local]) => local ?? name),
  );
  const patterns = [...namespaces.map((ns) => String.raw`\b${ns}\s*\.\s*\w+Sync`), ...named.map((n) => String.raw`(?<![.\w])${n}`)];
  if (patterns.length === 0) return [];
  return [...text.matchAll(new RegExp(String.raw`(?:${patterns.join('|')})\s*\(`, 'g'))].map((m) => ({
    line: text.slice(0, m.index).split('\n').length,
    call: m[0].replace(/\s+/g, '').slice(0, -1),
  }));
}

const DECLARATION = [
  /\bfunction\s*\*?\s*(\w+)\s*[<(]/, // function name(
  /\b(?:const|let)\s+(\w+)\s*=\s*(?:async\s+)?(?:function\b|\(|\w+\s*=>)/, // const name = (...) =>
  /^\s*(?:async\s+)?(\w+)\s*\([^)]*\)\s*(?::[^{]+)?\{\s*$/, // a method: name(args) {
];
const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'await']);

/** The nearest named function a line is written in: up through the lines that open its enclosing blocks. */
function enclosingFunction(lines: string[], lineNo: number): string | null {
  const indentOf = (l: string) => l.length - l.trimStart().length;
  let indent = indentOf(lines[lineNo - 1]);
  for (let i = lineNo - 1; i >= 0 && indent > 0; i--) {
    const l = lines[i];
    // Blank lines, and the `): Type {` that closes a signature written over several lines, open nothing.
    if (l.trim() === '' || /^\s*\)/.test(l) || indentOf(l) >= indent) continue;
    indent = indentOf(l);
    for (const re of DECLARATION) {
      const name = re.exec(l)?.[1];
      if (name && !KEYWORDS.has(name)) return name;
    }
  }
  return null;
}

describe('no synchronous file-system or child-process work on the event loop', () => {
  const found = ROOTS.flatMap((root) => sourceFiles(root)).flatMap((file) => {
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const rel = file.split(path.sep).join('/');
    return syncCalls(text).map((c) => ({ file: rel, ...c, fn: enclosingFunction(lines, c.line) }));
  });

  it('calls them only in the allowed functions', () => {
    const outside = found.filter((c) => !(c.fn && ALLOWED[c.file]?.[c.fn])).map((c) => `${c.file}:${c.line} ${c.call} in ${c.fn ?? '(top level)'}`);
    expect(outside, 'make these asynchronous (fs.promises, execFile), or list the function in ALLOWED with the reason').toEqual([]);
  });

  it('lists no function that no longer calls them', () => {
    const listed = Object.entries(ALLOWED).flatMap(([file, fns]) => Object.keys(fns).map((fn) => `${file} ${fn}`));
    const used = new Set(found.map((c) => `${c.file} ${c.fn}`));
    expect(listed.filter((entry) => !used.has(entry))).toEqual([]);
  });

  it('finds the calls it looks for', () => {
    const sample = "import fs from 'node:fs';\nimport { execFileSync as run } from 'node:child_process';\nfs\n  .readdirSync(d);\nrun('git');\nfs.promises.readFile(f);\n";
    expect(syncCalls(sample)).toEqual([
      { line: 3, call: 'fs.readdirSync' },
      { line: 5, call: 'run' },
    ]);
  });
});
