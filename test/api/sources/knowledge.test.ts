// POST /api/sources/knowledge: a draft concept written to a temporary copy of content/ (extractively, and
// through an OpenAI-compatible endpoint), loadable by loadSnapshot, proposed as a concept_stub, and
// published when a moderator applies the proposal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/lib/content/load.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sessionFor, type TestSession } from '../../helpers/auth.ts';
import { sender, type Send } from '../../helpers/http.ts';

const repoSnap = loadSnapshot(path.resolve('content'));
const TOPIC = 'claims handling';
const SLUG = 'claims-handling';

function copyContent(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-knowledge-content-'));
  fs.cpSync(path.resolve('content'), dir, { recursive: true });
  return dir;
}

describe('extractive drafts (no LLM configured)', () => {
  let contentDir: string;
  let srv: TestServer;
  let send: Send;
  let ana: TestSession, mod: TestSession;
  beforeAll(async () => {
    contentDir = copyContent();
    srv = await startTestServer({ contentDir, env: { MODERATOR_EMAILS: 'mod@example.org', WRITE_RATE_LIMIT_PER_MINUTE: '1000' } });
    send = sender(srv);
    ana = sessionFor(srv, 'ana@example.org', 'Ana');
    mod = sessionFor(srv, 'mod@example.org', 'Mod');
  });
  afterAll(async () => {
    await srv.stop();
    fs.rmSync(contentDir, { recursive: true, force: true });
  });

  it('writes a cited draft concept that loads, and files a concept_stub proposal for it', async () => {
    const res = await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: TOPIC } });
    expect(res.status, await res.clone().text()).toBe(200);
    const out = await res.json();
    expect(out).toMatchObject({ slug: SLUG, file: `knowledge/${SLUG}.md`, ai_generated: true, generator: 'extractive', warnings: [] });
    expect(out.draft).toMatchObject({ title: 'Claims handling', draft: true, related: [] });
    expect(out.draft.sources.length).toBeGreaterThan(0);
    expect(out.draft.body).toMatch(/## What the sources say/);
    expect(out.draft.body).toMatch(/\]\(\/(videos|essays|digests)\//); // every quoted sentence cites its source
    expect(out.draft.summary.toLowerCase()).toContain('claim');

    const file = path.join(contentDir, 'knowledge', `${SLUG}.md`);
    expect(fs.readFileSync(file, 'utf8')).toBe(out.draft.markdown);
    expect(fs.readdirSync(path.join(contentDir, 'knowledge')).filter((f) => f.startsWith('.'))).toEqual([]); // no temp files left
    const loaded = loadSnapshot(contentDir).conceptsBySlug.get(SLUG);
    expect(loaded).toMatchObject({ title: 'Claims handling', draft: true });
    expect(loaded!.sources).toEqual(out.draft.sources);
    expect(fs.existsSync(path.resolve('content/knowledge', `${SLUG}.md`))).toBe(false);

    expect(out.proposal).toMatchObject({
      kind: 'concept_stub',
      status: 'pending',
      target: { type: 'knowledge', id: SLUG },
      created_by: ana.userId,
      payload: { slug: SLUG, file: `knowledge/${SLUG}.md`, title: 'Claims handling' },
      evidence: { topic: TOPIC, generator: 'extractive', ai_generated: true },
    });
    expect(out.proposal.confidence).toBeGreaterThan(0.4);
    const pending = await (await send('/api/proposals?kind=concept_stub')).json();
    expect(pending.items.map((p: { proposal_id: string }) => p.proposal_id)).toContain(out.proposal.proposal_id);
    const kinds = (await (await send(`/api/audit?subject_id=${SLUG}`)).json()).items.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(['knowledge.draft']);
  });

  it('refuses a second draft on the same topic (409) and a topic nothing mentions (404)', async () => {
    expect((await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: 'Claims  Handling!' } })).status).toBe(409);
    expect((await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: repoSnap.concepts[0].title } })).status).toBe(409);
    const none = await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: 'zyxwv quantum basketry' } });
    expect(none.status).toBe(404);
    expect(fs.existsSync(path.join(contentDir, 'knowledge', 'zyxwv-quantum-basketry.md'))).toBe(false);
  });

  it('uses pages people added as sources, cited by their address', async () => {
    srv.db
      .prepare('INSERT INTO sources (id, type, url, canonical_url, title, text, added_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run('src_kelp', 'web_page', 'https://example.org/kelp', 'https://example.org/kelp', 'Kelp farming with drones', 'Kelp farming with drones lets small cooperatives survey their lines every morning. Drones spot storm damage to kelp farming lines before divers could.', ana.userId, new Date().toISOString());
    const out = await (await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: 'kelp farming' } })).json();
    expect(out.draft.sources).toEqual([{ type: 'web_page', url: 'https://example.org/kelp', title: 'Kelp farming with drones' }]);
    expect(out.draft.body).toContain('(https://example.org/kelp)');
    expect(loadSnapshot(contentDir).conceptsBySlug.get('kelp-farming')!.draft).toBe(true);
  });

  it('publishes the draft when a moderator accepts and applies the proposal', async () => {
    const stub = (await (await send('/api/proposals?kind=concept_stub')).json()).items.find((p: { target: { id: string } }) => p.target.id === SLUG);
    expect((await send(`/api/proposals/${stub.proposal_id}/decision`, { method: 'POST', as: mod, json: { action: 'accept' } })).status).toBe(200);
    const applied = await (await send(`/api/proposals/${stub.proposal_id}/decision`, { method: 'POST', as: mod, json: { action: 'apply' } })).json();
    expect(applied).toMatchObject({ status: 'applied', applied: { content_changed: true, files: [`knowledge/${SLUG}.md`] } });
    expect(loadSnapshot(contentDir).conceptsBySlug.get(SLUG)!.draft).toBe(false);
  });

  it('leaves no draft file behind when the proposal cannot be written', async () => {
    srv.db.exec(`CREATE TRIGGER fail_draft_audit BEFORE INSERT ON audit_events WHEN NEW.kind = 'proposal.create' BEGIN SELECT RAISE(ABORT, 'audit store failed'); END`);
    try {
      expect((await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: 'coding agents' } })).status).toBe(500);
    } finally {
      srv.db.exec('DROP TRIGGER fail_draft_audit');
    }
    expect(fs.existsSync(path.join(contentDir, 'knowledge', 'coding-agents.md'))).toBe(false);
    expect(srv.db.prepare("SELECT COUNT(*) FROM proposals WHERE target_id = 'coding-agents'").pluck().get()).toBe(0);
    expect((await send('/api/audit?kind=knowledge.draft&subject_id=coding-agents')).ok).toBe(true);
    expect((await (await send('/api/audit?kind=knowledge.draft&subject_id=coding-agents')).json()).items).toEqual([]);
  });

  it('needs a signed-in caller and a usable topic (422)', async () => {
    expect((await send('/api/sources/knowledge', { method: 'POST', json: { topic: TOPIC } })).status).toBe(401);
    for (const body of [{}, { topic: '' }, { topic: 'a' }, { topic: 'x'.repeat(201) }, { topic: '!!! ???' }, { topic: 42 }, { topic: TOPIC, extra: true }]) {
      const res = await send('/api/sources/knowledge', { method: 'POST', as: ana, json: body });
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(422);
      expect((await res.json()).detail[0].loc[0]).toBe('body');
    }
  });
});

describe('drafts by an OpenAI-compatible LLM', () => {
  let contentDir: string;
  let srv: TestServer;
  let send: Send;
  let ana: TestSession;
  let llm: http.Server;
  const requests: { auth?: string; body: { model: string; messages: { role: string; content: string }[] } }[] = [];
  let failNext = false;

  beforeAll(async () => {
    const video = repoSnap.videos[0];
    // A stand-in for the external LLM service: it answers the chat-completions protocol.
    llm = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        requests.push({ auth: req.headers.authorization, body: JSON.parse(raw) });
        if (req.url !== '/v1/chat/completions' || failNext) {
          failNext = false;
          res.writeHead(500, { 'Content-Type': 'application/json' });
          return res.end('{"error":"overloaded"}');
        }
        const content = JSON.stringify({
          summary: 'Claims handling is the work of assessing and settling insurance claims, now often drafted by agents.',
          body: `## Overview\n\nAgents draft the first assessment ([case](/videos/${video.video_id})); see also [a page that does not exist](/videos/doesnotexist1).`,
        });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: `Here you go:\n${content}` } }] }));
      });
    });
    await new Promise<void>((r) => llm.listen(0, '127.0.0.1', () => r()));
    contentDir = copyContent();
    srv = await startTestServer({
      contentDir,
      env: { LLM_BASE_URL: `http://127.0.0.1:${(llm.address() as AddressInfo).port}`, LLM_MODEL: 'test-model', LLM_API_KEY: 'sk-test', WRITE_RATE_LIMIT_PER_MINUTE: '1000' },
    });
    send = sender(srv);
    ana = sessionFor(srv, 'ana@example.org', 'Ana');
  });
  afterAll(async () => {
    await srv.stop();
    await new Promise<void>((r) => llm.close(() => r()));
    fs.rmSync(contentDir, { recursive: true, force: true });
  });

  it('writes the model’s text, drops links to pages that do not exist, and still lists the sources', async () => {
    const out = await (await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: TOPIC } })).json();
    expect(out).toMatchObject({ generator: 'llm:test-model', ai_generated: true, warnings: [] });
    expect(out.draft.summary).toMatch(/^Claims handling is the work/);
    expect(out.draft.body).toContain('## Overview');
    expect(out.draft.body).toContain('see also a page that does not exist');
    expect(out.draft.body).toMatch(/## Sources\n\n- \[/);
    expect(requests[0].auth).toBe('Bearer sk-test');
    expect(requests[0].body.model).toBe('test-model');
    expect(requests[0].body.messages[1].content).toContain('Topic: claims handling');
    expect(loadSnapshot(contentDir).conceptsBySlug.get(SLUG)).toMatchObject({ draft: true });
  });

  it('falls back to an extractive draft, with a warning, when the model fails', async () => {
    failNext = true;
    const out = await (await send('/api/sources/knowledge', { method: 'POST', as: ana, json: { topic: 'accounts payable' } })).json();
    expect(out.generator).toBe('extractive');
    expect(out.warnings[0]).toMatch(/HTTP 500/);
    expect(loadSnapshot(contentDir).conceptsBySlug.get('accounts-payable')).toMatchObject({ draft: true });
  });
});
