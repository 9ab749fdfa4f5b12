// build-knowledge: draft concepts for uncovered recurring topics, filed as proposals through the same
// data module the server uses, each with its audit event; nothing twice. Runs on SQLite and, in the
// `postgres` project, with the pipeline and the server on one PostgreSQL database.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/lib/content/load.ts';
import { runJob } from '../../pipeline/lib/run-job.ts';
import { jobContext } from '../../pipeline/lib/context.ts';
import { buildKnowledge } from '../../pipeline/lib/knowledge.ts';
import { databaseTarget, openDatabase } from '../../src/lib/data/db/index.ts';
import { loadConfig } from '../../src/lib/config.ts';
import { startTestServer, testDatabaseEnv } from '../helpers/server.ts';
import { fixtureContent } from '../helpers/content.ts';

let root: string;
let database: Record<string, string> = {};
const env = () => ({ ...process.env, CONTENT_DIR: path.join(root, 'content'), DATA_DIR: path.join(root, 'var'), BASE_URL: 'http://kb.test', ALLOW_DEV_IDP: 'true', ...database });
const run = () => runJob('build-knowledge', { ...jobContext({}, env()), log: () => {} }, buildKnowledge);

beforeAll(async () => {
  database = await testDatabaseEnv();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-knowledge-'));
  fs.cpSync(fixtureContent(), path.join(root, 'content'), { recursive: true });
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('build-knowledge', () => {
  it('writes valid draft concepts for uncovered recurring tags and files them as concept_stub proposals', async () => {
    const before = loadSnapshot(path.join(root, 'content'));
    const r = await run();
    expect(r.ok).toBe(true);
    expect(r.counts.draft_concepts).toBeGreaterThan(0);
    const after = loadSnapshot(path.join(root, 'content'));
    const added = after.concepts.filter((c) => !before.conceptsBySlug.has(c.slug));
    expect(added.length).toBe(r.counts.draft_concepts);
    for (const c of added) {
      expect(c.draft).toBe(true);
      expect(c.sources.length).toBeGreaterThanOrEqual(3);
      for (const s of c.sources) expect(s.type === 'video' && after.videosById.has(s.id)).toBe(true);
      expect(c.body).toMatch(/\]\(\/videos\/[A-Za-z0-9_-]+\)/);
      // The topic really recurs: every cited video carries the concept's tag.
      for (const s of c.sources) if (s.type === 'video') expect(after.videosById.get(s.id)!.tags).toEqual(expect.arrayContaining(c.tags));
    }

    const srv = await startTestServer({ contentDir: path.join(root, 'content'), env: { DATA_DIR: path.join(root, 'var'), ...database } });
    try {
      const pending = await (await srv.get('/api/proposals?kind=concept_stub&limit=100')).json();
      const slugs = pending.items.map((p: { payload: { slug: string } }) => p.payload.slug);
      for (const c of added) expect(slugs).toContain(c.slug);
      // Each binds apply to the file as written: its hash is the draft file's.
      for (const p of pending.items as { payload: { file: string; file_sha256: string } }[]) {
        expect(p.payload.file_sha256).toBe(createHash('sha256').update(fs.readFileSync(path.join(root, 'content', p.payload.file), 'utf8')).digest('hex'));
      }
      const confidences = pending.items.map((p: { confidence: number }) => p.confidence);
      expect([...confidences].sort((a, b) => b - a)).toEqual(confidences);
      const links = await (await srv.get('/api/proposals?kind=link_add&limit=100')).json();
      expect(links.total).toBe(r.counts.link_proposals);
      const events = (await (await srv.get('/api/audit?kind=proposal.create&limit=200')).json()).items;
      expect(events.length).toBe(r.counts.draft_concepts + r.counts.link_proposals + r.counts.tag_proposals);
      expect(events.every((e: { actor: string }) => e.actor === 'pipeline')).toBe(true);
    } finally {
      await srv.stop();
    }
  });

  it('files nothing twice (later runs only take up what the per-run limits left)', async () => {
    for (let i = 0; i < 6; i++) {
      const r = await run();
      expect(r.ok).toBe(true);
      expect(r.counts.draft_concepts).toBe(0);
    }
    const db = await openDatabase(databaseTarget(loadConfig(env())));
    try {
      expect(db.dialect).toBe(database.DATABASE_URL ? 'postgres' : 'sqlite');
      const dupes = await db.prepare('SELECT kind, target_id, payload, COUNT(*) AS n FROM proposals GROUP BY kind, target_id, payload HAVING COUNT(*) > 1').all();
      expect(dupes).toEqual([]);
      expect((await db.prepare("SELECT COUNT(*) FROM proposals WHERE kind = 'link_add'").pluck().get()) as number).toBeGreaterThan(10);
    } finally {
      await db.close();
    }
    const last = await run();
    expect(last.counts).toMatchObject({ draft_concepts: 0, link_proposals: 0, tag_proposals: 0 });
  });
});
